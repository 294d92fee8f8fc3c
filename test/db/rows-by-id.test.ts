import { toArtifactRecord, toExecutionRecord, toOperationRecord } from "../../src/services/records";
import type { ArtifactId, OperationId, RunId } from "../../src/services/ids";
import { storedBoolean, storedTime } from "../../src/db/rows-by-id";
import { dataset, postEvent, runEvent } from "../support/openlineage";
import { draft, generator, recordOk, registerOperation, transform } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * The loaders' readers (artifacts, executions and operations by id) read straight from the read
 * connection as arrays, past Prisma (src/db/rows-by-id.ts): on the database under test, what
 * they give must be what Prisma's reads give, value for value — dates, booleans, integers, nulls,
 * JSON, the roles of an operation — for ids found, ids missing and ids asked twice.
 */
describe("artifacts, executions and operations by id, past Prisma", () => {
  let t: TestApp;
  let artifactIds: ArtifactId[];
  let runIds: RunId[];
  let operationIds: OperationId[];

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, { ...transform, inputs: [{ role: "data", artifactType: "csv" }, { role: "extra", artifactType: "csv", required: false }] });
    const source = await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft("a.csv"), { ...draft("b.csv"), metadata: { rows: 3, note: "ünïcode" } }] }] });
    const derived = await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      params: { threshold: 0.5 },
      inputs: [{ role: "data", artifactIds: [source.outputIds["a.csv"]] }],
      outputs: [{ role: "result", artifacts: [draft("a_clean.csv")] }],
      pins: { inputVersions: { data: "v1" }, codeVersion: "9f2c1ab", deterministic: true },
      startedAt: "2026-03-01T10:00:00.123Z",
      endedAt: "2026-03-01T10:05:00Z",
    });
    const notDeterministic = await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [source.outputIds["b.csv"]] }],
      outputs: [{ role: "result", artifacts: [draft("b_clean.csv")] }],
      pins: { deterministic: false },
    });
    // An OpenLineage run: a dataset version, a job's operation, a run without pins.
    const answer = await postEvent(t, runEvent({ runId: "0190c8c0-6a1e-7cc3-9a41-2f2d4d1c3b7e", job: { namespace: "airflow", name: "load" }, inputs: [], outputs: [dataset("postgres://db:5432", "shop.orders")] }));
    expect(answer.status).toBe(201);
    const prisma = t.app.database.prisma;
    artifactIds = (await prisma.artifact.findMany({ select: { id: true } })).map((a) => a.id as ArtifactId);
    runIds = (await prisma.execution.findMany({ select: { runId: true } })).map((e) => e.runId as RunId);
    operationIds = (await prisma.operation.findMany({ select: { id: true } })).map((o) => o.id as OperationId);
    expect(artifactIds.length).toBe(5);
    expect(runIds).toEqual(expect.arrayContaining([source.runId, derived.runId, notDeterministic.runId]));
    expect(runIds.length).toBe(4);
    expect(operationIds.length).toBe(3);
  });
  afterAll(() => t.close());

  test("artifacts: the records Prisma's rows give, missing ids null, repeated ids repeated", async () => {
    const prisma = t.app.database.prisma;
    const missing = `art_${"0".repeat(40)}` as ArtifactId;
    const asked = [...artifactIds, missing, artifactIds[0]];
    const expected = await Promise.all(asked.map(async (id) => {
      const row = await prisma.artifact.findUnique({ where: { id } });
      return row ? toArtifactRecord(row) : null;
    }));
    const read = await t.app.services.artifacts.byIds(asked);
    expect(read).toEqual(expected);
    expect(new Set(read.filter((a) => a?.dataset).map((a) => a!.id)).size).toBe(1);
    expect(read.find((a) => a?.originalName === "b.csv")?.metadata).toEqual({ rows: 3, note: "ünïcode" });
    expect(read.every((a) => a === null || a.createdAt instanceof Date)).toBe(true);
  });

  test("executions: pins, params, instants, steps and nulls as Prisma reads them", async () => {
    const prisma = t.app.database.prisma;
    const asked = [...runIds, "run_01a22f72-502b-7635-bf77-48dfa8edf8ad" as RunId];
    const expected = await Promise.all(asked.map(async (runId) => {
      const row = await prisma.execution.findUnique({ where: { runId } });
      return row ? toExecutionRecord(row) : null;
    }));
    const read = await t.app.services.executions.byRunIds(asked);
    expect(read).toEqual(expected);
    expect(read.map((e) => (e === null ? "missing" : e.pins.deterministic)).sort()).toEqual([false, "missing", null, null, true].sort());
    expect(read.find((e) => e?.pins.deterministic === true)?.startedAt?.toISOString()).toBe("2026-03-01T10:00:00.123Z");
  });

  test("operations: with their roles in order, a role not required read as false", async () => {
    const prisma = t.app.database.prisma;
    const asked = [...operationIds, `op_${"0".repeat(40)}` as OperationId];
    const expected = await Promise.all(asked.map(async (id) => {
      const row = await prisma.operation.findUnique({ where: { id }, include: { roles: true } });
      return row ? toOperationRecord(row) : null;
    }));
    const read = await t.app.services.operations.byIds(asked);
    expect(read).toEqual(expected);
    const transformRecord = read.find((o) => o?.name === "transform")!;
    expect(transformRecord.inputs.map((r) => [r.role, r.required])).toEqual([["data", true], ["extra", false]]);
  });

  test("stored instants and booleans, as either driver gives them", () => {
    expect(storedTime("2026-03-01T10:00:00.123+00:00")?.toISOString()).toBe("2026-03-01T10:00:00.123Z");
    // SQLite's CURRENT_TIMESTAMP: UTC, whatever the process's time zone.
    expect(storedTime("2026-03-01 10:00:00")?.toISOString()).toBe("2026-03-01T10:00:00.000Z");
    expect(storedTime(Date.UTC(2026, 2, 1))?.toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(storedTime("2026-03-01 10:00:00.5+02:00")?.toISOString()).toBe("2026-03-01T08:00:00.500Z");
    expect(storedTime(null)).toBeNull();
    expect([1, 0, true, false, null].map(storedBoolean)).toEqual([true, false, true, false, null]);
  });
});

import { randomUUID } from "node:crypto";
import { CHUNK_EVENTS } from "../../src/openlineage";
import { dataset, postLineage, runEvent } from "../support/openlineage";
import { tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * A batch is recorded in chunks (one unit of a fixed number of statements per chunk): it must record
 * exactly what the same events sent one at a time record, keep each event atomic, and let later
 * events of a chunk use what earlier ones made.
 */
const BATCH = { "content-type": "application/json" };

/** Runs of a small warehouse: shared sources, chains (a run reads what another wrote), parents, appends. */
function warehouseEvents(runs: number): Record<string, any>[] {
  const events: Record<string, any>[] = [];
  const parent = randomUUID();
  const minute = (m: number) => `2026-03-11T${String(2 + Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}:00Z`;
  for (let r = 0; r < runs; r++) {
    const runId = randomUUID();
    const table = `stage_${r % 7}`;
    const source = r % 3 === 0 ? dataset("wh", "raw.orders", { version: { datasetVersion: String(r % 5) } }) : dataset("wh", `stage_${(r + 6) % 7}`);
    const output = dataset("wh", table, {
      schema: { fields: [{ name: "id" }, { name: "amount" }] },
      columnLineage: { fields: { id: { inputFields: [{ namespace: "wh", name: source.name, field: "id", transformations: [{ type: "DIRECT", subtype: "IDENTITY" }] }] } } },
    });
    const facets = r % 4 === 0 ? { parent: { run: { runId: parent }, job: { namespace: "wh", name: "nightly" } } } : {};
    const job = { namespace: "wh", name: `build_${table}` };
    events.push(runEvent({ runId, job, eventType: "START", eventTime: minute(r), run: { runId, facets }, inputs: [source], outputs: [] }));
    events.push(runEvent({ runId, job, eventType: "COMPLETE", eventTime: minute(r + 1), run: { runId, facets }, inputs: [source], outputs: [output] }));
  }
  return events;
}

/** Everything recorded, without the instants and row ids a second recording cannot repeat. */
async function snapshot(t: TestApp) {
  const db = t.app.database.prisma;
  const sorted = <T>(rows: T[]) => rows.map((r) => JSON.stringify(r)).sort();
  return {
    executions: sorted((await db.execution.findMany({ omit: { recordedAt: true } })).map((e) => e)),
    links: sorted(await db.executionArtifact.findMany()),
    edges: sorted(await db.provenanceEdge.findMany({ omit: { id: true, createdAt: true } })),
    artifacts: sorted(await db.artifact.findMany({ omit: { createdAt: true } })),
    operations: sorted(await db.operation.findMany({ omit: { createdAt: true } })),
    events: sorted(await db.openLineageEvent.findMany({ omit: { id: true, receivedAt: true } })),
    runs: sorted(await db.openLineageRun.findMany({ omit: { updatedAt: true } })),
    uses: sorted(await db.datasetVersionUse.findMany({ omit: { createdAt: true } })),
    columnEdges: sorted(await db.columnEdge.findMany({ omit: { id: true, createdAt: true } })),
    columns: sorted(await db.datasetColumn.findMany()),
  };
}

describe("batches of OpenLineage events", () => {
  let one: TestApp;
  let batch: TestApp;
  beforeAll(async () => {
    one = await createTestApp();
    batch = await createTestApp();
  });
  afterAll(async () => {
    await one.close();
    await batch.close();
  });

  it(`record what the same events sent one at a time record (${CHUNK_EVENTS * 2 + 100} events: three chunks)`, async () => {
    const events = warehouseEvents(CHUNK_EVENTS + 50);
    for (const event of events) expect((await postLineage(one, JSON.stringify(event), BATCH)).status).toBe(201);
    const answer = await postLineage(batch, JSON.stringify(events), BATCH, "/api/v1/lineage/batch");
    expect([answer.status, answer.json.stored, answer.json.refused]).toEqual([200, events.length, 0]);
    const [a, b] = [await snapshot(one), await snapshot(batch)];
    expect(b.executions.length).toBe(CHUNK_EVENTS + 51); // every run, and the parent
    expect(b).toEqual(a);
  });

  it("keep each event atomic: an event the store refuses is refused alone, the rest of its chunk is stored", async () => {
    const runId = randomUUID();
    const ok = [runEvent({ job: { namespace: "atomic", name: "a" } }), runEvent({ job: { namespace: "atomic", name: "b" } })];
    const first = runEvent({ runId, eventType: "START", job: { namespace: "atomic", name: "x" } });
    const clash = runEvent({ runId, eventType: "COMPLETE", job: { namespace: "atomic", name: "y" } });
    const before = await tableCounts(batch);
    const answer = await postLineage(batch, JSON.stringify([ok[0], first, clash, ok[1]]), BATCH, "/api/v1/lineage/batch");
    expect(answer.status).toBe(207);
    expect(answer.json.results.map((r: any) => [r.status, r.error?.pointer])).toEqual([
      ["STORED", undefined],
      ["STORED", undefined],
      ["REFUSED", "/job"],
      ["STORED", undefined],
    ]);
    const after = await tableCounts(batch);
    // Three runs, three events, two jobs' operations plus x's: nothing of the refused event (job y).
    expect({ executions: after.executions - before.executions, events: after.openLineageEvents - before.openLineageEvents, operations: after.operations - before.operations }).toEqual({ executions: 3, events: 3, operations: 3 });
    const y = await batch.gql(`{ operation(name: "y", version: "openlineage:atomic") { id } }`);
    expect(y.errors!.map((e) => e.extensions?.code)).toEqual(["NOT_FOUND"]);
  });

  it("let a later event of a chunk read what an earlier one produced: the newest version, unpinned", async () => {
    const writer = randomUUID();
    const reader = randomUUID();
    const events = [
      runEvent({ runId: writer, job: { namespace: "chain", name: "write" }, outputs: [dataset("chain", "t")] }),
      runEvent({ runId: reader, job: { namespace: "chain", name: "read" }, inputs: [dataset("chain", "t")], outputs: [dataset("chain", "u")] }),
    ];
    expect((await postLineage(batch, JSON.stringify(events), BATCH, "/api/v1/lineage/batch")).status).toBe(200);
    const res = await batch.gql(`query($r: ID!) { execution(runId: $r) { inputs { artifact { dataset { version } producedBy { runId } } } pins { inputVersions } } }`, { r: reader });
    expect(res.data!.execution.inputs).toEqual([{ artifact: { dataset: { version: `run_${writer}` }, producedBy: [{ runId: `run_${writer}` }] } }]);
    expect(res.data!.execution.pins.inputVersions[0]).toEqual(expect.objectContaining({ version: `run_${writer}`, pinned: false, resolvedBy: "LATEST_KNOWN" }));
  });
});

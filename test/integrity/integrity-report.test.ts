import { randomUUID } from "node:crypto";
import { groupIdFor } from "../../src/services/recording";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { drafts, OPERATIONS, pipelineComposite, stepsOf } from "../support/composite-fixtures";
import { recordCompositeOk, registerComposite } from "../support/composites";
import { dataset, postLineage, PRODUCER, runEvent } from "../support/openlineage";
import { recordOk, registerOperation, tableCounts } from "../support/recording";
import { errorCodes } from "../support/test-app";

// Issue 13, invariants checker: a store written only through provgraph's recording paths breaks no
// invariant; each invariant finds a row corrupted behind provgraph's back (raw SQL), and only that one.

const INTEGRITY_REPORT = `query($sample: Int) {
  integrityReport(sample: $sample) { ok invariants { name checked violations sample { subject detail } } }
}`;

const NAMES = ["execution-rows", "edge-endpoints", "output-sources", "edge-types", "group-ids", "pipeline-steps", "feed-sequence", "inherited-policy-tags", "privacy-ledger", "openlineage-run-state"];

describe("integrityReport", () => {
  let t: TokenTestApp;
  const ids: Record<string, string> = {};
  let cleanRun: string;
  let compositeRun: string;
  let olRun: string;

  const report = async (sample = 5) => {
    const res = await t.gql(INTEGRITY_REPORT, { sample });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!.integrityReport as { ok: boolean; invariants: { name: string; checked: number; violations: number; sample: { subject: string; detail: string }[] }[] };
  };
  const violations = async () => Object.fromEntries((await report()).invariants.map((i) => [i.name, i.violations]));
  const only = (name: string, n: number) => Object.fromEntries(NAMES.map((other) => [other, other === name ? n : 0]));
  const sql = (text: string, ...values: unknown[]) => t.app.database.prisma.$executeRawUnsafe(text.replace(/\?/g, () => (t.app.database.provider === "sqlite" ? "?" : `$${++placeholder}`)), ...values);
  let placeholder = 0;
  const exec = async (text: string, ...values: unknown[]) => {
    placeholder = 0;
    return sql(text, ...values);
  };
  const edgeOf = async (where: { runId: string; kind?: string }) => (await t.app.database.prisma.provenanceEdge.findFirst({ where, orderBy: { id: "asc" } }))!;

  beforeAll(async () => {
    t = await createTokenTestApp();
    for (const operation of OPERATIONS) await registerOperation(t, operation);
    await registerOperation(t, { name: "approve", version: "1", kind: "CURATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "data", artifactType: "csv" }] });
    await registerComposite(t, pipelineComposite("analysis", "PERSIST"));
    await registerComposite(t, pipelineComposite("analysis_discard", "DISCARD"));
    const source = await recordOk(t, { operation: "source", operationVersion: "1", pipeline: "study", step: 1, inputs: [], outputs: [{ role: "raw", artifacts: drafts("in", ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]) }] });
    Object.assign(ids, source.outputIds);
    const clean = await recordOk(t, { operation: "clean", operationVersion: "1", pipeline: "study", step: 2, inputs: [{ role: "data", artifactIds: [ids["A0.csv"]] }], outputs: [{ role: "cleaned", artifacts: drafts("c", ["A0_clean.csv"]) }] });
    cleanRun = clean.runId;
    await recordOk(t, { operation: "approve", operationVersion: "1", inputs: [{ role: "data", artifactIds: [ids["A1.csv"]] }], outputs: [{ role: "data", artifacts: [{ originalName: "A1.csv", contentHash: drafts("in", ["A1.csv"])[0].contentHash }] }] });
    await recordOk(t, { operation: "clean", operationVersion: "1", status: "FAILED", inputs: [{ role: "data", artifactIds: [ids["B0.csv"]] }], outputs: [] });
    const inputs = [
      { role: "a", artifactIds: [ids["A0.csv"], ids["A1.csv"]] },
      { role: "b", artifactIds: [ids["B0.csv"], ids["B1.csv"]] },
    ];
    compositeRun = (await recordCompositeOk(t, { composite: "analysis", compositeVersion: "1", pipeline: "study", step: 3, inputs, steps: stepsOf("persist") })).execution.runId;
    await recordCompositeOk(t, { composite: "analysis_discard", compositeVersion: "1", inputs, steps: stepsOf("discard") });
    // OpenLineage: a run in two events (START, then COMPLETE with its output), a child naming a parent stub, a failed run.
    const runId = randomUUID();
    olRun = `run_${runId}`;
    const job = { namespace: "warehouse", name: "daily" };
    const posted = await postLineage(
      t,
      JSON.stringify([
        runEvent({ runId, eventType: "START", eventTime: "2026-03-11T02:00:00.000Z", job, inputs: [dataset("pg", "raw.orders")] }),
        runEvent({ runId, eventType: "COMPLETE", eventTime: "2026-03-11T02:05:00.000Z", job, inputs: [dataset("pg", "raw.orders")], outputs: [dataset("pg", "mart.orders")] }),
        runEvent({
          eventType: "COMPLETE",
          job: { namespace: "warehouse", name: "child" },
          run: { runId: randomUUID(), facets: { parent: { _producer: PRODUCER, _schemaURL: "https://openlineage.io/spec/facets/1-0-1/ParentRunFacet.json", run: { runId: randomUUID() }, job: { namespace: "airflow", name: "dag" } } } },
          inputs: [dataset("pg", "mart.orders")],
          outputs: [dataset("pg", "mart.report")],
        }),
        runEvent({ eventType: "FAIL", job: { namespace: "warehouse", name: "broken" }, inputs: [dataset("pg", "raw.orders")] }),
      ]),
      { "content-type": "application/json", authorization: `Bearer ${t.adminToken}` },
      "/api/v1/lineage/batch",
    );
    expect([posted.status, posted.json.stored, posted.json.refused]).toEqual([200, 4, 0]);
    // A chain of its own with a policy tag at its head (backfilled to T0_clean and T0_clean_v2): the
    // corruptions of the other tests do not touch its lineage, so they change no holding.
    const t0 = (await recordOk(t, { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: drafts("tags", ["T0.csv"]) }] })).outputIds["T0.csv"];
    const t1 = (await recordOk(t, { operation: "clean", operationVersion: "1", inputs: [{ role: "data", artifactIds: [t0] }], outputs: [{ role: "cleaned", artifacts: drafts("tags", ["T0_clean.csv"]) }] })).outputIds["T0_clean.csv"];
    await recordOk(t, { operation: "clean", operationVersion: "1", inputs: [{ role: "data", artifactIds: [t1] }], outputs: [{ role: "cleaned", artifacts: drafts("tags", ["T0_clean_v2.csv"]) }] });
    ids["T0.csv"] = t0;
    const tagged = await t.gql(`mutation($input: TagArtifactInput!) { tagArtifact(input: $input) { holders } }`, { input: { artifactId: t0, tag: "PII", reason: "names" } });
    expect(tagged.errors).toBeUndefined();
    expect((tagged.data!.tagArtifact as { holders: number }).holders).toBe(3);
    // A privacy budget (its ledger empty): what the privacy-ledger invariant reads.
    const budget = await t.gql(`mutation { declarePrivacyBudget(input: { namespace: "pg", name: "raw.orders", epsilon: 1, reason: "integrity fixture" }) { accounting } }`);
    expect(budget.errors).toBeUndefined();
  });
  afterAll(() => t.close());

  test("a store written by recordExecution, composites (PERSIST and DISCARD) and OpenLineage breaks no invariant, and every check read rows", async () => {
    const clean = await report();
    expect(clean.invariants.map((i) => [i.name, i.violations, i.sample])).toEqual(NAMES.map((name) => [name, 0, []]));
    expect(clean.ok).toBe(true);
    expect(clean.invariants.filter((i) => i.checked === 0).map((i) => i.name)).toEqual([]);
    const counts = await tableCounts(t);
    expect(Object.fromEntries(clean.invariants.map((i) => [i.name, i.checked]))).toEqual({
      "execution-rows": counts.executions,
      "edge-endpoints": counts.edges,
      "output-sources": await t.app.database.prisma.executionArtifact.count({ where: { direction: "PRODUCED" } }),
      "edge-types": counts.edges,
      "group-ids": counts.edges,
      "pipeline-steps": (await t.app.database.prisma.execution.count({ where: { pipeline: { not: null }, step: { not: null } } })) + counts.steps,
      "feed-sequence": counts.feedEvents,
      "inherited-policy-tags": await t.app.database.prisma.policyTagHolding.count(),
      "privacy-ledger": 1,
      "openlineage-run-state": counts.openLineageRuns,
    });
    expect(counts.openLineageRuns).toBe(4); // three runs and the parent stub
  });

  test("needs the admin scope: a read token is FORBIDDEN; a sample above 100 is INVALID_ARGUMENT", async () => {
    const reader = await t.issue(["read"]);
    const refused = await t.gqlAs(reader, INTEGRITY_REPORT, {});
    expect([errorCodes(refused), refused.errors?.[0].extensions?.scope]).toEqual([["FORBIDDEN"], "admin"]);
    expect(errorCodes(await t.gql(INTEGRITY_REPORT, { sample: 101 }))).toEqual(["INVALID_ARGUMENT"]);
  });

  test("execution-rows: an edge whose execution is absent (a half-written recording)", async () => {
    const edge = await edgeOf({ runId: cleanRun });
    const orphanRun = "run_00000000-0000-7000-8000-000000000001";
    await exec(
      `INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", "kind", "groupId", "stepBoundary", "sourceType", "targetType", "createdAt") SELECT "sourceId", "targetId", ?, "kind", "groupId", "stepBoundary", "sourceType", "targetType", "createdAt" FROM "ProvenanceEdge" WHERE "id" = ?`,
      orphanRun,
      edge.id,
    );
    const found = await report();
    expect(await violations()).toEqual(only("execution-rows", 1));
    expect(found.invariants[0].sample).toEqual([{ subject: orphanRun, detail: expect.stringMatching(/^edge \d+ names no recorded execution$/) }]);
    await exec(`DELETE FROM "ProvenanceEdge" WHERE "runId" = ?`, orphanRun);
  });

  test("execution-rows: an execution without the link of its required input role", async () => {
    const link = (await t.app.database.prisma.executionArtifact.findFirst({ where: { runId: cleanRun, direction: "CONSUMED" } }))!;
    const { position: _position, ...key } = link;
    await t.app.database.prisma.executionArtifact.delete({ where: { runId_direction_role_artifactId: key } });
    expect(await violations()).toEqual(only("execution-rows", 1));
    expect((await report()).invariants[0].sample).toEqual([{ subject: cleanRun, detail: "required input role 'data' has no link" }]);
    await t.app.database.prisma.executionArtifact.create({ data: link });
  });

  test("edge-endpoints: an edge from an artifact that is not stored", async () => {
    const edge = await edgeOf({ runId: cleanRun });
    const missing = "art_" + "0".repeat(40);
    await exec(`UPDATE "ProvenanceEdge" SET "sourceId" = ?, "groupId" = ? WHERE "id" = ?`, missing, groupIdFor([missing]), edge.id);
    expect(await violations()).toEqual(only("edge-endpoints", 1));
    expect((await report()).invariants[1].sample).toEqual([{ subject: `edge ${edge.id}`, detail: `source ${missing} is not a stored artifact` }]);
    await exec(`UPDATE "ProvenanceEdge" SET "sourceId" = ?, "groupId" = ? WHERE "id" = ?`, edge.sourceId, edge.groupId, edge.id);
  });

  test("output-sources: a derived output whose edge is gone", async () => {
    const edge = await edgeOf({ runId: cleanRun });
    await exec(`DELETE FROM "ProvenanceEdge" WHERE "id" = ?`, edge.id);
    expect(await violations()).toEqual(only("output-sources", 1));
    expect((await report()).invariants[2].sample).toEqual([{ subject: cleanRun, detail: `output ${edge.targetId} of role 'cleaned' has no source edge` }]);
    const { id: _id, ...row } = edge;
    await t.app.database.prisma.provenanceEdge.create({ data: row });
  });

  test("edge-types: a denormalized type that is not the artifact's", async () => {
    const edge = await edgeOf({ runId: cleanRun });
    await exec(`UPDATE "ProvenanceEdge" SET "targetType" = 'parquet' WHERE "id" = ?`, edge.id);
    expect(await violations()).toEqual(only("edge-types", 1));
    expect((await report()).invariants[3].sample).toEqual([{ subject: `edge ${edge.id}`, detail: `targetType 'parquet' but ${edge.targetId} is a 'csv'` }]);
    await exec(`UPDATE "ProvenanceEdge" SET "targetType" = ? WHERE "id" = ?`, edge.targetType, edge.id);
  });

  test("group-ids: a groupId that is not the hash of its sources (here, of a co-input pair of the composite)", async () => {
    const edge = await edgeOf({ runId: compositeRun, kind: "CO_INPUT" });
    const sources = (await t.app.database.prisma.provenanceEdge.findMany({ where: { runId: compositeRun, targetId: edge.targetId, groupId: edge.groupId } })).map((e) => e.sourceId);
    expect(sources.length).toBe(2);
    await exec(`UPDATE "ProvenanceEdge" SET "groupId" = 'grp_forged' WHERE "runId" = ? AND "targetId" = ? AND "groupId" = ?`, compositeRun, edge.targetId, edge.groupId);
    expect(await violations()).toEqual(only("group-ids", 1));
    expect((await report()).invariants[4].sample).toEqual([{ subject: compositeRun, detail: `group grp_forged of ${edge.targetId} has sources [${[...sources].sort().join(", ")}], whose hash is ${edge.groupId}` }]);
    await exec(`UPDATE "ProvenanceEdge" SET "groupId" = ? WHERE "runId" = ? AND "targetId" = ? AND "groupId" = 'grp_forged'`, edge.groupId, compositeRun, edge.targetId);
  });

  test("pipeline-steps: a step row naming another operation than its execution ran", async () => {
    const step = (await t.app.database.prisma.pipelineStep.findUnique({ where: { pipeline_step: { pipeline: "study", step: 2 } } }))!;
    const other = (await t.app.database.prisma.operation.findFirst({ where: { name: "report" } }))!.id;
    await exec(`UPDATE "PipelineStep" SET "operationId" = ? WHERE "pipeline" = 'study' AND "step" = 2`, other);
    expect(await violations()).toEqual(only("pipeline-steps", 1));
    expect((await report()).invariants[5].sample).toEqual([{ subject: cleanRun, detail: `ran ${step.operationId} as step study#2, which the steps table gives to ${other}` }]);
    await exec(`UPDATE "PipelineStep" SET "operationId" = ? WHERE "pipeline" = 'study' AND "step" = 2`, step.operationId);
  });

  test("pipeline-steps: a step no execution ran", async () => {
    const step = (await t.app.database.prisma.pipelineStep.findUnique({ where: { pipeline_step: { pipeline: "study", step: 2 } } }))!;
    await t.app.database.prisma.pipelineStep.create({ data: { ...step, step: 9 } });
    expect(await violations()).toEqual(only("pipeline-steps", 1));
    expect((await report()).invariants[5].sample).toEqual([{ subject: "study#9", detail: "no execution ran this step" }]);
    await t.app.database.prisma.pipelineStep.delete({ where: { pipeline_step: { pipeline: "study", step: 9 } } });
  });

  test("feed-sequence: an entry logged before the one ahead of it", async () => {
    const last = (await t.app.database.prisma.feedEvent.findFirst({ orderBy: { sequence: "desc" } }))!;
    await t.app.database.prisma.feedEvent.update({ where: { sequence: last.sequence }, data: { createdAt: new Date("2000-01-01T00:00:00Z") } });
    expect(await violations()).toEqual(only("feed-sequence", 1));
    expect((await report()).invariants[6].sample).toEqual([{ subject: `feed ${last.sequence}`, detail: `logged before the entry ahead of it (sequence ${Number(last.sequence) - 1})` }]);
    await t.app.database.prisma.feedEvent.update({ where: { sequence: last.sequence }, data: { createdAt: last.createdAt } });
  });

  test("inherited-policy-tags: a holding at the wrong depth, one missing, one the rule does not give; checking repairs nothing", async () => {
    const db = t.app.database.prisma;
    const derived = await db.policyTagHolding.findMany({ where: { depth: { gt: 0 } }, orderBy: [{ artifactId: "asc" }, { field: "asc" }] });
    expect(derived.map((h) => h.depth).sort()).toEqual([1, 2]);
    const [moved, lost] = derived;
    const origin = (await db.policyTagAssignment.findFirst({ where: { tag: "PII" } }))!;
    await exec(`UPDATE "PolicyTagHolding" SET "depth" = 7 WHERE "nodeKind" = ? AND "artifactId" = ? AND "field" = ? AND "tag" = 'PII'`, moved.nodeKind, moved.artifactId, moved.field);
    await exec(`DELETE FROM "PolicyTagHolding" WHERE "nodeKind" = ? AND "artifactId" = ? AND "field" = ? AND "tag" = 'PII'`, lost.nodeKind, lost.artifactId, lost.field);
    await exec(`INSERT INTO "PolicyTagHolding" ("nodeKind", "artifactId", "field", "tag", "originId", "depth") VALUES ('ARTIFACT', ?, '', 'PII', ?, 3)`, ids["B1.csv"], origin.id);
    const before = await db.policyTagHolding.findMany({ orderBy: [{ artifactId: "asc" }, { nodeKind: "asc" }, { field: "asc" }, { tag: "asc" }] });
    expect(await violations()).toEqual(only("inherited-policy-tags", 3));
    const at = (h: { nodeKind: string; artifactId: string; field: string }) => `PII ${h.nodeKind} ${h.artifactId}${h.field ? `.${h.field}` : ""}`;
    expect((await report()).invariants.find((i) => i.name === "inherited-policy-tags")!.sample.sort((a, b) => a.detail.localeCompare(b.detail))).toEqual(
      [
        { subject: at({ nodeKind: "ARTIFACT", artifactId: ids["B1.csv"], field: "" }), detail: `held (origin ${origin.id}, depth 3) but the rule derives nothing there` },
        { subject: at(moved), detail: `held from origin ${moved.originId} at depth 7; the rule derives origin ${moved.originId} at depth ${moved.depth}` },
        { subject: at(lost), detail: `missing: the rule derives it from origin ${lost.originId} at depth ${lost.depth}` },
      ].sort((a, b) => a.detail.localeCompare(b.detail)),
    );
    // The check derived everything afresh in a unit it rolled back: the store is as the corruption left it.
    expect(await db.policyTagHolding.findMany({ orderBy: [{ artifactId: "asc" }, { nodeKind: "asc" }, { field: "asc" }, { tag: "asc" }] })).toEqual(before);
    await t.app.services.compliance.tags.recompute();
    expect(await violations()).toEqual(only("inherited-policy-tags", 0));
  });

  test("privacy-ledger: a budget whose spend is not its ledger's sum, or more than its total", async () => {
    const db = t.app.database.prisma;
    await db.privacyBudget.update({ where: { namespace_name: { namespace: "pg", name: "raw.orders" } }, data: { epsilonSpent: 2_000_000_000_000n } });
    expect(await violations()).toEqual(only("privacy-ledger", 2));
    expect((await report()).invariants.find((i) => i.name === "privacy-ledger")!.sample).toEqual([
      { subject: "pg/raw.orders", detail: "spent more than its totals" },
      { subject: "pg/raw.orders", detail: "spent ε 2000000000000, δ 0 (units of 1e-12); its ledger sums ε 0, δ 0" },
    ]);
    await db.privacyBudget.update({ where: { namespace_name: { namespace: "pg", name: "raw.orders" } }, data: { epsilonSpent: 0n } });
    expect(await violations()).toEqual(only("privacy-ledger", 0));
  });

  test("openlineage-run-state: an execution status that is not the fold of its stored events", async () => {
    await t.app.database.prisma.execution.update({ where: { runId: olRun }, data: { status: "FAILED" } });
    expect(await violations()).toEqual(only("openlineage-run-state", 1));
    expect((await report()).invariants.find((i) => i.name === "openlineage-run-state")!.sample).toEqual([{ subject: olRun, detail: 'status is "FAILED", the fold of its 2 stored events gives "COMPLETED"' }]);
    await t.app.database.prisma.execution.update({ where: { runId: olRun }, data: { status: "COMPLETED" } });
  });

  test("openlineage-run-state: a stored event lost", async () => {
    const start = (await t.app.database.prisma.openLineageEvent.findFirst({ where: { runId: olRun, eventType: "START" } }))!;
    await exec(`DELETE FROM "OpenLineageEvent" WHERE "id" = ?`, start.id);
    expect(await violations()).toEqual(only("openlineage-run-state", 3));
    expect((await report()).invariants.find((i) => i.name === "openlineage-run-state")!.sample.map((v) => v.detail)).toEqual([
      'events is 2, the fold of its 1 stored events gives 1',
      'firstEventTime is "2026-03-11T02:00:00.000Z", the fold of its 1 stored events gives "2026-03-11T02:05:00.000Z"',
      'startedAt is "2026-03-11T02:00:00.000Z", the fold of its 1 stored events gives null',
    ]);
    const { id: _id, ...row } = start;
    await t.app.database.prisma.openLineageEvent.create({ data: row });
  });

  test("after every corruption was undone the store is clean again; a sample of 0 still counts", async () => {
    expect(await violations()).toEqual(only("execution-rows", 0));
    const edge = await edgeOf({ runId: cleanRun });
    await exec(`UPDATE "ProvenanceEdge" SET "sourceType" = 'x' WHERE "runId" = ?`, cleanRun);
    const counted = await report(0);
    expect(counted.invariants.find((i) => i.name === "edge-types")).toEqual({ name: "edge-types", checked: expect.any(Number), violations: 1, sample: [] });
    await exec(`UPDATE "ProvenanceEdge" SET "sourceType" = ? WHERE "runId" = ?`, edge.sourceType, cleanRun);
    expect((await report()).ok).toBe(true);
  });
});

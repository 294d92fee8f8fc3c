import { randomUUID } from "node:crypto";
import { OPENLINEAGE_LIMITS } from "../../src/openlineage/limits";
import { dataset, postEvent, runEvent } from "../support/openlineage";
import { tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * Events naming many datasets: every list built from them fits a statement (SQLite refuses an OR of
 * 1,000 branches, both databases a statement of more than ~32,000 values), up to the documented
 * 100,000 datasets an event may name; beyond it the event is refused, typed, with nothing written.
 */
describe("OpenLineage events naming many datasets", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent" } });
  });
  afterAll(() => t.close());

  // Short names and no facets: 100,001 of them stay under the 5 MB an event may weigh.
  const inputs = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ namespace: "w", name: `${prefix}${i}` }));
  const consumed = (runId: string) => t.app.database.prisma.executionArtifact.count({ where: { runId: `run_${runId}`, direction: "CONSUMED" } });

  it("998 and 5,000 inputs without a version facet are stored, each input linked", async () => {
    for (const n of [998, 5_000]) {
      const runId = randomUUID();
      const answer = await postEvent(t, runEvent({ runId, inputs: inputs(n, `in${n}`), outputs: [dataset("wide", `out${n}`)] }));
      expect([answer.status, answer.json.status]).toEqual([201, "STORED"]);
      expect(await consumed(runId)).toBe(n);
    }
  });

  it("through ingestOpenLineageEvents too: 998 and 32,000 inputs (past both databases' parameter limits)", async () => {
    for (const n of [998, 32_000]) {
      const runId = randomUUID();
      const res = await t.gql(`mutation($events: [JSON!]!) { ingestOpenLineageEvents(events: $events) { stored refused results { error { code } } } }`, {
        events: [runEvent({ runId, inputs: inputs(n, `gql${n}_`), outputs: [dataset("wide", `gql_out${n}`)] })],
      });
      expect(res.errors).toBeUndefined();
      expect(res.data!.ingestOpenLineageEvents).toEqual({ stored: 1, refused: 0, results: [{ error: null }] });
      expect(await consumed(runId)).toBe(n);
    }
  }, 300_000);

  it("a later event of a run with 12,000 inputs resolves them as the first did (the stored uses are read in chunks)", async () => {
    const runId = randomUUID();
    const many = inputs(12_000, "append");
    expect((await postEvent(t, runEvent({ runId, eventType: "START", eventTime: "2026-03-11T01:00:00Z", inputs: many }))).status).toBe(201);
    const complete = await postEvent(t, runEvent({ runId, eventType: "COMPLETE", eventTime: "2026-03-11T02:00:00Z", inputs: many, outputs: [dataset("wide", "append_out")] }));
    expect([complete.status, complete.json.executionStatus]).toEqual([201, "COMPLETED"]);
    expect(await consumed(runId)).toBe(12_000);
    expect(await t.app.database.prisma.datasetVersionUse.count({ where: { runId: `run_${runId}` } })).toBe(12_000);
  }, 300_000);

  it(`${OPENLINEAGE_LIMITS.maxEventDatasets.toLocaleString("en")} datasets are accepted; one more is EVENT_TOO_LARGE and writes nothing`, async () => {
    const limit = OPENLINEAGE_LIMITS.maxEventDatasets;
    const runId = randomUUID();
    const answer = await postEvent(t, runEvent({ runId, inputs: inputs(limit - 1, "max"), outputs: [dataset("wide", "max_out")] }));
    expect([answer.status, answer.json.status]).toEqual([201, "STORED"]);
    expect(await consumed(runId)).toBe(limit - 1);

    const before = await tableCounts(t);
    const over = await postEvent(t, runEvent({ inputs: inputs(limit, "over"), outputs: [dataset("wide", "over_out")] }));
    expect(over.status).toBe(413);
    expect(over.json.error).toEqual(
      expect.objectContaining({ code: "EVENT_TOO_LARGE", pointer: "/inputs", limit, found: limit + 1, reason: `more than ${limit} datasets (inputs and outputs)` }),
    );
    expect(await tableCounts(t)).toEqual(before);
  }, 600_000);
});

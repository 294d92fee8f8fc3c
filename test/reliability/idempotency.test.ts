import { drafts, OPERATIONS, pipelineComposite, stepsOf } from "../support/composite-fixtures";
import { RECORD_COMPOSITE, registerComposite } from "../support/composites";
import { createSecondInstance } from "../support/instances";
import { draft, RECORD_EXECUTION, recordOk, registerOperation, tableCounts } from "../support/recording";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";
import { testProvider } from "../support/test-database";

const generator = { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "sample", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
const recording = (names: string[], idempotencyKey?: string) => ({ operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: names.map(draft) }], ...(idempotencyKey ? { idempotencyKey } : {}) });
const RECORD_EXECUTIONS = `mutation($inputs: [RecordExecutionInput!]!) { recordExecutions(inputs: $inputs) { __typename ... on RecordExecutionPayload { edgeCount execution { runId outputs { artifact { originalName } } } } } }`;

/** What a client compares between its first answer and a retry's. */
const answerOf = (response: { data?: any; errors?: unknown }) => response.errors ?? response.data.recordExecution;

// Issue 13, point 5: a retry after a lost reply must not record a second run.
describe(`idempotencyKey (${testProvider})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    for (const operation of OPERATIONS) await registerOperation(t, operation);
    await registerComposite(t, pipelineComposite("pipeline", "PERSIST"));
  });
  afterAll(() => t.close());

  test("recordExecution: the same key and input again is answered with the first result and records nothing", async () => {
    const first = await t.gql(RECORD_EXECUTION, { input: recording(["k1_a.csv", "k1_b.csv"], "key-1") });
    expect(first.data!.recordExecution.__typename).toBe("RecordExecutionPayload");
    const before = await tableCounts(t);
    const retry = await t.gql(RECORD_EXECUTION, { input: recording(["k1_a.csv", "k1_b.csv"], "key-1") });
    expect(answerOf(retry)).toEqual(answerOf(first));
    expect(await tableCounts(t)).toEqual(before);
  });

  test("recordExecution: the same key with another input is IDEMPOTENCY_KEY_REUSED (naming the first run) and writes nothing", async () => {
    const first = await t.gql(RECORD_EXECUTION, { input: recording(["k2.csv"], "key-2") });
    const before = await tableCounts(t);
    const other = await t.gql(RECORD_EXECUTION, { input: recording(["k2_other.csv"], "key-2") });
    expect(errorCodes(other)).toEqual(["IDEMPOTENCY_KEY_REUSED"]);
    expect(other.errors![0].extensions).toEqual({ code: "IDEMPOTENCY_KEY_REUSED", field: "idempotencyKey", runId: first.data!.recordExecution.execution.runId });
    expect(await tableCounts(t)).toEqual(before);
  });

  test("a recording refused inside its unit (after the key was claimed) leaves its key unused: the corrected retry records", async () => {
    await recordOk(t, { ...recording(["k3_step.csv"]), pipeline: "idem", step: 0 });
    const before = await tableCounts(t);
    const source = (step: number) => ({ operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft("k3.csv")] }], pipeline: "idem", step, idempotencyKey: "key-3" });
    const refused = await t.gql(RECORD_EXECUTION, { input: source(0) });
    expect(errorCodes(refused)).toEqual(["STEP_CONFLICT"]);
    expect([await t.app.database.prisma.idempotencyKey.count({ where: { key: "key-3" } }), await tableCounts(t)]).toEqual([0, before]);
    const corrected = await t.gql(RECORD_EXECUTION, { input: source(1) });
    expect(corrected.data!.recordExecution.__typename).toBe("RecordExecutionPayload");
    expect(await t.app.database.prisma.idempotencyKey.count({ where: { key: "key-3" } })).toBe(1);
  });

  test("a key is 1 to 255 characters: an empty one, or a longer one, is INVALID_ARGUMENT", async () => {
    for (const idempotencyKey of ["", "k".repeat(256)]) {
      const refused = await t.gql(RECORD_EXECUTION, { input: { ...recording(["k4.csv"]), idempotencyKey } });
      expect(refused.errors?.map((e) => [e.extensions?.code, e.extensions?.field])).toEqual([["INVALID_ARGUMENT", "idempotencyKey"]]);
    }
  });

  test("recordExecutions: items carry their own keys; a retried batch records nothing again and answers the same", async () => {
    const inputs = [recording(["b1.csv"], "batch-1"), recording(["b2.csv"], "batch-2"), recording(["b3.csv"])];
    const first = await t.gql(RECORD_EXECUTIONS, { inputs });
    const before = await tableCounts(t);
    // The unkeyed item is recorded again (a new run): only keyed items are idempotent.
    const retry = await t.gql(RECORD_EXECUTIONS, { inputs });
    const runIds = (r: typeof first) => r.data!.recordExecutions.map((item: any) => item.execution.runId);
    expect(runIds(retry).slice(0, 2)).toEqual(runIds(first).slice(0, 2));
    expect(runIds(retry)[2]).not.toBe(runIds(first)[2]);
    expect((await tableCounts(t)).executions).toBe(before.executions + 1);
    // Two items of one batch under one key: the second is answered with the first.
    const twice = await t.gql(RECORD_EXECUTIONS, { inputs: [recording(["b4.csv"], "batch-4"), recording(["b4.csv"], "batch-4")] });
    expect(new Set(runIds(twice)).size).toBe(1);
  });

  test("concurrent retries with one key record one run, and every one of them gets its answer", async () => {
    const other = testProvider === "postgres" ? await createSecondInstance(t) : t;
    try {
      const before = await tableCounts(t);
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? other : t).gql(RECORD_EXECUTION, { input: recording(["c.csv", "c2.csv"], "concurrent-key") })));
      expect(answers.map((a) => a.errors ?? a.data!.recordExecution.__typename)).toEqual(Array(12).fill("RecordExecutionPayload"));
      expect(new Set(answers.map((a) => a.data!.recordExecution.execution.runId)).size).toBe(1);
      const after = await tableCounts(t);
      expect([after.executions - before.executions, after.artifacts - before.artifacts, after.feedEvents - before.feedEvents]).toEqual([1, 2, 1]);
    } finally {
      if (other !== t) await other.close();
    }
  });

  test("recordCompositeExecution: a retry with the key is answered with the first run; another input is IDEMPOTENCY_KEY_REUSED", async () => {
    const source = await recordOk(t, { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: drafts("idem", ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]) }] });
    const ids = source.outputIds;
    const run = (steps: unknown[]) => ({
      composite: "pipeline",
      compositeVersion: "1",
      inputs: [
        { role: "a", artifactIds: [ids["A0.csv"], ids["A1.csv"]] },
        { role: "b", artifactIds: [ids["B0.csv"], ids["B1.csv"]] },
      ],
      steps,
      idempotencyKey: "composite-key",
    });
    const first = await t.gql(RECORD_COMPOSITE, { input: run(stepsOf("idem")) });
    expect(first.data!.recordCompositeExecution.__typename).toBe("RecordCompositeExecutionPayload");
    const before = await tableCounts(t);
    const retry = await t.gql(RECORD_COMPOSITE, { input: run(stepsOf("idem")) });
    expect(retry).toEqual(first);
    expect(await tableCounts(t)).toEqual(before);
    const other = await t.gql(RECORD_COMPOSITE, { input: run(stepsOf("idem-other")) });
    expect(errorCodes(other)).toEqual(["IDEMPOTENCY_KEY_REUSED"]);
    expect(await tableCounts(t)).toEqual(before);
  });
});

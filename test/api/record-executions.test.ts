import { artifactIdFor } from "../../src/services/ids";
import type { GroupCommit } from "../../src/services/recording";
import { draft, edgesByName, generator, recordOk, registerOperation, tableCounts, transform } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";


const RECORD_EXECUTIONS = `mutation($inputs: [RecordExecutionInput!]!) {
  recordExecutions(inputs: $inputs) {
    __typename
    ... on RecordExecutionPayload { edgeCount execution { outputs { artifact { id originalName } } } }
    ... on Error { code message }
    ... on LineageCompletenessError { outputs }
  }
}`;

describe("recordExecutions: a batch, one result per input", () => {
  let t: TestApp;
  let samples: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    samples = (await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: ["a.csv", "b.csv", "c.csv"].map(draft) }] })).outputIds;
  });
  afterAll(() => t.close());

  const transformOf = (inputIds: string[], outputs: string[]) => ({ operation: "transform", operationVersion: "1", inputs: [{ role: "data", artifactIds: inputIds }], outputs: [{ role: "result", artifacts: outputs.map(draft) }] });

  test("each item is recorded or refused on its own, in order; a later item may use an earlier one's outputs", async () => {
    const before = await tableCounts(t);
    const inputs = [
      transformOf([samples["a.csv"]], ["a_clean.csv"]),
      transformOf([samples["b.csv"]], ["unrelated.csv"]), // LINEAGE_COMPLETENESS
      transformOf([samples["b.csv"], "art_0000000000000000000000000000000000000000"], ["b_clean.csv"]), // NOT_FOUND
      { ...transformOf([samples["c.csv"]], ["c_clean.csv"]), outputs: [{ role: "result", artifacts: [{ originalName: "c_clean.csv", contentHash: "sha256:nothex" }] }] }, // INVALID_CONTENT_HASH, before the unit
      transformOf([samples["c.csv"]], ["c_clean.csv"]),
    ];
    const first = await t.gql(RECORD_EXECUTIONS, { inputs });
    const aCleanId = first.data!.recordExecutions[0].execution.outputs[0].artifact.id as string;
    expect(first.data!.recordExecutions).toEqual([
      { __typename: "RecordExecutionPayload", edgeCount: 1, execution: { outputs: [{ artifact: { id: aCleanId, originalName: "a_clean.csv" } }] } },
      expect.objectContaining({ __typename: "LineageCompletenessError", code: "LINEAGE_COMPLETENESS", outputs: ["unrelated.csv"] }),
      null,
      null,
      { __typename: "RecordExecutionPayload", edgeCount: 1, execution: { outputs: [{ artifact: { id: expect.stringMatching(/^art_/), originalName: "c_clean.csv" } }] } },
    ]);
    expect(first.errors?.map((e) => ({ path: e.path, code: e.extensions?.code, field: e.extensions?.field }))).toEqual([
      { path: ["recordExecutions", 2], code: "NOT_FOUND", field: "inputs[0].artifactIds[1]" },
      { path: ["recordExecutions", 3], code: "INVALID_CONTENT_HASH", field: "outputs[0].artifacts[0].contentHash" },
    ]);

    const second = await t.gql(RECORD_EXECUTIONS, { inputs: [transformOf([aCleanId], ["a_clean_v2.csv"]), { ...transformOf([], ["a_clean_v2_x.csv"]), inputs: [{ role: "data", artifactIds: [] }] }] });
    expect(second.data!.recordExecutions[0]).toMatchObject({ __typename: "RecordExecutionPayload", edgeCount: 1 });
    const v2 = second.data!.recordExecutions[0].execution.outputs[0].artifact.id as string;
    expect(second.data!.recordExecutions[1]).toMatchObject({ __typename: "ArtifactValidationError", code: "ARTIFACT_VALIDATION" });
    // Chained in one call: item 1 consumes what item 0 records (ids are content-addressed, so known in advance).
    const v3 = artifactIdFor("csv", draft("a_clean_v3.csv").contentHash);
    const third = await t.gql(RECORD_EXECUTIONS, { inputs: [transformOf([aCleanId], ["a_clean_v3.csv"]), transformOf([v3, v2], ["a_clean_v3_y.csv"])] });
    expect(third.errors).toBeUndefined();
    expect(third.data!.recordExecutions.map((r: { __typename: string }) => r.__typename)).toEqual(["RecordExecutionPayload", "RecordExecutionPayload"]);

    const after = await tableCounts(t);
    expect({ executions: after.executions - before.executions, artifacts: after.artifacts - before.artifacts, edges: after.edges - before.edges }).toEqual({ executions: 5, artifacts: 5, edges: 5 });
    const edges = (await edgesByName(t)).map((e) => `${e.source} → ${e.target}`);
    expect(edges.sort()).toEqual(["a.csv → a_clean.csv", "a_clean.csv → a_clean_v2.csv", "a_clean.csv → a_clean_v3.csv", "a_clean_v3.csv → a_clean_v3_y.csv", "c.csv → c_clean.csv"]);
  });

  // One transaction holds the 20 on a quiet machine; a transaction takes no new unit after 100 ms
  // (GroupCommit's maxTransactionMs), so on a loaded one they spread over more (11 at load 10). Never 20.
  test("a batch shares transactions: 20 executions, a few commits at most", async () => {
    const commits = t.app.services.commits as GroupCommit;
    const before = commits.stats();
    const res = await t.gql(RECORD_EXECUTIONS, { inputs: Array.from({ length: 20 }, (_, i) => transformOf([samples["a.csv"]], [`a_batch_${i}.csv`])) });
    expect(res.errors).toBeUndefined();
    expect(res.data!.recordExecutions.filter((r: { __typename: string }) => r.__typename === "RecordExecutionPayload")).toHaveLength(20);
    const after = commits.stats();
    expect([after.units - before.units, after.retries - before.retries]).toEqual([20, 0]);
    expect(after.transactions - before.transactions).toBeGreaterThanOrEqual(1);
    expect(after.transactions - before.transactions).toBeLessThan(20);
  });

  test("an empty batch records nothing; more than 500 inputs is INVALID_ARGUMENT and writes nothing", async () => {
    expect((await t.gql(RECORD_EXECUTIONS, { inputs: [] })).data).toEqual({ recordExecutions: [] });
    const before = await tableCounts(t);
    const res = await t.gql(RECORD_EXECUTIONS, { inputs: Array.from({ length: 501 }, (_, i) => transformOf([samples["a.csv"]], [`a_over_${i}.csv`])) });
    expect(res.errors?.map((e) => ({ code: e.extensions?.code, field: e.extensions?.field, message: e.message }))).toEqual([
      { code: "INVALID_ARGUMENT", field: "inputs", message: "inputs: at most 500 executions in one call, got 501" },
    ]);
    expect(res.data).toBeNull();
    expect(await tableCounts(t)).toEqual(before);
  });
});

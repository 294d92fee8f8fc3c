import { createTestApp, type TestApp } from "../support/test-app";
import { draft, generator, recordOk, registerOperation } from "../support/recording";

/**
 * GraphQL's spec: an answer's keys come in the order its fields were asked, whichever finishes
 * first. Fields that resolve at once (__typename, a scalar on a loaded row) and fields that wait on
 * the database are mixed on purpose, at the root and below it, under both a query and a mutation.
 */
describe("answers keep the order of the selection set", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, { ...generator, name: "annotate" });
    await recordOk(t, { operation: "annotate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: ["annotated.csv"].map(draft) }] });
  });
  afterAll(() => t.close());

  test("a slow field asked first stays first, at the root and within objects", async () => {
    const res = await t.gql(`{
      search(query: "annot", first: 5) { totalCount edges { node { label kind } } }
      __typename
      executions(first: 5) { pageInfo { hasNextPage } edges { node { runId status } } }
    }`);
    expect(res.errors).toBeUndefined();
    expect(Object.keys(res.data!)).toEqual(["search", "__typename", "executions"]);
    expect(Object.keys(res.data!.search)).toEqual(["totalCount", "edges"]);
    expect(Object.keys(res.data!.executions)).toEqual(["pageInfo", "edges"]);
    expect(res.data!.search.totalCount).toBeGreaterThan(0);
  });

  test("aliases keep their order too", async () => {
    const res = await t.gql(`{ b: search(query: "annot", first: 1) { totalCount } a: __typename }`);
    expect(res.errors).toBeUndefined();
    expect(Object.keys(res.data!)).toEqual(["b", "a"]);
  });

  test("a mutation's answer keeps the order too", async () => {
    const res = await t.gql(
      `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) {
        ... on RecordExecutionPayload { execution { outputs { artifact { originalName } } runId } edgeCount __typename }
      } }`,
      { input: { operation: "annotate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft("ordered.csv")] }] } },
    );
    expect(res.errors).toBeUndefined();
    expect(Object.keys(res.data!.recordExecution)).toEqual(["execution", "edgeCount", "__typename"]);
    expect(Object.keys(res.data!.recordExecution.execution)).toEqual(["outputs", "runId"]);
    expect(res.data!.recordExecution.execution.outputs[0].artifact.originalName).toBe("ordered.csv");
  });
});

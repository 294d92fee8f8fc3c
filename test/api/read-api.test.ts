import { createTestApp, errorCodes, type TestApp } from "../support/test-app";
import { seedExecution, type SeededExecution } from "../support/seed";
import { artifactIdFor, newRunId, specIdFrom } from "../../src/services/ids";

describe("reading provenance seeded through Prisma", () => {
  let t: TestApp;
  let train: SeededExecution;
  let evaluate: SeededExecution;

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.app.database.prisma;
    train = await seedExecution(db, { operation: "train", label: "t", inputs: 2, outputs: 1, pipeline: "p1" });
    evaluate = await seedExecution(db, { operation: "evaluate", label: "e", inputs: 1, outputs: 2 });
    // evaluate also consumes train's output
    await db.executionArtifact.create({ data: { runId: evaluate.runId, artifactId: train.outputs[0], direction: "CONSUMED", role: "model", position: 0 } });
  });
  afterAll(() => t.close());

  test("execution(runId) returns its inputs and outputs by role, with artifacts", async () => {
    const res = await t.gql(
      `query($runId: ID!) { execution(runId: $runId) { id runId status operation { name version kind }
         inputs { role position artifact { id originalName artifactType } }
         outputs { role artifact { id originalName } } } }`,
      { runId: train.runId },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.execution).toEqual({
      id: train.runId,
      runId: train.runId,
      status: "COMPLETED",
      operation: { name: "train", version: "1", kind: "CREATOR" },
      inputs: [
        { role: "data", position: 0, artifact: { id: train.inputs[0], originalName: "t_in_0.csv", artifactType: "csv" } },
        { role: "data", position: 1, artifact: { id: train.inputs[1], originalName: "t_in_1.csv", artifactType: "csv" } },
      ],
      outputs: [{ role: "result", artifact: { id: train.outputs[0], originalName: "t_in_0_out.csv" } }],
    });
  });

  test("Artifact.producedBy and consumedBy list the linked executions", async () => {
    const res = await t.gql(`query($id: ID!) { artifact(id: $id) { id producedBy { runId } consumedBy { runId } } }`, { id: train.outputs[0] });
    expect(res.data!.artifact).toEqual({ id: train.outputs[0], producedBy: [{ runId: train.runId }], consumedBy: [{ runId: evaluate.runId }] });
  });

  test("node(id) resolves every prefixed id to its type", async () => {
    const res = await t.gql(
      `query($a: ID!, $r: ID!) { a: node(id: $a) { __typename id } r: node(id: $r) { __typename id ... on Execution { operation { id } } } }`,
      { a: train.inputs[0], r: evaluate.runId },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.a).toEqual({ __typename: "Artifact", id: train.inputs[0] });
    expect(res.data!.r.__typename).toBe("Execution");
    const operationId = res.data!.r.operation.id;
    const op = await t.gql(`query($id: ID!) { node(id: $id) { __typename ... on Operation { name } } }`, { id: operationId });
    expect(op.data!.node).toEqual({ __typename: "Operation", name: "evaluate" });
  });

  test("nodes(ids) resolves a mixed list in order; an unknown well-formed id is NOT_FOUND", async () => {
    const res = await t.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, { ids: [evaluate.runId, train.outputs[0]] });
    expect(res.data!.nodes).toEqual([
      { __typename: "Execution", id: evaluate.runId },
      { __typename: "Artifact", id: train.outputs[0] },
    ]);
    const unknown = await t.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: artifactIdFor("csv", "never-recorded") });
    expect(errorCodes(unknown)).toEqual(["NOT_FOUND"]);
  });

  test("executions can be filtered by operation, pipeline, status and specId", async () => {
    const byOperation = await t.gql(`{ executions(first: 10, filter: { operation: "evaluate" }) { edges { node { runId } } } }`);
    expect(byOperation.data!.executions.edges).toEqual([{ node: { runId: evaluate.runId } }]);
    const byPipeline = await t.gql(`{ executions(first: 10, filter: { pipeline: "p1" }) { edges { node { runId } } } }`);
    expect(byPipeline.data!.executions.edges).toEqual([{ node: { runId: train.runId } }]);
    const failed = await t.gql(`{ executions(first: 10, filter: { status: FAILED }) { edges { node { runId } } } }`);
    expect(failed.data!.executions.edges).toEqual([]);
    const spec = specIdFrom("train/t");
    const bySpec = await t.gql(`query($s: ID!) { executions(first: 10, filter: { specId: $s }) { edges { node { runId specId } } } }`, { s: spec });
    expect(bySpec.data!.executions.edges).toEqual([{ node: { runId: train.runId, specId: spec } }]);
  });

  test("executions are newest first", async () => {
    const res = await t.gql(`{ executions(first: 10) { edges { node { runId } } } }`);
    expect(res.data!.executions.edges.map((e: any) => e.node.runId)).toEqual([evaluate.runId, train.runId]);
  });

  test("executionsBySpec finds every attempt of a request", async () => {
    const res = await t.gql(`query($s: ID!) { executionsBySpec(specId: $s) { runId } }`, { s: specIdFrom("evaluate/e") });
    expect(res.data!.executionsBySpec).toEqual([{ runId: evaluate.runId }]);
  });

  test("operation(name, version) and the operations connection", async () => {
    const one = await t.gql(`{ operation(name: "train", version: "1") { name inputs { role artifactType required } outputs { role inferLineageFrom { inputs outputs } } } }`);
    expect(one.data!.operation).toEqual({
      name: "train",
      inputs: [{ role: "data", artifactType: "csv", required: true }],
      outputs: [{ role: "result", inferLineageFrom: { inputs: ["data"], outputs: null } }],
    });
    const page1 = await t.gql(`{ operations(first: 1) { edges { node { name } } pageInfo { hasNextPage endCursor } } }`);
    expect(page1.data!.operations.edges).toEqual([{ node: { name: "evaluate" } }]);
    expect(page1.data!.operations.pageInfo.hasNextPage).toBe(true);
    const page2 = await t.gql(`query($c: String) { operations(first: 5, after: $c) { edges { node { name } } pageInfo { hasNextPage } } }`, {
      c: page1.data!.operations.pageInfo.endCursor,
    });
    expect(page2.data!.operations).toEqual({ edges: [{ node: { name: "train" } }], pageInfo: { hasNextPage: false } });
  });

  describe("bad input gets a typed error, never a stack trace", () => {
    test.each([
      ["a malformed runId", `{ execution(runId: "42") { runId } }`, "INVALID_ID", "runId"],
      ["an artifact id of the wrong kind", `{ artifact(id: "${newRunId()}") { id } }`, "INVALID_ID", "id"],
      ["a malformed node id", `{ node(id: "nope") { id } }`, "INVALID_ID", "id"],
      ["a malformed specId filter", `{ executions(first: 1, filter: { specId: "x" }) { edges { cursor } } }`, "INVALID_ID", "filter.specId"],
      ["a bad cursor", `{ executions(first: 1, after: "bm90LWEtY3Vyc29y") { edges { cursor } } }`, "INVALID_CURSOR", "after"],
      ["first above the cap", `{ executions(first: 501) { edges { cursor } } }`, "PAGE_SIZE", "first"],
      ["a negative first", `{ operations(first: -1) { edges { cursor } } }`, "PAGE_SIZE", "first"],
    ])("%s", async (_name, query, code, field) => {
      const res = await t.gql(query);
      expect(errorCodes(res)).toEqual([code]);
      expect(res.errors![0].extensions!.field).toBe(field);
      expect(JSON.stringify(res)).not.toMatch(/\bat .*\.(ts|js):\d+/);
    });

    test.each([
      ["node(id)", `{ node(id: "${artifactIdFor("csv", "absent")}") { id } }`, "id", `artifact ${artifactIdFor("csv", "absent")} does not exist`],
      ["artifact(id)", `{ artifact(id: "${artifactIdFor("csv", "absent")}") { id } }`, "id", `artifact ${artifactIdFor("csv", "absent")} does not exist`],
      ["operation(name, version)", `{ operation(name: "absent", version: "9") { id } }`, "name", "operation absent@9 does not exist"],
    ])("NOT_FOUND from %s names the argument", async (_name, query, field, message) => {
      const res = await t.gql(query);
      expect(res.errors).toEqual([expect.objectContaining({ message, extensions: expect.objectContaining({ code: "NOT_FOUND", field }) })]);
    });

    test("nodes(ids): each bad id fails its own item, naming `ids`; the others resolve", async () => {
      const absent = artifactIdFor("csv", "absent");
      const res = await t.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [train.inputs[0], "bogus", absent] });
      expect(res.data).toEqual({ nodes: [{ id: train.inputs[0] }, null, null] });
      expect(res.errors!.map((e) => [e.path, e.extensions!.code, e.extensions!.field])).toEqual([
        [["nodes", 1], "INVALID_ID", "ids"],
        [["nodes", 2], "NOT_FOUND", "ids"],
      ]);
    });

    test("an unknown runId is NOT_FOUND", async () => {
      const runId = newRunId();
      const res = await t.gql(`query($r: ID!) { execution(runId: $r) { runId } }`, { r: runId });
      expect(errorCodes(res)).toEqual(["NOT_FOUND"]);
      expect(res.errors![0].message).toBe(`execution ${runId} does not exist`);
      expect(res.errors![0].extensions!.field).toBe("runId");
    });

    test("an unknown artifact is NOT_FOUND", async () => {
      const res = await t.gql(`query($a: ID!) { artifact(id: $a) { id } }`, { a: artifactIdFor("csv", "nothing") });
      expect(errorCodes(res)).toEqual(["NOT_FOUND"]);
    });

    test("a cursor from another connection is refused", async () => {
      const ops = await t.gql(`{ operations(first: 1) { pageInfo { endCursor } } }`);
      const res = await t.gql(`query($c: String) { executions(first: 1, after: $c) { edges { cursor } } }`, { c: ops.data!.operations.pageInfo.endCursor });
      expect(errorCodes(res)).toEqual(["INVALID_CURSOR"]);
    });

    test("a query nested deeper than the limit is refused before it runs", async () => {
      let selection = "id";
      for (let i = 0; i < 10; i++) selection = `producedBy { inputs { artifact { ${selection} } } }`;
      const res = await t.gql(`query($a: ID!) { artifact(id: $a) { ${selection} } }`, { a: train.inputs[0] });
      expect(res.data).toBeUndefined();
      expect(res.errors![0]).toEqual({
        message: "The operation nests fields 32 levels deep; at most 15 levels are accepted.",
        extensions: { code: "QUERY_TOO_DEEP", limit: 15, found: 32 },
      });
    });
  });
});

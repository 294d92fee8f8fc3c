import { getOperationAST, parse } from "graphql";
import { isCompiledOperation } from "../../src/http/compiled-lineage";
import { artifactIdFor } from "../../src/services/ids";
import { type SeededGraph, seedGraph } from "../support/lineage-graph";
import { createTestApp, type TestApp } from "../support/test-app";

// Closures-only queries run compiled (graphql-jit); every answer and error must be what the standard executor gives.
describe("lineage queries run compiled, with the standard executor's answers and errors", () => {
  let t: TestApp;
  let graph: SeededGraph;

  beforeAll(async () => {
    t = await createTestApp();
    // j = join(a, b) jointly; j → r; a → r2 (another run)
    graph = await seedGraph(t.app.database.prisma, "jit", { a: "csv", b: "csv", j: "parquet", r: "report", r2: "report" }, [
      { from: "a", to: "j", kind: "CO_INPUT", group: "ab" },
      { from: "b", to: "j", kind: "CO_INPUT", group: "ab" },
      { from: "j", to: "r" },
      { from: "a", to: "r2" },
    ]);
  });
  afterAll(() => t.close());

  /** r's ancestors nearest first: j, then a and b by id. */
  const nearestFirst = () => [graph.id("j"), ...[graph.id("a"), graph.id("b")].sort()];

  const SELECTION = `root { id originalName } truncated direction
    nodes { depth artifactId artifactType artifact { id originalName artifactType parents { originalName } } }
    edges { kind groupId stepBoundary source { originalName } target { id originalName } sourceId targetId }
    nodeIds nodeDepths edgeSourceIds edgeTargetIds`;

  test("a closure reads the same compiled (lineage alone) as through the standard executor (beside another field)", async () => {
    const variables = { id: graph.id("r") };
    const compiled = await t.gql(`query($id: ID!) { lineage(artifactId: $id) { ${SELECTION} } }`, variables);
    const standard = await t.gql(`query($id: ID!) { lineage(artifactId: $id) { ${SELECTION} } artifact(id: $id) { id } }`, variables);
    expect(compiled.errors).toBeUndefined();
    expect(standard.errors).toBeUndefined();
    expect(compiled.data!.lineage).toEqual(standard.data!.lineage);
    expect(compiled.data!.lineage.nodeIds).toEqual(nearestFirst());
    expect(compiled.data!.lineage.nodes[0].artifact.parents.map((p: { originalName: string }) => p.originalName).sort()).toEqual(["jit/a", "jit/b"]);
  });

  test("aliases, several closures and __typename in one compiled operation", async () => {
    const res = await t.gql(`query($r: ID!, $j: ID!) { __typename up: lineage(artifactId: $r) { nodeIds } down: lineage(artifactId: $j, direction: DOWNSTREAM) { nodes { __typename artifactId } } }`, {
      r: graph.id("r"),
      j: graph.id("j"),
    });
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ __typename: "Query", up: { nodeIds: nearestFirst() }, down: { nodes: [{ __typename: "LineageNode", artifactId: graph.id("r") }] } });
  });

  test("errors keep their codes, fields and messages", async () => {
    const absent = artifactIdFor("csv", "sha256:" + "0".repeat(64));
    const notFound = await t.gql(`query($id: ID!) { lineage(artifactId: $id) { nodeIds } }`, { id: absent });
    expect(notFound.data).toBeNull();
    expect(notFound.errors?.map((e) => ({ code: e.extensions?.code, field: e.extensions?.field, path: e.path, message: e.message }))).toEqual([
      { code: "NOT_FOUND", field: "artifactId", path: ["lineage"], message: `artifact ${absent} does not exist` },
    ]);
    const pageSize = await t.gql(`query($id: ID!) { lineage(artifactId: $id, first: 50001) { nodeIds } }`, { id: graph.id("r") });
    expect(pageSize.errors?.map((e) => [e.extensions?.code, e.extensions?.field])).toEqual([["PAGE_SIZE", "first"]]);
    // A variable that does not fit is refused by the standard executor, with graphql-js's message.
    const badVariable = await t.gql(`query($first: Int) { lineage(artifactId: "${graph.id("r")}", first: $first) { nodeIds } }`, { first: "ten" });
    expect(badVariable.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([["BAD_USER_INPUT", 'Variable "$first" got invalid value "ten"; Int cannot represent non-integer value: "ten"']]);
  });

  test.each([
    ["query { lineage(artifactId: \"x\") { nodeIds } }", true],
    ["query Q { __typename a: lineage(artifactId: \"x\") { nodeIds } b: lineage(artifactId: \"y\") { nodeIds } }", true],
    ["query { lineage(artifactId: \"x\") { nodeIds } artifact(id: \"x\") { id } }", false],
    ["query { ...F } fragment F on Query { lineage(artifactId: \"x\") { nodeIds } }", false],
    ["mutation { recordExecutions(inputs: []) { __typename } }", false],
  ])("%s runs compiled: %s", (source, compiled) => {
    expect(isCompiledOperation(getOperationAST(parse(source))!)).toBe(compiled);
  });
});

import { getOperationAST, parse } from "graphql";
import { isCompiledOperation } from "../../src/http/compiled-queries";
import { artifactIdFor } from "../../src/services/ids";
import { type SeededGraph, seedGraph } from "../support/lineage-graph";
import { createTestApp, type TestApp } from "../support/test-app";
import { draft, generator, recordOk, registerOperation } from "../support/recording";

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

// search and autocomplete run compiled too (a page of hits, each with its fields and highlights): the same answers and errors.
describe("search and autocomplete run compiled, with the standard executor's answers and errors", () => {
  let t: TestApp;
  let reportId: string;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    const generated = await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: ["raw/customer_orders.csv", "orders.csv", "reports/customer_summary.csv"].map(draft) }] });
    reportId = generated.outputIds["reports/customer_summary.csv"];
  });
  afterAll(() => t.close());

  const HITS = `kind id label detail rank highlights { start end } matched { field text highlights { start end } } artifact { id originalName } execution { runId } operation { id }`;
  const SEARCH = `search(query: $q, first: $first, after: $after) { edges { cursor node { ${HITS} } } pageInfo { hasNextPage endCursor } totalCount }`;
  const AUTOCOMPLETE = `autocomplete(prefix: $q, first: $first) { ${HITS} }`;
  // Beside a field outside the compiled set, the same operation runs through the standard executor.
  const besideStandard = (document: string) => document.replace(/ }$/, ` artifact(id: "${reportId}") { id } }`);

  test.each([
    ["search", `query($q: String!, $first: Int, $after: String) { ${SEARCH} }`],
    ["autocomplete", `query($q: String!, $first: Int) { ${AUTOCOMPLETE} }`],
  ])("%s answers the same compiled and standard, page by page", async (name, document) => {
    expect(isCompiledOperation(getOperationAST(parse(document))!)).toBe(true);
    const standardDocument = besideStandard(document);
    expect(isCompiledOperation(getOperationAST(parse(standardDocument))!)).toBe(false);
    for (const q of ["cust", "customer_orders", reportId.slice(0, 10), "zzzz"]) {
      const variables = name === "search" ? { q, first: 2, after: null } : { q, first: 2 };
      const compiled = await t.gql(document, variables);
      const standard = await t.gql(standardDocument, variables);
      expect(compiled.errors).toBeUndefined();
      expect(standard.errors).toBeUndefined();
      expect(compiled.data![name]).toEqual(standard.data![name]);
    }
    const found = await t.gql(document, { q: "cust", first: 5 });
    const hits = name === "search" ? found.data!.search.edges.map((e: { node: { label: string } }) => e.node) : found.data!.autocomplete;
    expect(hits.map((h: { label: string; artifact: { originalName: string } | null }) => [h.label, h.artifact?.originalName])).toEqual(
      expect.arrayContaining([
        ["raw/customer_orders.csv", "raw/customer_orders.csv"],
        ["reports/customer_summary.csv", "reports/customer_summary.csv"],
      ]),
    );
  });

  test("errors keep their codes, fields and messages", async () => {
    const document = `query($q: String!, $first: Int, $after: String) { ${SEARCH} }`;
    const standardDocument = besideStandard(document);
    for (const variables of [
      { q: "cust", first: 1, after: "not a cursor" },
      { q: "cust", first: 100_000, after: null },
      { q: "", first: 1, after: null },
    ]) {
      const compiled = await t.gql(document, variables);
      const standard = await t.gql(standardDocument, variables);
      const shape = (errors: typeof compiled.errors) => errors?.map((e) => ({ code: e.extensions?.code, field: e.extensions?.field, path: e.path, message: e.message }));
      expect(compiled.errors?.length).toBeGreaterThan(0);
      expect(compiled.data?.search ?? null).toBeNull();
      expect(shape(compiled.errors)).toEqual(shape(standard.errors));
    }
  });
});

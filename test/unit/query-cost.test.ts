import { getNamedType, getNullableType, type GraphQLField, type GraphQLNamedType, isCompositeType, isInterfaceType, isListType, isObjectType, isUnionType, parse } from "graphql";
import { UNBOUNDED_LIST_ITEMS } from "../../src/limits/cost-estimators";
import { estimateCost } from "../../src/limits/query-cost";
import { REQUEST_LIMITS } from "../../src/limits/request-limits";
import { schema } from "../../src/schema/index";

const cost = (document: string, variables?: Record<string, unknown>) => estimateCost(schema, parse(document), undefined, variables);
const ROOT = '"art_0000000000000000000000000000000000000000"';

describe("the query cost estimate", () => {
  test("a closure's first multiplies its lists: 1 + 50,000 × (1 + artifactId + depth)", () => {
    expect(cost(`{ lineage(artifactId: ${ROOT}, first: 50000) { nodes { artifactId depth } } }`)).toBe(1 + 50_000 * 3);
    expect(cost(`{ lineage(artifactId: ${ROOT}, first: 50000) { truncated root { id } nodeIds } }`)).toBe(1 + 1 + 2 + 50_000);
    expect(cost(`{ provJson(artifactId: ${ROOT}, first: 20000) }`)).toBe(20_000);
  });

  test("the documented example of a maximum (docs/api.md)", () => {
    const closure = `lineage(artifactId: ${ROOT}, first: 50000) { nodes { artifact { id originalName } depth } edges { source { id } target { id } kind groupId } }`;
    expect(cost(`{ ${closure} }`)).toBe(600_001);
  });

  test("a variable counts as its value; absent, the field's default (1,000 a closure, 50 a page)", () => {
    const query = `query($n: Int) { lineage(artifactId: ${ROOT}, first: $n) { nodes { depth } } }`;
    expect(cost(query, { n: 7 })).toBe(1 + 7 * 2);
    expect(cost(query, {})).toBe(1 + 1_000 * 2);
    expect(cost(`{ columnLineage(namespace: "n", name: "x", field: "f") { nodes { depth } } }`)).toBe(1 + 1_000 * 2);
    expect(cost(`query($n: Int = 3) { lineage(artifactId: ${ROOT}, first: $n) { nodes { depth } } }`)).toBe(1 + 3 * 2);
    expect(cost("{ executions { edges { cursor } pageInfo { hasNextPage } } }")).toBe(1 + 50 * 2 + 2);
  });

  test("one document asked again: each estimate is its own variables' and operation's, never an earlier one's", () => {
    const document = parse(`query A($n: Int) { lineage(artifactId: ${ROOT}, first: $n) { nodes { depth } } } query B { executions(first: 5) { edges { cursor } } }`);
    const estimate = (operationName: string, variables?: Record<string, unknown>) => estimateCost(schema, document, operationName, variables);
    expect(estimate("A", { n: 7 })).toBe(1 + 7 * 2);
    expect(estimate("A", { n: 50_000 })).toBe(1 + 50_000 * 2);
    expect(estimate("A", { n: 7 })).toBe(1 + 7 * 2);
    expect(estimate("A", {})).toBe(1 + 1_000 * 2);
    expect(estimate("B")).toBe(1 + 5 * 2);
    // Variables too long to keep are estimated each time, and alike.
    const ids = Array.from({ length: 1_000 }, (_, i) => `art_${String(i).padStart(40, "0")}`);
    const nodes = parse(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`);
    expect(estimateCost(schema, nodes, undefined, { ids })).toBe(estimateCost(schema, nodes, undefined, { ids }));
    expect(estimateCost(schema, nodes, undefined, { ids: ids.slice(0, 3) })).toBeLessThan(estimateCost(schema, nodes, undefined, { ids }));
  });

  test("above the maximum counts as the maximum (the field answers PAGE_SIZE)", () => {
    expect(cost("{ executions(first: 100000) { edges { cursor } } }")).toBe(1 + 500 * 2);
  });

  test("every aliased copy counts, fragments as written where spread", () => {
    const one = cost(`{ lineage(artifactId: ${ROOT}, first: 100) { nodes { depth } } }`);
    expect(cost(`{ a: lineage(artifactId: ${ROOT}, first: 100) { nodes { depth } } b: lineage(artifactId: ${ROOT}, first: 100) { nodes { depth } } }`)).toBe(2 * one);
    expect(cost(`{ ...L ...L } fragment L on Query { lineage(artifactId: ${ROOT}, first: 100) { nodes { depth } } }`)).toBe(2 * one);
  });

  test("nodes(ids) holds its ids; other lists count as a nominal number; introspection is free", () => {
    expect(cost('{ nodes(ids: ["a", "b", "c"]) { id } }')).toBe(3 * 2);
    expect(cost("query($ids: [ID!]!) { nodes(ids: $ids) { id } }", { ids: Array(40).fill("x") })).toBe(40 * 2);
    // A list longer than nodes(ids) may count is estimated on its first 1,001 items (the rest are execution's to check).
    expect(cost("query($ids: [ID!]!) { nodes(ids: $ids) { id } }", { ids: [...Array(100_000).fill("x"), { not: "an id" }] })).toBe(1_000 * 2);
    expect(cost(`{ artifact(id: ${ROOT}) { parents { id } } }`)).toBe(1 + UNBOUNDED_LIST_ITEMS * 2);
    expect(cost("{ __schema { types { name fields { name } } } }")).toBe(0);
  });

  test("only the operation asked for counts; an unknown one is left for execution to refuse", () => {
    const document = parse("query A { __typename } query B { executions { edges { cursor } } }");
    expect([estimateCost(schema, document, "A"), estimateCost(schema, document, "B")]).toEqual([1, 1 + 50 * 2]);
    expect([estimateCost(schema, document, "C"), estimateCost(schema, parse("{ __typename }"), "C"), estimateCost(schema, parse("{ __typename }"), null)]).toEqual([0, 0, 1]);
  });

  test("a fragment spread inside a connection counts at that connection's bound", () => {
    const page = "fragment Page on QueryExecutionsConnection { edges { cursor } pageInfo { hasNextPage } }";
    expect(cost(`{ executions(first: 5) { ...Page } } ${page}`)).toBe(1 + 5 * 2 + 2);
    expect(cost(`{ a: executions(first: 5) { ...Page } b: executions(first: 500) { ...Page } } ${page}`)).toBe(1 + 5 * 2 + 2 + (1 + 500 * 2 + 2));
    expect(cost(`{ executions(first: 5) { ... on QueryExecutionsConnection { edges { cursor } } } }`)).toBe(1 + 5 * 2);
  });

  test("a skipped selection costs nothing", () => {
    const query = "query($all: Boolean!) { executions(first: 5) { edges @include(if: $all) { cursor } pageInfo { hasNextPage } } }";
    expect(cost(query, { all: true })).toBe(1 + 5 * 2 + 2);
    expect(cost(query, { all: false })).toBe(1 + 2);
  });

  test("of fragments on an interface, the costliest type counts", () => {
    expect(cost('{ nodes(ids: ["a"]) { id ... on Artifact { originalName contentHash } ... on Execution { runId } } }')).toBe(1 * (1 + 3));
  });

  test("a field whose argument does not fit costs nothing (it does not run); the rest still counts", () => {
    const closure = `lineage(artifactId: ${ROOT}, first: 100) { nodes { depth } }`;
    expect(cost(`query($id: ID = "x") { node(id: $id) { id } ${closure} }`, { id: null })).toBe(cost(`{ ${closure} }`));
    // More than graphql-js's 100 validation errors must not stop the count.
    expect(cost(`query($id: ID = "x") { ${"node(id: $id) { id } ".repeat(150)} ${closure} }`, { id: null })).toBe(cost(`{ ${closure} }`));
  });

  test("more than 10,000 selections once fragments are spread is not counted (Infinity)", () => {
    const fields = Array(100).fill("__typename").join(" ");
    const spreads = (n: number, extra: number) => `{ ${Array(extra).fill("__typename").join(" ")} ${Array(n).fill("...F").join(" ")} } fragment F on Query { ${fields} }`;
    // 99 spreads of 100 fields, and 1 field: 10,000 selections.
    expect(cost(spreads(99, 1))).toBe(9_901);
    expect(cost(spreads(99, 2))).toBe(Infinity);
    expect(REQUEST_LIMITS.maxCostedSelections).toBe(10_000);
  });

  // The lists of a connection or closure report to its type (src/limits/cost-estimators.ts).
  test("the schema keeps bounds countable: a bounded field's type is returned by bounded fields only, and not reachable from itself", () => {
    const fields = Object.values(schema.getTypeMap()).flatMap((type) =>
      (isObjectType(type) || isInterfaceType(type)) && !type.name.startsWith("__") ? Object.values(type.getFields()) : [],
    );
    const bounded = (field: GraphQLField<unknown, unknown>) => field.args.some((arg) => arg.name === "first" || arg.name === "last");
    // A bounded field that is itself a list (Dataset.versions) multiplies its items directly; only a
    // bounded object (a connection, a closure) re-counts the lists its type holds.
    const boundsItsLists = (field: GraphQLField<unknown, unknown>) => bounded(field) && !isListType(getNullableType(field.type));
    const boundedTypes = new Set<GraphQLNamedType>(fields.filter(boundsItsLists).map((field) => getNamedType(field.type)).filter(isCompositeType));
    // The known bounded types (more arrive with new connections; the checks below hold for all of them).
    expect([...boundedTypes].map((type) => type.name)).toEqual(expect.arrayContaining(["Lineage", "QueryExecutionsConnection", "QueryOperationsConnection", "QueryProvenanceMapConnection"]));
    for (const field of fields) if (boundedTypes.has(getNamedType(field.type))) expect([field.name, boundsItsLists(field)]).toEqual([field.name, true]);
    for (const type of boundedTypes) expect([type.name, reachableFrom(type).has(type)]).toEqual([type.name, false]);
    const artifact = schema.getType("Artifact")!;
    expect(reachableFrom(artifact).has(artifact)).toBe(true); // Artifact.parents: the check can fail

  });
});

/** Every type a selection inside `start` can reach, through fields and possible types. */
function reachableFrom(start: GraphQLNamedType): Set<GraphQLNamedType> {
  const seen = new Set<GraphQLNamedType>();
  const next = (type: GraphQLNamedType): GraphQLNamedType[] => [
    ...(isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()).map((field) => getNamedType(field.type)) : []),
    ...(isInterfaceType(type) || isUnionType(type) ? schema.getPossibleTypes(type) : []),
  ];
  const queue = next(start);
  while (queue.length) {
    const type = queue.pop()!;
    if (seen.has(type)) continue;
    seen.add(type);
    queue.push(...next(type));
  }
  return seen;
}

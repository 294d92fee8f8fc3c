import { parse } from "graphql";
import { estimateCost, UNBOUNDED_LIST_ITEMS } from "../../src/limits/query-cost";
import { schema } from "../../src/schema/index";

const cost = (document: string, variables?: Record<string, unknown>) => estimateCost(schema, parse(document), undefined, variables);
const ROOT = '"art_0000000000000000000000000000000000000000"';

describe("the query cost estimate", () => {
  test("a closure's first multiplies its lists: 1 + 50,000 × (1 + artifactId + depth)", () => {
    expect(cost(`{ lineage(artifactId: ${ROOT}, first: 50000) { nodes { artifactId depth } } }`)).toBe(1 + 50_000 * 3);
    expect(cost(`{ lineage(artifactId: ${ROOT}, first: 50000) { truncated root { id } nodeIds } }`)).toBe(1 + 1 + 2 + 50_000);
    expect(cost(`{ provJson(artifactId: ${ROOT}, first: 20000) }`)).toBe(20_000);
  });

  test("the README's example of a documented maximum", () => {
    const closure = `lineage(artifactId: ${ROOT}, first: 50000) { nodes { artifact { id originalName } depth } edges { source { id } target { id } kind groupId } }`;
    expect(cost(`{ ${closure} }`)).toBe(600_001);
  });

  test("a variable counts as its value; absent, the field's default (10,000 a closure, 50 a page)", () => {
    const query = `query($n: Int) { lineage(artifactId: ${ROOT}, first: $n) { nodes { depth } } }`;
    expect(cost(query, { n: 7 })).toBe(1 + 7 * 2);
    expect(cost(query, {})).toBe(1 + 10_000 * 2);
    expect(cost(`query($n: Int = 3) { lineage(artifactId: ${ROOT}, first: $n) { nodes { depth } } }`)).toBe(1 + 3 * 2);
    expect(cost("{ executions { edges { cursor } pageInfo { hasNextPage } } }")).toBe(1 + 50 * 2 + 2);
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
    expect(cost(`{ artifact(id: ${ROOT}) { parents { id } } }`)).toBe(1 + UNBOUNDED_LIST_ITEMS * 2);
    expect(cost("{ __schema { types { name fields { name } } } }")).toBe(0);
  });
});

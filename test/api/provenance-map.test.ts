import { type SeededGraph, seedGraph } from "../support/lineage-graph";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/** The full backward and forward maps, paged by artifact id. */
describe("provenanceMap", () => {
  let t: TestApp;
  let g: SeededGraph;
  const T1 = new Date("2026-01-01T00:00:00.000Z");
  const T2 = new Date("2026-02-01T00:00:00.000Z");
  const leaves = Array.from({ length: 120 }, (_, i) => `leaf${String(i).padStart(3, "0")}`);

  beforeAll(async () => {
    t = await createTestApp();
    const artifacts: Record<string, string> = { a: "csv", b: "csv", c: "parquet", d: "metric", e: "model", src: "csv" };
    for (const leaf of leaves) artifacts[leaf] = "json";
    g = await seedGraph(t.app.database.prisma, "map", artifacts, [
      { from: "a", to: "c", kind: "CO_INPUT", group: "ab", at: T1 },
      { from: "b", to: "c", kind: "CO_INPUT", group: "ab", at: T1 },
      { from: "c", to: "d", at: T1 },
      { from: "c", to: "e", at: T1 },
      { from: "a", to: "e", at: T2 },
      ...leaves.map((leaf) => ({ from: "src", to: leaf, at: T1 })),
    ]);
  });
  afterAll(() => t.close());

  const MAP = `query($direction: LineageDirection!, $first: Int, $after: String, $last: Int, $before: String, $asOf: DateTime) {
    provenanceMap(direction: $direction, first: $first, after: $after, last: $last, before: $before, asOf: $asOf) {
      edges { cursor node { artifactId artifactType relatedIds edges { source { id } target { id } kind } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

  /** Every entry of a map, paging forwards `first` at a time: "artifact: related, related" by name. */
  async function wholeMap(direction: string, first: number, extra: Record<string, unknown> = {}) {
    const entries: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res: any = await t.gql(MAP, { direction, first, after, ...extra });
      expect(res.errors).toBeUndefined();
      for (const edge of res.data.provenanceMap.edges) entries.push(`${g.name(edge.node.artifactId)}: ${g.names(edge.node.relatedIds).join(",")}`);
      pages += 1;
      if (!res.data.provenanceMap.pageInfo.hasNextPage) return { entries, pages };
      after = res.data.provenanceMap.pageInfo.endCursor;
    }
  }

  /** Entries sorted by artifact id, as the map orders them. */
  const inIdOrder = (entries: string[]) => [...entries].sort((x, y) => (g.id(x.split(":")[0]) < g.id(y.split(":")[0]) ? -1 : 1));

  test("the backward map: every artifact with parents, with all its parents, in pages of 50", async () => {
    const { entries, pages } = await wholeMap("UPSTREAM", 50);
    expect(entries).toEqual(inIdOrder(["c: a,b", "d: c", "e: c,a", ...leaves.map((leaf) => `${leaf}: src`)]));
    expect(pages).toBe(3);
  });

  test("the forward map: every artifact with children, with all its children", async () => {
    const { entries, pages } = await wholeMap("DOWNSTREAM", 2);
    expect(entries).toEqual(inIdOrder(["a: c,e", "b: c", "c: d,e", `src: ${leaves.join(",")}`]));
    expect(pages).toBe(2);
  });

  test("an entry carries its edges and the denormalized type", async () => {
    const res: any = await t.gql(MAP, { direction: "UPSTREAM", first: 500 });
    const c = res.data.provenanceMap.edges.find((edge: any) => edge.node.artifactId === g.id("c")).node;
    expect(c).toEqual({
      artifactId: g.id("c"),
      artifactType: "parquet",
      relatedIds: [g.id("a"), g.id("b")],
      edges: [
        { source: { id: g.id("a") }, target: { id: g.id("c") }, kind: "CO_INPUT" },
        { source: { id: g.id("b") }, target: { id: g.id("c") }, kind: "CO_INPUT" },
      ],
    });
  });

  test("paging backwards with last/before returns the same entries", async () => {
    const forwards = (await wholeMap("UPSTREAM", 500)).entries;
    const seen: string[] = [];
    let before: string | null = null;
    for (;;) {
      const res: any = await t.gql(MAP, { direction: "UPSTREAM", last: 40, before });
      expect(res.errors).toBeUndefined();
      seen.unshift(...res.data.provenanceMap.edges.map((edge: any) => `${g.name(edge.node.artifactId)}: ${g.names(edge.node.relatedIds).join(",")}`));
      if (!res.data.provenanceMap.pageInfo.hasPreviousPage) break;
      before = res.data.provenanceMap.pageInfo.startCursor;
    }
    expect(seen).toEqual(forwards);
  });

  test("asOf leaves out edges recorded later", async () => {
    const { entries } = await wholeMap("DOWNSTREAM", 500, { asOf: T1.toISOString() });
    expect(entries).toEqual(inIdOrder(["a: c", "b: c", "c: d,e", `src: ${leaves.join(",")}`]));
  });

  test("a page is one statement for the map, however many entries it holds", async () => {
    const before = t.app.database.statementCount();
    const res: any = await t.gql(`{ provenanceMap(direction: UPSTREAM, first: 500) { edges { node { artifactId relatedIds } } } }`);
    expect(res.data.provenanceMap.edges).toHaveLength(123);
    expect(t.app.database.statementCount() - before).toBe(1);
  });

  describe("bad input", () => {
    test("first above 500 is PAGE_SIZE", async () => {
      const res = await t.gql(MAP, { direction: "UPSTREAM", first: 501 });
      expect(errorCodes(res)).toEqual(["PAGE_SIZE"]);
    });

    test("a cursor of the other direction's map is refused", async () => {
      const up: any = await t.gql(MAP, { direction: "UPSTREAM", first: 1 });
      const res = await t.gql(MAP, { direction: "DOWNSTREAM", first: 1, after: up.data.provenanceMap.pageInfo.endCursor });
      expect(errorCodes(res)).toEqual(["INVALID_CURSOR"]);
    });
  });
});

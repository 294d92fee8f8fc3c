import { newRunId, specIdFrom } from "../../src/services/ids";
import { seedArtifactRow, seedOperation } from "../support/seed";
import { seedRuns, type SeededRuns } from "../support/graph-seed";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/**
 * expand: one node's direct neighbours, page by page, each exactly once, co-input groups whole.
 *
 *   reference.csv is used by 120 runs (check0 … check119), each deriving one report from it;
 *   merge used six inputs in three joint derivations: {a1, a2} → m1, {a3} → m2, {a4, a5, a6} → m3;
 *   pair used left and right together (one CO_INPUT group) and reference alone for another output.
 */
const PAGE = `query($node: ID!, $direction: GraphDirection!, $first: Int, $after: String) {
  expand(nodeId: $node, direction: $direction, first: $first, after: $after) {
    node { id upstreamCount downstreamCount hiddenUpstream hiddenDownstream }
    nodes { id kind depth } edges { kind source target role }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

describe("expand: one node's neighbours, paged", () => {
  let t: TestApp;
  let g: SeededRuns;

  beforeAll(async () => {
    t = await createTestApp();
    const checks = Array.from({ length: 120 }, (_, i) => ({
      name: `check${i}`,
      operation: "check",
      inputs: [["reference", "data"]] as [string, string][],
      outputs: [[`report${i}`, "report"]] as [string, string][],
      derivations: [{ from: "reference", to: `report${i}` }],
    }));
    g = await seedRuns(
      t.app.database.prisma,
      "expand",
      {
        reference: "csv",
        ...Object.fromEntries(checks.map((_, i) => [`report${i}`, "txt"])),
        ...Object.fromEntries(["a1", "a2", "a3", "a4", "a5", "a6", "m1", "m2", "m3", "left", "right", "pairs", "lonely"].map((n) => [n, "csv"])),
      },
      [
        ...checks,
        {
          name: "merge",
          inputs: ["a1", "a2", "a3", "a4", "a5", "a6"].map((a) => [a, "part"] as [string, string]),
          outputs: [["m1", "out"], ["m2", "out"], ["m3", "out"]],
          derivations: [
            { from: "a1", to: "m1", kind: "CO_INPUT", group: "x" },
            { from: "a2", to: "m1", kind: "CO_INPUT", group: "x" },
            { from: "a3", to: "m2" },
            { from: "a4", to: "m3", kind: "CO_INPUT", group: "y" },
            { from: "a5", to: "m3", kind: "CO_INPUT", group: "y" },
            { from: "a6", to: "m3", kind: "CO_INPUT", group: "y" },
          ],
        },
        {
          name: "pair",
          inputs: [["left", "left"], ["right", "right"], ["reference", "lookup"]],
          outputs: [["pairs", "pairs"], ["lonely", "lonely"]],
          derivations: [
            { from: "left", to: "pairs", kind: "CO_INPUT", group: "p" },
            { from: "right", to: "pairs", kind: "CO_INPUT", group: "p" },
            { from: "reference", to: "lonely" },
          ],
        },
      ],
    );
  });
  afterAll(() => t.close());

  const page = async (variables: Record<string, unknown>) => {
    const res = await t.gql(PAGE, variables);
    expect(res.errors).toBeUndefined();
    return res.data!.expand;
  };

  /** Every page from the start: the neighbours on each page and the expanded node's hidden counts. */
  const allPages = async (node: string, direction: string, first: number) => {
    const pages: { ids: string[]; hiddenUpstream: number; hiddenDownstream: number }[] = [];
    let after: string | null = null;
    for (;;) {
      const p: any = await page({ node, direction, first, after });
      pages.push({ ids: p.nodes.filter((n: { depth: number }) => n.depth !== 0).map((n: { id: string }) => g.name(n.id)), hiddenUpstream: p.node.hiddenUpstream, hiddenDownstream: p.node.hiddenDownstream });
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    return pages;
  };

  test("an artifact used by 121 runs pages its consumers 50 at a time, each exactly once, in id order; its hidden count says how many are still to come", async () => {
    const pages = await allPages(g.id("reference"), "DOWNSTREAM", 50);
    expect(pages.map((p) => p.ids.length)).toEqual([50, 50, 21]);
    expect(pages.map((p) => p.hiddenDownstream)).toEqual([71, 21, 0]);
    const ids = pages.flatMap((p) => p.ids);
    expect(new Set(ids).size).toBe(121);
    expect(ids.map((name) => g.id(name))).toEqual([...ids.map((name) => g.id(name))].sort());
    expect(new Set(ids)).toEqual(new Set([...Array.from({ length: 120 }, (_, i) => `check${i}`), "pair"]));
  });

  test("a consumer on the page brings the co-inputs it used with the artifact, and USED edges with their roles", async () => {
    const p = await page({ node: g.id("left"), direction: "DOWNSTREAM" });
    expect(g.named(p.nodes)).toEqual([
      { id: "pair", kind: "RUN", depth: 1 },
      { id: "right", kind: "ARTIFACT", depth: 0 },
    ]);
    expect(g.named(p.edges).map((e: any) => `${e.kind} ${e.source} -> ${e.target} ${e.role}`)).toEqual(["USED left -> pair left", "USED right -> pair right"]);
    expect(p.node).toMatchObject({ downstreamCount: 1, hiddenDownstream: 0, upstreamCount: 0, hiddenUpstream: 0 });
  });

  test("a run's inputs page by joint derivation: a group is never split, even when it is larger than first", async () => {
    const pages = await allPages(g.id("merge"), "UPSTREAM", 2);
    // Groups in the order of their smallest id (ids are content hashes), each sorted by id.
    const byId = (a: string, b: string) => (g.id(a) < g.id(b) ? -1 : 1);
    const groups = [["a1", "a2"], ["a3"], ["a4", "a5", "a6"]].map((names) => names.sort(byId)).sort((x, y) => byId(x[0], y[0]));
    expect(pages.map((p) => p.ids)).toEqual(groups);
    expect(pages.map((p) => p.hiddenUpstream)).toEqual([6 - groups[0].length, 6 - groups[0].length - groups[1].length, 0]);
  });

  test("BOTH pages the upstream neighbours, then the downstream ones; the cursor carries on across the two", async () => {
    const pages = await allPages(g.id("pair"), "BOTH", 2);
    const ids = pages.flatMap((p) => p.ids);
    expect(ids.slice(0, 3).sort()).toEqual(["left", "reference", "right"]);
    expect(ids.slice(3).sort()).toEqual(["lonely", "pairs"]);
    expect(pages.at(-1)).toMatchObject({ hiddenUpstream: 0, hiddenDownstream: 0 });
  });

  test("each page takes the same number of statements, however many neighbours the node has", async () => {
    const statements = async (node: string) => {
      const before = t.app.database.statementCount();
      await page({ node, direction: "DOWNSTREAM", first: 50 });
      return t.app.database.statementCount() - before;
    };
    expect(await statements(g.id("reference"))).toBe(await statements(g.id("left")));
  });

  test("a cursor from another node or direction is INVALID_CURSOR; first above 500 is PAGE_SIZE; an unknown node NOT_FOUND", async () => {
    const first = await page({ node: g.id("reference"), direction: "DOWNSTREAM", first: 1 });
    const foreign = await t.gql(PAGE, { node: g.id("left"), direction: "DOWNSTREAM", after: first.pageInfo.endCursor });
    expect(errorCodes(foreign)).toEqual(["INVALID_CURSOR"]);
    const wrongSide = await t.gql(PAGE, { node: g.id("reference"), direction: "UPSTREAM", after: first.pageInfo.endCursor });
    expect(errorCodes(wrongSide)).toEqual(["INVALID_CURSOR"]);
    expect(errorCodes(await t.gql(PAGE, { node: g.id("reference"), direction: "DOWNSTREAM", first: 501 }))).toEqual(["PAGE_SIZE"]);
    const missing = await t.gql(PAGE, { node: `art_${"0".repeat(40)}`, direction: "UPSTREAM" });
    expect(errorCodes(missing)).toEqual(["NOT_FOUND"]);
    expect(missing.errors![0].extensions).toMatchObject({ field: "nodeId" });
  });
});

describe("expand: a node with 10,000 children", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("pages 500 at a time instead of answering them all; the first page says 9,500 more", async () => {
    const db = t.app.database.prisma;
    const operationId = await seedOperation(db, "fanout");
    const runId = newRunId();
    const source = seedArtifactRow("fanout/source.csv");
    const children = Array.from({ length: 10_000 }, (_, i) => seedArtifactRow(`fanout/child-${i}.csv`));
    await db.artifact.createMany({ data: [source, ...children] });
    await db.execution.create({ data: { runId, specId: specIdFrom("fanout"), operationId, status: "COMPLETED" } });
    await db.executionArtifact.createMany({
      data: [
        { runId, artifactId: source.id, direction: "CONSUMED", role: "data", position: 0 },
        ...children.map((c, i) => ({ runId, artifactId: c.id, direction: "PRODUCED", role: "out", position: i })),
      ],
    });
    const res = await t.gql(PAGE, { node: runId, direction: "DOWNSTREAM", first: 500 });
    expect(res.errors).toBeUndefined();
    expect(res.data!.expand.nodes).toHaveLength(500);
    expect(res.data!.expand.node).toMatchObject({ downstreamCount: 10_000, hiddenDownstream: 9_500 });
    expect(res.data!.expand.pageInfo.hasNextPage).toBe(true);
    const graph = await t.gql(`query($r: [ID!]!) { lineageGraph(roots: $r) { truncated nodes { id hiddenDownstream } } }`, { r: [runId] });
    // The neighbourhood keeps its default 200 nodes: the rest is a count.
    expect(graph.data!.lineageGraph.truncated).toBe(true);
    expect(graph.data!.lineageGraph.nodes.length).toBeLessThanOrEqual(201);
    expect(graph.data!.lineageGraph.nodes.find((n: { id: string }) => n.id === runId).hiddenDownstream).toBe(10_000 - (graph.data!.lineageGraph.nodes.length - 1 - 1));
  });
});

import { seedRuns, type SeededRuns } from "../support/graph-seed";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/**
 * lineageGraph: a neighbourhood of artifacts, runs and columns with typed edges and, on every node,
 * how many neighbours it has and how many of them are not shown.
 *
 *   raw ─ingest→ orders ─join(left)──→ joined ─report→ figure ─(output to output)→ metric
 *                  │     customers ─join(right)┘ (joined is a CO_INPUT derivation of orders + customers)
 *                  └─audit (used orders, derived nothing)
 *
 * ingest and audit were recorded on 1 March; join and report on 2 March.
 */
const MARCH_1 = new Date("2026-03-01T00:00:00Z");
const MARCH_2 = new Date("2026-03-02T00:00:00Z");

const NODE_FIELDS = "id kind label depth upstreamCount downstreamCount hiddenUpstream hiddenDownstream";
const EDGE_FIELDS = "id kind source target runId role groupId derivationKind backward";
const GRAPH = `query($roots: [ID!]!, $direction: GraphDirection, $depth: Int, $first: Int, $asOf: DateTime, $sbo: Boolean) {
  lineageGraph(roots: $roots, direction: $direction, depth: $depth, first: $first, asOf: $asOf, stepBoundaryOnly: $sbo) {
    roots truncated nodes { ${NODE_FIELDS} } edges { ${EDGE_FIELDS} } } }`;

/** Nodes as "name KIND depth up/hidden down/hidden", edges as "KIND source -> target role|kind", both sorted. */
function drawing(g: SeededRuns, graph: any) {
  const named = g.named(graph);
  return {
    roots: named.roots,
    truncated: named.truncated,
    nodes: named.nodes.map((n: any) => `${n.id} ${n.kind} ${n.depth} up ${n.upstreamCount}/${n.hiddenUpstream} down ${n.downstreamCount}/${n.hiddenDownstream}`).sort(),
    edges: named.edges.map((e: any) => `${e.kind} ${e.source} -> ${e.target}${e.role ? ` ${e.role}` : ""}${e.derivationKind ? ` ${e.derivationKind}` : ""}`).sort(),
  };
}

describe("lineageGraph: a neighbourhood with counts", () => {
  let t: TestApp;
  let g: SeededRuns;

  beforeAll(async () => {
    t = await createTestApp();
    g = await seedRuns(t.app.database.prisma, "orders", { raw: "csv", orders: "parquet", customers: "parquet", joined: "parquet", figure: "png", metric: "json" }, [
      { name: "ingest", inputs: [["raw", "raw"]], outputs: [["orders", "table"]], derivations: [{ from: "raw", to: "orders" }], at: MARCH_1 },
      { name: "audit", inputs: [["orders", "data"]], at: MARCH_1 },
      {
        name: "join",
        inputs: [["orders", "left"], ["customers", "right"]],
        outputs: [["joined", "joined"]],
        derivations: [{ from: "orders", to: "joined", kind: "CO_INPUT", group: "g" }, { from: "customers", to: "joined", kind: "CO_INPUT", group: "g" }],
        at: MARCH_2,
      },
      {
        name: "report",
        inputs: [["joined", "data"]],
        outputs: [["figure", "figure"], ["metric", "metric"]],
        derivations: [{ from: "joined", to: "figure", stepBoundary: false }, { from: "figure", to: "metric", kind: "OUTPUT_TO_OUTPUT", stepBoundary: false }],
        at: MARCH_2,
      },
    ]);
    // report ran as a step inside a composite run (join's, for the sake of the example).
    await t.app.database.prisma.compositeStepRun.create({ data: { runId: g.id("report"), compositeRunId: g.id("join"), step: "report", position: 0 } });
  });
  afterAll(() => t.close());

  const graphOf = async (variables: Record<string, unknown>) => {
    const res = await t.gql(GRAPH, variables);
    expect(res.errors).toBeUndefined();
    return drawing(g, res.data!.lineageGraph);
  };

  test("depth 1 both ways around orders: its producing run and parent, its consuming runs and child — the child with its co-input — and the counts", async () => {
    expect(await graphOf({ roots: [g.id("orders")] })).toEqual({
      roots: ["orders"],
      truncated: false,
      nodes: [
        "audit RUN 1 up 1/0 down 0/0",
        "customers ARTIFACT 0 up 0/0 down 1/0",
        "ingest RUN -1 up 1/0 down 1/0",
        "join RUN 1 up 2/0 down 1/0",
        // joined is used by report: one neighbour not shown, the "+1" a UI draws
        "joined ARTIFACT 1 up 1/0 down 1/1",
        "orders ARTIFACT 0 up 1/0 down 2/0",
        "raw ARTIFACT -1 up 0/0 down 1/0",
      ],
      edges: [
        "DERIVED customers -> joined CO_INPUT",
        "DERIVED orders -> joined CO_INPUT",
        "DERIVED raw -> orders INDEPENDENT",
        "GENERATED ingest -> orders table",
        "GENERATED join -> joined joined",
        "USED customers -> join right",
        "USED orders -> audit data",
        "USED orders -> join left",
        "USED raw -> ingest raw",
      ],
    });
  });

  test("edges carry their run, role and joint derivation; ids are stable between requests", async () => {
    const first = await t.gql(GRAPH, { roots: [g.id("orders")] });
    const again = await t.gql(GRAPH, { roots: [g.id("orders")] });
    expect(again.data!.lineageGraph.edges.map((e: any) => e.id)).toEqual(first.data!.lineageGraph.edges.map((e: any) => e.id));
    const derived = g.named(first.data!.lineageGraph.edges.filter((e: any) => e.kind === "DERIVED" && e.target === g.id("joined")));
    expect(derived.map((e: any) => [e.source, e.runId, e.groupId])).toEqual([
      ["orders", "join", "grp_orders_join_g"],
      ["customers", "join", "grp_orders_join_g"],
    ]);
    // a use names the joint derivation it went into; the audit derived nothing from its input
    const used = g.named(first.data!.lineageGraph.edges.filter((e: any) => e.kind === "USED").map((e: any) => [e.source, e.target, e.groupId]));
    expect(used).toEqual(expect.arrayContaining([["orders", "join", "grp_orders_join_g"], ["customers", "join", "grp_orders_join_g"], ["orders", "audit", null]]));
  });

  test("first keeps whole pieces nearest first: a child never comes without its co-inputs, and what is left out shows in the hidden counts", async () => {
    expect(await graphOf({ roots: [g.id("orders")], first: 4 })).toEqual({
      roots: ["orders"],
      truncated: true,
      nodes: ["audit RUN 1 up 1/0 down 0/0", "ingest RUN -1 up 1/0 down 1/0", "orders ARTIFACT 0 up 1/0 down 2/1", "raw ARTIFACT -1 up 0/0 down 1/0"],
      edges: ["DERIVED raw -> orders INDEPENDENT", "GENERATED ingest -> orders table", "USED orders -> audit data", "USED raw -> ingest raw"],
    });
  });

  test("depth 2 downstream of raw; upstream of metric through report's output-to-output edge", async () => {
    const down = await graphOf({ roots: [g.id("raw")], direction: "DOWNSTREAM", depth: 2 });
    expect(down.nodes).toEqual([
      "audit RUN 2 up 1/0 down 0/0",
      "customers ARTIFACT 1 up 0/0 down 1/0",
      "ingest RUN 1 up 1/0 down 1/0",
      "join RUN 2 up 2/0 down 1/0",
      "joined ARTIFACT 2 up 1/0 down 1/1",
      "orders ARTIFACT 1 up 1/0 down 2/0",
      "raw ARTIFACT 0 up 0/0 down 1/0",
    ]);
    const up = await graphOf({ roots: [g.id("metric")], direction: "UPSTREAM", depth: 2 });
    expect(up.nodes).toEqual([
      // figure is report's other output (metric derives from it): report did not use it
      "figure ARTIFACT -1 up 1/0 down 0/0",
      "joined ARTIFACT -2 up 1/1 down 1/0",
      "metric ARTIFACT 0 up 1/0 down 0/0",
      "report RUN -1 up 1/0 down 2/0",
    ]);
  });

  test("a run as root: its inputs one hop upstream, its outputs one hop downstream", async () => {
    expect(await graphOf({ roots: [g.id("join")] })).toEqual({
      roots: ["join"],
      truncated: false,
      nodes: ["customers ARTIFACT -1 up 0/0 down 1/0", "join RUN 0 up 2/0 down 1/0", "joined ARTIFACT 1 up 1/0 down 1/1", "orders ARTIFACT -1 up 1/1 down 2/1"],
      edges: ["DERIVED customers -> joined CO_INPUT", "DERIVED orders -> joined CO_INPUT", "GENERATED join -> joined joined", "USED customers -> join right", "USED orders -> join left"],
    });
  });

  test("asOf: runs and edges recorded later are left out (join was recorded on 2 March)", async () => {
    const before = await graphOf({ roots: [g.id("orders")], asOf: "2026-03-01T12:00:00Z" });
    expect(before.nodes).toEqual(["audit RUN 1 up 1/0 down 0/0", "ingest RUN -1 up 1/0 down 1/0", "orders ARTIFACT 0 up 1/0 down 1/0", "raw ARTIFACT -1 up 0/0 down 1/0"]);
  });

  test("stepBoundaryOnly: a composite's step runs and its internal edges drop out", async () => {
    const all = await graphOf({ roots: [g.id("joined")], direction: "DOWNSTREAM" });
    expect(all.nodes).toEqual(["figure ARTIFACT 1 up 1/0 down 0/0", "joined ARTIFACT 0 up 1/1 down 1/0", "report RUN 1 up 1/0 down 2/1"]);
    const boundary = await graphOf({ roots: [g.id("joined")], direction: "DOWNSTREAM", sbo: true });
    expect(boundary.nodes).toEqual(["joined ARTIFACT 0 up 1/1 down 0/0"]);
  });

  test("bad arguments: INVALID_ID, NOT_FOUND (field roots), INVALID_ARGUMENT (depth), PAGE_SIZE (first)", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ roots: ["orders"] }, "INVALID_ID", "roots"],
      [{ roots: ["col:art_0:"] }, "INVALID_ID", "roots"],
      [{ roots: [`art_${"0".repeat(40)}`] }, "NOT_FOUND", "roots"],
      [{ roots: ["run_00000000-0000-7000-8000-000000000000"] }, "NOT_FOUND", "roots"],
      [{ roots: [] }, "INVALID_ARGUMENT", "roots"],
      [{ roots: [g.id("orders")], depth: 11 }, "INVALID_ARGUMENT", "depth"],
      [{ roots: [g.id("orders")], depth: -1 }, "INVALID_ARGUMENT", "depth"],
      [{ roots: [g.id("orders")], first: 5001 }, "PAGE_SIZE", "first"],
    ];
    for (const [variables, code, field] of cases) {
      const res = await t.gql(GRAPH, variables);
      expect(errorCodes(res)).toEqual([code]);
      expect(res.errors![0].extensions).toMatchObject({ field });
      expect(res.data).toBeNull();
    }
  });

  test("nodes resolve to their artifact and execution through the loaders", async () => {
    const res = await t.gql(`query($r: [ID!]!) { lineageGraph(roots: $r) { nodes { id artifact { id originalName artifactType } execution { runId status operation { name } } column { field } } } }`, { r: [g.id("join")] });
    expect(res.errors).toBeUndefined();
    const byId = new Map(g.named(res.data!.lineageGraph.nodes).map((n: any) => [n.id, n]));
    expect(byId.get("join")).toEqual({ id: "join", artifact: null, execution: { runId: "join", status: "COMPLETED", operation: { name: "join" } }, column: null });
    expect(byId.get("customers")).toEqual({ id: "customers", artifact: { id: "customers", originalName: "customers", artifactType: "parquet" }, execution: null, column: null });
  });

  test("the statements a graph takes do not grow with its size: a hub with 5 consumers and one with 60", async () => {
    const db = t.app.database.prisma;
    const hub = async (prefix: string, consumers: number) =>
      seedRuns(
        db,
        prefix,
        Object.fromEntries([["hub", "csv"], ...Array.from({ length: consumers }, (_, i) => [`child${i}`, "csv"])]),
        Array.from({ length: consumers }, (_, i) => ({ name: `use${i}`, operation: "use", inputs: [["hub", "data"]], outputs: [[`child${i}`, "out"]], derivations: [{ from: "hub", to: `child${i}` }] })) as never,
      );
    const small = await hub("small", 5);
    const large = await hub("large", 60);
    const query = `query($r: [ID!]!) { lineageGraph(roots: $r, first: 500, depth: 2) { nodes { id hiddenDownstream artifact { originalName } execution { status operation { name } } } edges { id } } }`;
    const statements = async (root: string, nodes: number) => {
      const before = t.app.database.statementCount();
      const res = await t.gql(query, { r: [root] });
      expect(res.errors).toBeUndefined();
      expect(res.data!.lineageGraph.nodes).toHaveLength(nodes);
      return t.app.database.statementCount() - before;
    };
    const a = await statements(small.id("hub"), 11);
    const b = await statements(large.id("hub"), 121);
    expect(b).toBe(a);
    // the walk, the neighbourhood, then one batch each for Artifact, Execution and Execution.operation (with its roles)
    expect(a).toBe(6);
  });
});

describe("lineageGraph with columns and layout", () => {
  let t: TestApp;
  let g: SeededRuns;

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.app.database.prisma;
    g = await seedRuns(db, "cols", { src: { type: "dataset", dataset: ["db", "public.src"] }, dst: { type: "dataset", dataset: ["db", "public.dst"] } }, [
      { name: "copy", inputs: [["src", "input"]], outputs: [["dst", "output"]], derivations: [{ from: "src", to: "dst" }] },
    ]);
    await db.datasetColumn.createMany({
      data: [
        { artifactId: g.id("src"), field: "id", position: 0 },
        { artifactId: g.id("src"), field: "email", position: 1 },
        { artifactId: g.id("dst"), field: "id", position: 0 },
      ],
    });
    await db.columnEdge.createMany({
      data: [
        { sourceId: g.id("src"), sourceField: "id", targetId: g.id("dst"), targetField: "id", runId: g.id("copy"), type: "DIRECT", subtype: "IDENTITY" },
        { sourceId: g.id("src"), sourceField: "email", targetId: g.id("dst"), targetField: null, runId: g.id("copy"), type: "INDIRECT", subtype: "FILTER" },
      ],
    });
  });
  afterAll(() => t.close());

  const col = (artifact: string, field: string) => `col:${g.id(artifact)}:${field}`;

  test("columns: true adds each dataset version's columns at its depth, and the column edges between them (a dataset-wide one into the version)", async () => {
    const res = await t.gql(`query($r: [ID!]!) { lineageGraph(roots: $r, direction: UPSTREAM, columns: true) {
      nodes { id kind label depth upstreamCount downstreamCount hiddenUpstream hiddenDownstream column { field } }
      edges { kind source target subtype } } }`, { r: [g.id("dst")] });
    expect(res.errors).toBeUndefined();
    const graph = g.named(res.data!.lineageGraph);
    expect(graph.nodes.filter((n: any) => n.kind === "COLUMN").map((n: any) => `${n.id} ${n.depth} up ${n.upstreamCount}/${n.hiddenUpstream} down ${n.downstreamCount}/${n.hiddenDownstream}`).sort()).toEqual([
      "col:dst:id 0 up 2/0 down 0/0",
      "col:src:email -1 up 0/0 down 1/0",
      "col:src:id -1 up 0/0 down 1/0",
    ]);
    expect(graph.nodes.find((n: any) => n.id === "col:src:email").column).toEqual({ field: "email" });
    expect(graph.edges.filter((e: any) => e.kind.startsWith("COLUMN")).map((e: any) => `${e.kind} ${e.source} -> ${e.target} ${e.subtype}`).sort()).toEqual([
      "COLUMN_DIRECT col:src:id -> col:dst:id IDENTITY",
      "COLUMN_INDIRECT col:src:email -> dst FILTER",
    ]);
  });

  test("a column as root walks column edges: the filter shapes dst.id through the dataset-wide edge", async () => {
    const res = await t.gql(`query($r: [ID!]!) { lineageGraph(roots: $r, direction: UPSTREAM) { nodes { id kind depth hiddenUpstream } edges { kind source target } } }`, { r: [col("dst", "id")] });
    expect(res.errors).toBeUndefined();
    const graph = g.named(res.data!.lineageGraph);
    expect(graph.nodes.map((n: any) => `${n.id} ${n.kind} ${n.depth} ${n.hiddenUpstream}`).sort()).toEqual(["col:dst:id COLUMN 0 0", "col:src:email COLUMN -1 0", "col:src:id COLUMN -1 0"]);
    expect(graph.edges.map((e: any) => `${e.kind} ${e.source} -> ${e.target}`).sort()).toEqual(["COLUMN_DIRECT col:src:id -> col:dst:id", "COLUMN_INDIRECT col:src:email -> col:dst:id"]);
  });

  test("layout: true — boxes left to right by depth, a dataset's columns as rows with ports, routes from port to port", async () => {
    const res = await t.gql(`query($r: [ID!]!) { lineageGraph(roots: $r, direction: UPSTREAM, columns: true, layout: true) {
      width height nodes { id kind x y width height ports { columnId field x y } } edges { kind source target backward points { x y } } } }`, { r: [g.id("dst")] });
    expect(res.errors).toBeUndefined();
    const graph = g.named(res.data!.lineageGraph);
    const byId = new Map(graph.nodes.map((n: any) => [n.id, n]));
    const [src, copy, dst]: any[] = ["src", "copy", "dst"].map((id) => byId.get(id));
    expect(src.x + src.width).toBeLessThan(copy.x);
    expect(copy.x + copy.width).toBeLessThan(dst.x);
    expect(src.ports.map((p: any) => [p.columnId, p.field])).toEqual([["col:src:id", "id"], ["col:src:email", "email"]]);
    expect(dst.ports.map((p: any) => p.field)).toEqual(["id"]);
    // a column's box is its row of the dataset's box; its port sits on the box's edge at the row's middle
    const srcId: any = byId.get("col:src:id");
    expect(srcId.x).toBe(src.x);
    expect(srcId.y).toBeGreaterThanOrEqual(src.y);
    expect(srcId.y + srcId.height).toBeLessThanOrEqual(src.y + src.height);
    expect(src.ports[0].y).toBe(srcId.y + srcId.height / 2);
    const direct = graph.edges.find((e: any) => e.kind === "COLUMN_DIRECT");
    expect(direct.points).toEqual([{ x: src.x + src.width, y: src.ports[0].y }, { x: dst.x, y: dst.ports[0].y }]);
    expect(graph.edges.every((e: any) => e.backward === false)).toBe(true);
    expect(graph.width).toBeGreaterThanOrEqual(dst.x + dst.width);
  });
});

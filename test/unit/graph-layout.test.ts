import { spawnSync } from "node:child_process";
import type { OperationId } from "../../src/services/ids";
import { columnsForSteps, isBackwardEdge } from "../../src/services/graph-views/column-rules";
import { orderWithinColumns } from "../../src/services/graph-views/column-order";
import { toDot } from "../../src/services/graph-views/dot";
import { buildMacroGraph, type PipelineStepInput } from "../../src/services/graph-views/macro-graph";

const operation = (name: string) => ({ id: `op_${name}` as OperationId, name, version: "1", kind: "CREATOR" as const });
const roles = (...names: string[]) => names.map((role) => ({ role, artifactType: "csv" }));

/** Whether two edges between the same pair of adjacent columns cross, given each node's order. */
function crosses(order: Map<string, number>, [a, b]: [string, string], [c, d]: [string, string]): boolean {
  return (order.get(a)! - order.get(c)!) * (order.get(b)! - order.get(d)!) < 0;
}

describe("columns", () => {
  test("pipeline inputs in column 0, then per step an execution column and a data column, numbered by rank not step number", () => {
    expect(columnsForSteps([10, 20])).toEqual([
      { index: 0, kind: "DATA", step: null, nodeKeys: [] },
      { index: 1, kind: "EXECUTION", step: 10, nodeKeys: [] },
      { index: 2, kind: "DATA", step: 10, nodeKeys: [] },
      { index: 3, kind: "EXECUTION", step: 20, nodeKeys: [] },
      { index: 4, kind: "DATA", step: 20, nodeKeys: [] },
    ]);
  });

  test.each([
    ["USED", 0, 1, false, "data into the execution right after it"],
    ["WAS_GENERATED_BY", 1, 2, false, "execution into its data column"],
    ["WAS_DERIVED_FROM", 0, 2, false, "a derivation over one execution column"],
    ["USED", 2, 5, true, "a passthrough consumed two steps later"],
    ["USED", 0, 5, true, "a pipeline input consumed by step 3"],
    ["WAS_GENERATED_BY", 3, 2, true, "a curator re-emitting an earlier artifact"],
    ["WAS_DERIVED_FROM", 2, 6, true, "a derivation reaching over two steps"],
    ["WAS_DERIVED_FROM", 2, 2, true, "a derivation between two outputs of one step"],
  ] as const)("%s from column %i to %i is backward: %s (%s)", (kind, from, to, backward, _why) => {
    expect(isBackwardEdge(kind, from, to)).toBe(backward);
  });
});

describe("order within columns (dagre)", () => {
  test("two crossing edges are untangled", () => {
    const order = orderWithinColumns(
      [
        { key: "a", column: 0 },
        { key: "b", column: 0 },
        { key: "x", column: 1 },
        { key: "y", column: 1 },
      ],
      [
        { from: "a", to: "y" },
        { from: "b", to: "x" },
      ],
    );
    expect(crosses(order, ["a", "y"], ["b", "x"])).toBe(false);
    expect([...order.values()].sort()).toEqual([0, 0, 1, 1]);
  });

  test("edges that skip columns and edges drawn right to left take part in the ordering", () => {
    // a → s → x and b ⇢ y skipping column 1; y ⇠ q pointing back left from column 3
    const nodes = [
      { key: "a", column: 0 },
      { key: "b", column: 0 },
      { key: "s", column: 1 },
      { key: "x", column: 2 },
      { key: "y", column: 2 },
      { key: "q", column: 3 },
      { key: "r", column: 3 },
    ];
    const order = orderWithinColumns(nodes, [
      { from: "a", to: "s" },
      { from: "s", to: "x" },
      { from: "b", to: "y" },
      { from: "r", to: "x" },
      { from: "q", to: "y" },
    ]);
    // a above b ⇔ x above y (the skipping edge b ⇢ y runs beside s), and r/q follow x/y
    expect(order.get("a")! < order.get("b")!).toBe(order.get("x")! < order.get("y")!);
    expect(crosses(order, ["x", "r"], ["y", "q"])).toBe(false);
  });

  test("empty columns, isolated nodes, same-column edges and an empty graph are fine", () => {
    const order = orderWithinColumns(
      [
        { key: "in", column: 0 },
        { key: "alone", column: 0 },
        { key: "out", column: 4 },
        { key: "sibling", column: 4 },
      ],
      [
        { from: "in", to: "out" },
        { from: "out", to: "sibling" },
      ],
    );
    expect(new Set([order.get("in"), order.get("alone")])).toEqual(new Set([0, 1]));
    expect(new Set([order.get("out"), order.get("sibling")])).toEqual(new Set([0, 1]));
    expect(orderWithinColumns([], [])).toEqual(new Map());
  });

  test("independent parts of the graph are stacked in input order, never interleaved", () => {
    // part 1: p → {p1, p2}; part 2: q → {q1, q2}; part 3: r → r1 (one node per column: kept as given)
    const order = orderWithinColumns(
      [
        { key: "p", column: 1 },
        { key: "q", column: 1 },
        { key: "r", column: 1 },
        { key: "r1", column: 2 },
        { key: "q2", column: 2 },
        { key: "p2", column: 2 },
        { key: "q1", column: 2 },
        { key: "p1", column: 2 },
      ],
      [
        { from: "p", to: "p1" },
        { from: "p", to: "p2" },
        { from: "q", to: "q1" },
        { from: "q", to: "q2" },
        { from: "r", to: "r1" },
      ],
    );
    expect([order.get("p"), order.get("q"), order.get("r")]).toEqual([0, 1, 2]);
    expect(new Set([order.get("p1"), order.get("p2")])).toEqual(new Set([0, 1]));
    expect(new Set([order.get("q1"), order.get("q2")])).toEqual(new Set([2, 3]));
    expect(order.get("r1")).toBe(4);
  });

  test("the same input gives the same order every time", () => {
    const nodes = Array.from({ length: 30 }, (_, i) => ({ key: `n${i}`, column: i % 5 }));
    const edges = nodes.slice(0, 25).map((node, i) => ({ from: node.key, to: nodes[(i * 7 + 5) % 30].key }));
    expect(orderWithinColumns(nodes, edges)).toEqual(orderWithinColumns(nodes, edges));
  });
});

describe("buildMacroGraph", () => {
  test("steps numbered 10 and 20 fill columns 1-4; a flow from a role no step declares leaves its input a pipeline input", () => {
    const steps: PipelineStepInput[] = [
      { step: 10, operation: operation("extract"), inputRoles: roles("source"), outputRoles: roles("rows") },
      { step: 20, operation: operation("load"), inputRoles: roles("rows", "schema"), outputRoles: roles("table") },
    ];
    const graph = buildMacroGraph("etl", steps, [
      { step: 20, inputRole: "rows", sourceStep: 10, sourceRole: "rows" },
      { step: 20, inputRole: "schema", sourceStep: 10, sourceRole: "undeclared" },
    ]);
    expect(graph.steps).toEqual([10, 20]);
    expect(graph.columns.map((c) => [c.index, c.kind, c.step, c.nodeKeys])).toEqual([
      // dagre puts the edge reaching over step 10 above it rather than through it
      [0, "DATA", null, ["input:20:schema", "input:10:source"]],
      [1, "EXECUTION", 10, ["step:10"]],
      [2, "DATA", 10, ["data:10:rows"]],
      [3, "EXECUTION", 20, ["step:20"]],
      [4, "DATA", 20, ["data:20:table"]],
    ]);
    expect(graph.edges.map((e) => `${e.from} -> ${e.to} ${e.kind} ${e.role}${e.backward ? " backward" : ""}`)).toEqual([
      "input:20:schema -> step:20 USED schema backward",
      "input:10:source -> step:10 USED source",
      "step:10 -> data:10:rows WAS_GENERATED_BY rows",
      "data:10:rows -> step:20 USED rows",
      "step:20 -> data:20:table WAS_GENERATED_BY table",
    ]);
  });
});

describe("toDot", () => {
  test("quotes, backslashes and line breaks in names are escaped and dot renders the text", () => {
    const steps: PipelineStepInput[] = [
      { step: 1, operation: operation('say "hi"\\now'), inputRoles: roles("in\nput"), outputRoles: roles('o"ut') },
    ];
    const graph = buildMacroGraph('quote"d', steps, []);
    const dot = toDot('macro graph of quote"d', graph);
    expect(dot).toContain('digraph "macro graph of quote\\"d" {');
    expect(dot).toContain('label="say \\"hi\\"\\\\now\\nstep 1"');
    const rendered = spawnSync("dot", ["-Tsvg"], { input: dot, encoding: "utf8" });
    expect(rendered.stderr).toBe("");
    expect(rendered.status).toBe(0);
    expect(rendered.stdout).toContain("<svg");
  });
});

describe("ordering a component too large for dagre", () => {
  test("falls back to barycenter sweeps, which line up chains listed out of order", () => {
    // 3 columns × 1,500 nodes, node i of each column wired to node i of the next, listed reversed in the
    // middle column: barycenter sweeps must line the chains up again (zero crossings).
    const width = 1_500;
    const nodes = [0, 1, 2].flatMap((column) =>
      Array.from({ length: width }, (_, i) => ({ key: `c${column}n${column === 1 ? width - 1 - i : i}`, column })),
    );
    const edges = Array.from({ length: width }, (_, i) => [
      { from: `c0n${i}`, to: `c1n${i}` },
      { from: `c1n${i}`, to: `c2n${i}` },
    ]).flat();
    // Tie the chains into one component so ordering is needed at all.
    edges.push(...Array.from({ length: width - 1 }, (_, i) => ({ from: `c0n${i}`, to: `c1n${i + 1}` })));
    const order = orderWithinColumns(nodes, edges);
    for (let i = 0; i < width; i++) expect(order.get(`c1n${i}`)).toBe(order.get(`c0n${i}`));
  });

  test("a caller may lower the limit: a lineage neighbourhood of a few hundred nodes is ordered by the sweeps", () => {
    // The same crossing pair as above, in a component small enough for dagre: with dagreWorkLimit 0
    // the sweeps order it (they see the same crossing and remove it), and never call dagre.
    const nodes = [
      { key: "a", column: 0 },
      { key: "b", column: 0 },
      { key: "x", column: 1 },
      { key: "y", column: 1 },
    ];
    const edges = [
      { from: "a", to: "y" },
      { from: "b", to: "x" },
    ];
    const order = orderWithinColumns(nodes, edges, { dagreWorkLimit: 0 });
    expect(order.get("x")! < order.get("y")!).toBe(order.get("b")! < order.get("a")!);
  });
});

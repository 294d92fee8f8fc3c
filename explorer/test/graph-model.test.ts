import { addPage, collapse, type GraphModel, isExpanded, mergeGraph, modelOf, reachable } from "../src/graph/graph-model";
import { placeNewNodes } from "../src/graph/place-new-nodes";
import type { Edge as FlowEdge, Node as FlowNode } from "@xyflow/react";
import { type BoxData, FlowCache, flowEdges, flowNodes } from "../src/graph/flow-elements";

/** The neighbourhood on screen as expansions grow it and collapses shrink it. */
type Node = Parameters<typeof modelOf>[0]["nodes"][number];
type Edge = Parameters<typeof modelOf>[0]["edges"][number];

const node = (id: string, depth: number, hidden: { up?: number; down?: number } = {}, kind: Node["kind"] = id.startsWith("run_") ? "RUN" : id.startsWith("col:") ? "COLUMN" : "ARTIFACT"): Node => ({
  id,
  kind,
  label: id,
  depth,
  upstreamCount: hidden.up ?? 0,
  downstreamCount: hidden.down ?? 0,
  hiddenUpstream: hidden.up ?? 0,
  hiddenDownstream: hidden.down ?? 0,
  x: null,
  y: null,
  width: null,
  height: null,
  artifact: null,
  execution: null,
  column: null,
});
const edge = (source: string, target: string, kind: Edge["kind"] = source.startsWith("run_") ? "GENERATED" : "USED"): Edge => ({
  id: `${source}>${target}`,
  kind,
  source,
  target,
  runId: null,
  role: null,
  groupId: null,
  derivationKind: null,
  subtype: null,
  masking: null,
  backward: false,
});
const page = (anchor: Node, nodes: Node[], edges: Edge[], hasNextPage = false) => ({ node: anchor, nodes, edges, pageInfo: { hasNextPage, endCursor: hasNextPage ? "c1" : null } });

function start(): GraphModel {
  return placeNewNodes(
    modelOf({ roots: ["art_a"], truncated: false, nodes: [node("art_a", 0, { down: 1 }), node("run_1", 1, { down: 0 }), node("art_b", 1, { down: 3 })], edges: [edge("art_a", "run_1"), edge("run_1", "art_b")] }),
    new Map(),
  );
}

test("expanding a node's +3 adds its neighbours one lane beyond it, refreshes its counts, and records the expansion", () => {
  const before = start();
  const b = before.nodes.get("art_b")!;
  const after = placeNewNodes(
    addPage(before, "DOWNSTREAM", page({ ...b, hiddenDownstream: 0 }, ["run_2", "run_3", "run_4"].map((id) => node(id, 1)), ["run_2", "run_3", "run_4"].map((id) => edge("art_b", id)))),
    new Map(),
  );
  expect([...after.nodes.keys()].sort()).toEqual(["art_a", "art_b", "run_1", "run_2", "run_3", "run_4"]);
  expect(["run_2", "run_3", "run_4"].map((id) => after.nodes.get(id)!.lane)).toEqual([3, 3, 3]);
  expect(after.nodes.get("art_b")!.hiddenDownstream).toBe(0);
  expect(isExpanded(after, "art_b", "DOWNSTREAM")).toBe(true);
  // Boxes of one lane never overlap, and all sit right of the node they hang from.
  const ys = ["run_2", "run_3", "run_4"].map((id) => after.nodes.get(id)!.position!.y).sort((p, q) => p - q);
  expect(ys[1] - ys[0]).toBeGreaterThanOrEqual(40);
  expect(after.nodes.get("run_2")!.position!.x).toBeGreaterThan(after.nodes.get("art_b")!.position!.x);
});

test("expanding one side keeps the other side's +N as the graph on screen has it (the page counts that side all hidden)", () => {
  const before = start();
  const b = before.nodes.get("art_b")!;
  // The page's own count of art_b: its producer run_1 is not on the page, so upstream it says +1.
  const after = addPage(before, "DOWNSTREAM", page({ ...b, hiddenDownstream: 0, upstreamCount: 1, hiddenUpstream: 1 }, [node("run_2", 1)], [edge("art_b", "run_2")]));
  expect([after.nodes.get("art_b")!.hiddenUpstream, after.nodes.get("art_b")!.hiddenDownstream]).toEqual([b.hiddenUpstream, 0]);
});

test("collapsing takes back what the expansion added (and what was expanded from it), and the +N returns", () => {
  let model = start();
  const b = model.nodes.get("art_b")!;
  model = addPage(model, "DOWNSTREAM", page({ ...b, hiddenDownstream: 0 }, [node("run_2", 1)], [edge("art_b", "run_2")]));
  model = addPage(model, "DOWNSTREAM", page({ ...model.nodes.get("run_2")!, hiddenDownstream: 0 }, [node("art_c", 1)], [edge("run_2", "art_c")]));
  expect(model.nodes.has("art_c")).toBe(true);
  const collapsed = collapse(model, "art_b", "DOWNSTREAM");
  expect([...collapsed.nodes.keys()].sort()).toEqual(["art_a", "art_b", "run_1"]);
  expect([...collapsed.edges.keys()].sort()).toEqual(["art_a>run_1", "run_1>art_b"]);
  expect(collapsed.nodes.get("art_b")!.hiddenDownstream).toBe(3);
  expect(collapsed.expansions).toEqual([]);
});

test("a second page of the same expansion keeps one expansion with every added node", () => {
  let model = start();
  const b = model.nodes.get("art_b")!;
  model = addPage(model, "DOWNSTREAM", page({ ...b, hiddenDownstream: 2 }, [node("run_2", 1)], [edge("art_b", "run_2")], true));
  expect(model.expansions[0].hasNextPage).toBe(true);
  model = addPage(model, "DOWNSTREAM", page({ ...b, hiddenDownstream: 0 }, [node("run_3", 1), node("run_4", 1)], [edge("art_b", "run_3"), edge("art_b", "run_4")]));
  expect(model.expansions).toHaveLength(1);
  expect(model.expansions[0].added).toEqual(["run_2", "run_3", "run_4"]);
  expect(collapse(model, "art_b", "DOWNSTREAM").nodes.get("art_b")!.hiddenDownstream).toBe(3);
});

test("a root never goes when an expansion that also reached it collapses", () => {
  let model = start();
  model = addPage(model, "UPSTREAM", page(model.nodes.get("run_1")!, [node("art_a", -1)], [edge("art_a", "run_1")]));
  expect(collapse(model, "run_1", "UPSTREAM").nodes.has("art_a")).toBe(true);
});

test("a column's lineage lights its upstream and downstream columns through column edges only", () => {
  const model = mergeGraph(
    start(),
    {
      nodes: ["col:x:a", "col:y:a", "col:z:a", "col:w:b"].map((id) => node(id, 0)),
      edges: [edge("col:x:a", "col:y:a", "COLUMN_DIRECT"), edge("col:y:a", "col:z:a", "COLUMN_INDIRECT"), edge("art_a", "run_1")],
    },
    () => 0,
  );
  expect([...reachable(model, "col:y:a", new Set(["COLUMN_DIRECT", "COLUMN_INDIRECT"]))].sort()).toEqual(["col:x:a", "col:y:a", "col:z:a"]);
});

test("drawn again after an expansion, the boxes and edges that did not change keep their objects (React Flow re-renders only the new)", () => {
  const before = start();
  const nodeCache = new FlowCache<FlowNode<BoxData>>();
  const edgeCache = new FlowCache<FlowEdge>();
  const drawn = flowNodes(before, {}, nodeCache);
  const drawnEdges = flowEdges(before, {}, edgeCache);
  const a = before.nodes.get("art_a")!;
  const after = placeNewNodes(addPage(before, "UPSTREAM", page({ ...a, hiddenUpstream: 0 }, [node("run_0", -1)], [edge("run_0", "art_a")])), new Map());
  const redrawn = new Map(flowNodes(after, {}, nodeCache).map((n) => [n.id, n]));
  const redrawnEdges = new Map(flowEdges(after, {}, edgeCache).map((e) => [e.id, e]));
  // art_a changed (its +N went, it is expanded) and run_0 is new; the rest are the very same objects.
  expect(redrawn.get("run_1")).toBe(drawn.find((n) => n.id === "run_1"));
  expect(redrawn.get("art_b")).toBe(drawn.find((n) => n.id === "art_b"));
  expect(redrawn.get("art_a")).not.toBe(drawn.find((n) => n.id === "art_a"));
  expect(redrawn.get("art_a")!.data.expandedUp).toBe(true);
  expect(redrawn.has("run_0")).toBe(true);
  expect(redrawnEdges.get("art_a>run_1")).toBe(drawnEdges.find((e) => e.id === "art_a>run_1"));
  // A highlight changes only the boxes it touches.
  const lit = new Map(flowNodes(after, { selected: "art_b" }, nodeCache).map((n) => [n.id, n]));
  expect(lit.get("art_b")).not.toBe(redrawn.get("art_b"));
  expect(lit.get("run_1")).toBe(redrawn.get("run_1"));
});

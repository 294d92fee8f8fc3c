import type * as Dagre from "@dagrejs/dagre" with { "resolution-mode": "import" };

// See column-order.ts: the types come from the ES module, the code from require.
const dagre = require("@dagrejs/dagre") as typeof Dagre;

/**
 * Coordinates for a graph whose columns and order within columns are already decided (the column
 * rules, column-order.ts): boxes left to right, one column after another, and a route per edge, so a
 * client without a layout library draws it as it is. Units are CSS pixels; (0, 0) is the top left.
 *
 * dagre places them (its Brandes–Köpf coordinate assignment and edge routing), told to keep our
 * columns (each node's rank is 2·column, its ranker does nothing) and our order (a customOrder that
 * hands dagre's ordering phase our order for the nodes, and for the dummy nodes dagre puts along an
 * edge that spans columns the order its ends' positions interpolate). An invisible anchor on every
 * rank keeps empty columns (dagre would close them up). Edges are given to dagre left to right: a
 * backward one is routed as its reverse and its points turned round; one within a column is routed
 * here, as a bow out to the right.
 *
 * Measured against elkjs (layered) on layered graphs of 200 and 2,000 nodes (docs: "Lineage and
 * graphs"): dagre with our ranks was faster at both sizes, and skipping its crossing-minimisation
 * sweeps (we bring the order) makes it linear enough for the graphs a page draws. Past
 * DAGRE_LAYOUT_LIMIT nodes (dummies included) the boxes are placed on the column grid directly
 * (`dagreLimit`: a caller answering an interactive page sets a lower one).
 */
export interface BoxInput {
  key: string;
  column: number;
  order: number;
  width: number;
  height: number;
}

export interface RouteInput {
  key: string;
  from: string;
  to: string;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface BoxLayout {
  boxes: Map<string, Box>;
  routes: Map<string, Point[]>;
  width: number;
  height: number;
}

export const LAYOUT_SPACING = { node: 24, column: 64, margin: 16, bow: 24 };
/** Nodes (with the dummy nodes of long edges) above which the grid placement is used instead of dagre. */
export const DAGRE_LAYOUT_LIMIT = 3_000;

const ANCHOR = "\u0000anchor:";

export function layOutBoxes(nodes: readonly BoxInput[], edges: readonly RouteInput[], options: { dagreLimit?: number } = {}): BoxLayout {
  const byKey = new Map(nodes.map((node) => [node.key, node]));
  const known = edges.filter((edge) => byKey.has(edge.from) && byKey.has(edge.to));
  let work = nodes.length;
  for (const edge of known) work += Math.max(0, 2 * Math.abs(byKey.get(edge.to)!.column - byKey.get(edge.from)!.column) - 1);
  const layout = work <= (options.dagreLimit ?? DAGRE_LAYOUT_LIMIT) ? dagreLayout(nodes, known, byKey) : gridLayout(nodes, known, byKey);
  for (const edge of known) {
    const from = byKey.get(edge.from)!;
    const to = byKey.get(edge.to)!;
    if (from.column === to.column) layout.routes.set(edge.key, bow(layout.boxes.get(edge.from)!, layout.boxes.get(edge.to)!));
  }
  return layout;
}

function dagreLayout(nodes: readonly BoxInput[], edges: readonly RouteInput[], byKey: Map<string, BoxInput>): BoxLayout {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({
    rankdir: "LR",
    nodesep: LAYOUT_SPACING.node,
    // dagre halves ranksep (room for edge labels); two ranks per column make one gap of `column`.
    ranksep: LAYOUT_SPACING.column,
    marginx: LAYOUT_SPACING.margin,
    marginy: LAYOUT_SPACING.margin,
    ranker: keepGivenRanks as unknown as Dagre.GraphLabel["ranker"],
  });
  const maxColumn = Math.max(0, ...nodes.map((node) => node.column));
  const minColumn = Math.min(0, ...nodes.map((node) => node.column));
  for (let rank = 2 * minColumn; rank <= 2 * maxColumn; rank++) graph.setNode(`${ANCHOR}${rank}`, { width: 0, height: 0, rank } as Dagre.NodeLabel);
  for (const node of nodes) graph.setNode(node.key, { width: node.width, height: node.height, rank: 2 * node.column } as Dagre.NodeLabel);
  const reversed = new Set<string>();
  for (const edge of edges) {
    const from = byKey.get(edge.from)!;
    const to = byKey.get(edge.to)!;
    if (from.column === to.column) continue;
    const [left, right] = from.column < to.column ? [edge.from, edge.to] : [edge.to, edge.from];
    if (from.column > to.column) reversed.add(edge.key);
    graph.setEdge(left, right, { weight: 1, minlen: 1 }, edge.key);
  }
  const options: Dagre.LayoutOptions = { customOrder: (layoutGraph: unknown) => imposeOrder(layoutGraph as unknown as Dagre.graphlib.Graph, byKey) };
  dagre.layout(graph, options);

  const boxes = new Map<string, Box>();
  for (const node of nodes) {
    const label = graph.node(node.key) as Dagre.NodeLabel & { x: number; y: number };
    boxes.set(node.key, { x: round(label.x - node.width / 2), y: round(label.y - node.height / 2), width: node.width, height: node.height });
  }
  const routes = new Map<string, Point[]>();
  for (const edge of graph.edges()) {
    if (!edge.name) continue;
    const points = ((graph.edge(edge) as { points?: Point[] }).points ?? []).map((p) => ({ x: round(p.x), y: round(p.y) }));
    routes.set(edge.name, reversed.has(edge.name) ? points.reverse() : points);
  }
  const label = graph.graph() as { width?: number; height?: number };
  return { boxes, routes, width: round(label.width ?? 0), height: round(label.height ?? 0) };
}

/**
 * dagre's ordering phase, replaced: real nodes keep their order; a dummy node on an edge from a to b
 * sits where the line from a to b crosses its rank (positions normalised per column); anchors last.
 */
function imposeOrder(graph: Dagre.graphlib.Graph, byKey: Map<string, BoxInput>): void {
  const perColumn = new Map<number, number>();
  for (const node of byKey.values()) perColumn.set(node.column, Math.max(perColumn.get(node.column) ?? 0, node.order + 1));
  const position = (key: string) => {
    const node = byKey.get(key)!;
    return (node.order + 0.5) / (perColumn.get(node.column) ?? 1);
  };
  const ranks = new Map<number, { v: string; at: number; tie: number }[]>();
  for (const v of graph.nodes()) {
    const label = graph.node(v) as Dagre.NodeLabel & { rank: number; dummy?: string; edgeObj?: { v: string; w: string } };
    let at: number;
    let tie = 0;
    if (byKey.has(v)) {
      at = position(v);
      tie = byKey.get(v)!.order;
    } else if (label.edgeObj && byKey.has(label.edgeObj.v) && byKey.has(label.edgeObj.w)) {
      const from = graph.node(label.edgeObj.v) as { rank: number };
      const to = graph.node(label.edgeObj.w) as { rank: number };
      const t = to.rank === from.rank ? 0 : (label.rank - from.rank) / (to.rank - from.rank);
      at = position(label.edgeObj.v) + (position(label.edgeObj.w) - position(label.edgeObj.v)) * t;
    } else {
      at = Number.POSITIVE_INFINITY;
    }
    const inRank = ranks.get(label.rank) ?? [];
    ranks.set(label.rank, inRank);
    inRank.push({ v, at, tie });
  }
  for (const inRank of ranks.values()) {
    inRank.sort((a, b) => a.at - b.at || a.tie - b.tie || (a.v < b.v ? -1 : a.v > b.v ? 1 : 0));
    inRank.forEach(({ v }, order) => ((graph.node(v) as { order: number }).order = order));
  }
}

/** The grid placement: columns side by side (each as wide as its widest box), boxes stacked in order and centred. */
function gridLayout(nodes: readonly BoxInput[], edges: readonly RouteInput[], byKey: Map<string, BoxInput>): BoxLayout {
  const columns = [...new Set(nodes.map((node) => node.column))].sort((a, b) => a - b);
  const widthOf = new Map<number, number>();
  const heightOf = new Map<number, number>();
  for (const node of nodes) {
    widthOf.set(node.column, Math.max(widthOf.get(node.column) ?? 0, node.width));
    heightOf.set(node.column, (heightOf.get(node.column) ?? -LAYOUT_SPACING.node) + node.height + LAYOUT_SPACING.node);
  }
  const height = Math.max(0, ...heightOf.values());
  const xOf = new Map<number, number>();
  let x = LAYOUT_SPACING.margin;
  for (let column = columns[0] ?? 0; column <= (columns.at(-1) ?? 0); column++) {
    xOf.set(column, x);
    x += (widthOf.get(column) ?? 0) + LAYOUT_SPACING.column;
  }
  const boxes = new Map<string, Box>();
  const sorted = [...nodes].sort((a, b) => a.column - b.column || a.order - b.order);
  const nextY = new Map<number, number>();
  for (const node of sorted) {
    const y = nextY.get(node.column) ?? LAYOUT_SPACING.margin + (height - (heightOf.get(node.column) ?? 0)) / 2;
    const left = xOf.get(node.column)! + ((widthOf.get(node.column) ?? 0) - node.width) / 2;
    boxes.set(node.key, { x: round(left), y: round(y), width: node.width, height: node.height });
    nextY.set(node.column, y + node.height + LAYOUT_SPACING.node);
  }
  const routes = new Map<string, Point[]>();
  for (const edge of edges) {
    const from = boxes.get(edge.from)!;
    const to = boxes.get(edge.to)!;
    const forward = byKey.get(edge.from)!.column < byKey.get(edge.to)!.column;
    routes.set(edge.key, [
      { x: round(forward ? from.x + from.width : from.x), y: round(from.y + from.height / 2) },
      { x: round(forward ? to.x : to.x + to.width), y: round(to.y + to.height / 2) },
    ]);
  }
  return { boxes, routes, width: round(x - LAYOUT_SPACING.column + LAYOUT_SPACING.margin), height: round(height + 2 * LAYOUT_SPACING.margin) };
}

/** An edge within one column: out of the source's right side, round, into the target's right side. */
function bow(from: Box, to: Box): Point[] {
  const x = Math.max(from.x + from.width, to.x + to.width) + LAYOUT_SPACING.bow;
  return [
    { x: round(from.x + from.width), y: round(from.y + from.height / 2) },
    { x: round(x), y: round((from.y + from.height / 2 + to.y + to.height / 2) / 2) },
    { x: round(to.x + to.width), y: round(to.y + to.height / 2) },
  ];
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The ranker handed to dagre: ranks were set on the nodes already. */
function keepGivenRanks(): void {}

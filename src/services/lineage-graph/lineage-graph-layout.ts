import { type Box, isBackwardEdge, layOutBoxes, orderWithinColumns } from "../graph-views";
import type { LineageGraphEdgeRecord, LineageGraphNodeRecord, LineageGraphRecord } from "./graph-records";
import { appendTo } from "../grouping";

/**
 * A lineage graph drawn left to right with the column rules of the pipeline graphs (docs: "Lineage
 * and graphs"): data columns and execution columns alternate, every USED and GENERATED edge one
 * column rightwards, every derivation two. An artifact at signed depth d sits in column 2d; a run of
 * the hop to depth d between its two data columns (2d + 1 upstream, 2d − 1 downstream). A graph
 * grown from runs alone puts each root run in column 0 and its inputs and outputs right beside it.
 * An edge that does not lead one step rightwards (a cycle, a run reached from two sides) is backward
 * and drawn dashed. Columns of a dataset version are drawn as rows of its box, with a port each; a
 * graph grown from columns draws them as boxes of their own.
 */
export const NODE_HEIGHT = 40;
export const COLUMN_ROW_HEIGHT = 22;
const MIN_WIDTH = 120;
const MAX_WIDTH = 280;
const CHARACTER_WIDTH = 7.2;
/**
 * Components whose layout work (nodes plus the dummies of edges spanning columns) exceeds this are
 * ordered by barycenter sweeps, not dagre's ordering phase. A neighbourhood a page asks for (200
 * nodes over 20 hops, ~1,000 work) took dagre 0.5–4.7 s to order on 2 loaded cores — 88% of the
 * request — against 15 ms for the sweeps, with fewer crossings between adjacent columns on that
 * graph (409 against 548). Small graphs keep dagre's order.
 */
export const LINEAGE_DAGRE_ORDER_WORK = 200;
/**
 * Likewise for the coordinates: past this much work (nodes plus dummies) the boxes are placed on the
 * column grid in that order, not by dagre's Brandes–Köpf placement, which took 0.2–0.5 s of the same
 * request (its graph of ~1,300 nodes with the dummies) on 2 loaded cores. About 100 nodes keep dagre's.
 */
export const LINEAGE_DAGRE_LAYOUT_WORK = 600;

export function layOutLineageGraph(graph: LineageGraphRecord, options: { coordinates: boolean } = { coordinates: true }): LineageGraphRecord {
  const { byId, inBox, columns } = columnsOf(graph);
  const edges = graph.edges.map((edge) => ({ ...edge, backward: isBackward(edge, columns) }));
  if (!options.coordinates) return { ...graph, edges };

  const shownColumns = new Map<string, LineageGraphNodeRecord[]>();
  for (const node of graph.nodes) if (inBox(node)) appendTo(shownColumns, node.artifactId!, node);
  const boxed = graph.nodes.filter((node) => !inBox(node));
  const minColumn = Math.min(0, ...boxed.map((node) => columns.get(node.id)!));
  const drawn = boxed.map((node) => ({ key: node.id, column: columns.get(node.id)! - minColumn }));
  // An edge between two columns in boxes is routed between their dataset boxes.
  const boxOf = (id: string) => {
    const node = byId.get(id)!;
    return inBox(node) ? node.artifactId! : id;
  };
  const routed = edges.map((edge) => ({ key: edge.id, from: boxOf(edge.source), to: boxOf(edge.target) })).filter((edge) => edge.from !== edge.to);
  const order = orderWithinColumns(drawn, routed, { dagreWorkLimit: LINEAGE_DAGRE_ORDER_WORK });
  const layout = layOutBoxes(
    boxed.map((node) => ({
      key: node.id,
      column: columns.get(node.id)! - minColumn,
      order: order.get(node.id) ?? 0,
      width: widthOf(node),
      height: NODE_HEIGHT + COLUMN_ROW_HEIGHT * (shownColumns.get(node.id)?.length ?? 0),
    })),
    routed,
    { dagreLimit: LINEAGE_DAGRE_LAYOUT_WORK },
  );

  const rows = new Map<string, Box>();
  const nodes = graph.nodes.map((node) => {
    if (inBox(node)) return node;
    const box = layout.boxes.get(node.id)!;
    const inside = shownColumns.get(node.id);
    if (!inside) return { ...node, box };
    const ports = inside.map((column, i) => {
      const row = { x: box.x, y: box.y + NODE_HEIGHT + i * COLUMN_ROW_HEIGHT, width: box.width, height: COLUMN_ROW_HEIGHT };
      rows.set(column.id, row);
      return { columnId: column.id, field: column.field!, x: row.x, y: row.y + row.height / 2 };
    });
    return { ...node, box, ports };
  });
  const placed = nodes.map((node) => (inBox(node) ? { ...node, box: rows.get(node.id) ?? null } : node));
  const middle = (box: Box, side: "left" | "right") => ({ x: side === "left" ? box.x : box.x + box.width, y: box.y + box.height / 2 });
  const withRoutes = edges.map((edge) => {
    const fromRow = rows.get(edge.source);
    const toRow = rows.get(edge.target);
    if (!fromRow && !toRow) return { ...edge, points: layout.routes.get(edge.id) ?? null };
    // Port to port: out of the source row's right side, into the target row's (or box's) left side.
    const from = fromRow ?? layout.boxes.get(edge.source);
    const to = toRow ?? layout.boxes.get(edge.target);
    return { ...edge, points: from && to ? [middle(from, "right"), middle(to, "left")] : null };
  });
  return { ...graph, nodes: placed, edges: withRoutes, width: layout.width, height: layout.height };
}

/**
 * The same backward flags as layOutLineageGraph without coordinates, set on the graph's own edges:
 * for a graph just built, whose edges nothing else holds (a copy of each cost as much as the rest of
 * a 600-edge graph's assembly).
 */
export function markBackwardEdges(graph: LineageGraphRecord): LineageGraphRecord {
  const { columns } = columnsOf(graph);
  for (const edge of graph.edges) edge.backward = isBackward(edge, columns);
  return graph;
}

/** Each node's column (see above). */
function columnsOf(graph: LineageGraphRecord) {
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const rootSet = new Set(graph.roots);
  const runRootsOnly = graph.roots.length > 0 && graph.roots.every((id) => byId.get(id)?.kind === "RUN");
  // Columns of a dataset version drawn inside its box (the graph has the version as a node).
  const inBox = (node: LineageGraphNodeRecord) => node.kind === "COLUMN" && node.artifactId !== null && byId.get(node.artifactId)?.kind === "ARTIFACT";
  const columnOf = (node: LineageGraphNodeRecord): number => {
    if (inBox(node)) return columnOf(byId.get(node.artifactId!)!);
    const d = node.depth;
    let column = node.kind === "RUN" ? (d < 0 ? 2 * d + 1 : d > 0 ? 2 * d - 1 : 0) : 2 * d;
    if (runRootsOnly && !rootSet.has(node.id)) column -= Math.sign(d);
    return column;
  };
  const columns = new Map(graph.nodes.map((node) => [node.id, columnOf(node)]));
  return { byId, inBox, columns };
}

function isBackward(edge: LineageGraphEdgeRecord, columns: Map<string, number>): boolean {
  const hop = edge.kind === "USED" || edge.kind === "GENERATED" ? "USED" : "WAS_DERIVED_FROM";
  return isBackwardEdge(hop, columns.get(edge.source) ?? 0, columns.get(edge.target) ?? 0);
}

/** A box wide enough for its label (within bounds; a client may draw its own). */
export function widthOf(node: { label: string }): number {
  return Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, 24 + CHARACTER_WIDTH * node.label.length)));
}

/**
 * The neighbourhood on screen: what the server answered (lineageGraph), grown by expansions (expand pages)
 * and shrunk by collapses. Pure functions over plain data; the view keeps one GraphModel in state.
 */
import type { GraphEdgeFieldsFragment as ApiEdge, GraphNodeFieldsFragment as ApiNode } from "../api/generated";

export type Side = "UPSTREAM" | "DOWNSTREAM";

export interface GraphNode extends ApiNode {
  /** Lane (layout column), left to right: negative upstream of the root. */
  lane: number;
  /** Server layout, or where the client placed it. */
  position?: { x: number; y: number };
}

export interface Expansion {
  nodeId: string;
  side: Side;
  /** Nodes this expansion added (collapsing removes those no other part of the graph holds). */
  added: string[];
  /** The node as it was before (its hidden counts come back on collapse). */
  before: GraphNode;
  endCursor: string | null;
  hasNextPage: boolean;
}

export interface GraphModel {
  roots: string[];
  nodes: Map<string, GraphNode>;
  edges: Map<string, ApiEdge>;
  expansions: Expansion[];
  truncated: boolean;
}

/** Whether a node is drawn as a box of its own: anything but a column drawn inside its dataset's box. */
export function isBox(node: GraphNode, nodes: ReadonlyMap<string, GraphNode>): boolean {
  return node.kind !== "COLUMN" || !node.artifact || !nodes.has(node.artifact.id);
}

export function emptyModel(): GraphModel {
  return { roots: [], nodes: new Map(), edges: new Map(), expansions: [], truncated: false };
}

export function modelOf(graph: { roots: string[]; nodes: ApiNode[]; edges: ApiEdge[]; truncated: boolean }): GraphModel {
  const lanes = serverLanes(graph.nodes, graph.roots) ?? new Map(graph.nodes.map((n) => [n.id, laneOfDepth(n)]));
  const nodes = new Map<string, GraphNode>();
  for (const node of graph.nodes) nodes.set(node.id, withPosition(node, lanes.get(node.id) ?? laneOfDepth(node)));
  const edges = new Map(graph.edges.map((edge) => [edge.id, edge]));
  return { roots: graph.roots, nodes, edges, expansions: [], truncated: graph.truncated };
}

/**
 * A node's lane from its depth, which counts artifact hops: artifacts at 2·depth, a run between its
 * artifact and the root (the producing run upstream at -1, a consuming run downstream at +1).
 */
export function laneOfDepth(node: Pick<ApiNode, "kind" | "depth">): number {
  if (node.kind !== "RUN" || node.depth === 0) return 2 * node.depth;
  return node.depth < 0 ? 2 * node.depth + 1 : 2 * node.depth - 1;
}

/** With the server's layout: lanes are its columns (boxes centred on one x), numbered from the roots' column. */
function serverLanes(nodes: readonly ApiNode[], roots: readonly string[]): Map<string, number> | undefined {
  const boxes = nodes.filter((n) => n.kind !== "COLUMN");
  if (!boxes.length || !boxes.every((n) => n.x != null && n.width != null)) return undefined;
  const centre = (n: ApiNode) => Math.round(n.x! + n.width! / 2);
  const columns = [...new Set(boxes.map(centre))].sort((a, b) => a - b);
  const root = boxes.find((n) => roots.includes(n.id)) ?? boxes[0];
  const rootColumn = columns.indexOf(centre(root));
  const lanes = new Map(boxes.map((n) => [n.id, columns.indexOf(centre(n)) - rootColumn]));
  for (const n of nodes) if (n.kind === "COLUMN" && n.artifact && lanes.has(n.artifact.id)) lanes.set(n.id, lanes.get(n.artifact.id)!);
  return lanes;
}

function withPosition(node: ApiNode, lane: number): GraphNode {
  const positioned = node.x != null && node.y != null;
  return { ...node, lane, position: positioned ? { x: node.x!, y: node.y! } : undefined };
}

/** Adds one page of an expansion: the neighbours (placed one column beyond the node) and their edges. */
export function addPage(
  model: GraphModel,
  side: Side,
  page: { node: ApiNode; nodes: ApiNode[]; edges: ApiEdge[]; pageInfo: { hasNextPage: boolean; endCursor?: string | null } },
): GraphModel {
  const anchor = model.nodes.get(page.node.id);
  if (!anchor) return model;
  const nodes = new Map(model.nodes);
  const edges = new Map(model.edges);
  const added: string[] = [];
  const step = side === "UPSTREAM" ? -1 : 1;
  // Neighbours one hop from the node sit one column beyond it; a co-input group's other members, two.
  const hop = new Set(page.edges.flatMap((e) => (e.source === anchor.id ? [e.target] : e.target === anchor.id ? [e.source] : [])));
  for (const node of page.nodes) {
    if (nodes.has(node.id)) continue;
    const lane = anchor.lane + step * (hop.has(node.id) ? 1 : 2);
    nodes.set(node.id, withPosition({ ...node, x: null, y: null }, lane));
    added.push(node.id);
  }
  for (const edge of page.edges) edges.set(edge.id, edge);
  // The page counts the node's neighbours on the side it pages; the other side's it counts all hidden
  // (none of them is on the page), so that side keeps what the graph on screen says.
  const pagedSide = side === "UPSTREAM" ? { upstreamCount: page.node.upstreamCount, hiddenUpstream: page.node.hiddenUpstream } : { downstreamCount: page.node.downstreamCount, hiddenDownstream: page.node.hiddenDownstream };
  nodes.set(anchor.id, { ...anchor, ...pagedSide });
  const previous = model.expansions.find((e) => e.nodeId === anchor.id && e.side === side);
  const expansion: Expansion = {
    nodeId: anchor.id,
    side,
    added: [...(previous?.added ?? []), ...added],
    before: previous?.before ?? anchor,
    endCursor: page.pageInfo.endCursor ?? null,
    hasNextPage: page.pageInfo.hasNextPage,
  };
  const expansions = [...model.expansions.filter((e) => e !== previous), expansion];
  return { ...model, nodes, edges, expansions };
}

/** Undoes an expansion: its nodes go (unless a root or held by another expansion), with their edges. */
export function collapse(model: GraphModel, nodeId: string, side: Side): GraphModel {
  const expansion = model.expansions.find((e) => e.nodeId === nodeId && e.side === side);
  if (!expansion) return model;
  // Collapsing also collapses what was expanded from the nodes that go (unless another expansion holds them).
  let result: GraphModel = { ...model, expansions: model.expansions.filter((e) => e !== expansion) };
  const heldElsewhere = (id: string) => result.expansions.some((e) => !expansion.added.includes(e.nodeId) && e.added.includes(id));
  for (const id of expansion.added) {
    if (heldElsewhere(id)) continue;
    for (const inner of result.expansions.filter((e) => e.nodeId === id)) result = collapse(result, inner.nodeId, inner.side);
  }
  const held = new Set([...model.roots, ...result.expansions.flatMap((e) => [e.nodeId, ...e.added])]);
  const nodes = new Map(result.nodes);
  const gone = new Set(expansion.added.filter((id) => !held.has(id)));
  for (const id of gone) nodes.delete(id);
  const node = nodes.get(nodeId);
  if (node) {
    const hidden = side === "UPSTREAM" ? { hiddenUpstream: expansion.before.hiddenUpstream } : { hiddenDownstream: expansion.before.hiddenDownstream };
    nodes.set(nodeId, { ...node, ...hidden });
  }
  const edges = new Map([...result.edges].filter(([, e]) => nodes.has(e.source) && nodes.has(e.target)));
  return { ...result, nodes, edges };
}

export function isExpanded(model: GraphModel, nodeId: string, side: Side): boolean {
  return model.expansions.some((e) => e.nodeId === nodeId && e.side === side);
}

/** Adds nodes fetched for another reason (a path's nodes, a live run's), keeping what is there. */
export function mergeGraph(model: GraphModel, graph: { nodes: ApiNode[]; edges: ApiEdge[] }, laneOf: (node: ApiNode) => number): GraphModel {
  const nodes = new Map(model.nodes);
  for (const node of graph.nodes) {
    const shown = nodes.get(node.id);
    nodes.set(node.id, shown ? { ...shown, ...node, lane: shown.lane, position: shown.position } : withPosition({ ...node, x: null, y: null }, laneOf(node)));
  }
  const edges = new Map(model.edges);
  for (const edge of graph.edges) if (nodes.has(edge.source) && nodes.has(edge.target)) edges.set(edge.id, edge);
  return { ...model, nodes, edges };
}

/** Neighbours through the edges on screen, one way. */
export function neighbours(model: GraphModel, nodeId: string, side: Side): string[] {
  const out: string[] = [];
  for (const edge of model.edges.values()) {
    if (side === "DOWNSTREAM" && edge.source === nodeId) out.push(edge.target);
    if (side === "UPSTREAM" && edge.target === nodeId) out.push(edge.source);
  }
  return out;
}

/** Everything reachable from a node along the edges on screen, both ways (a column's lineage lit up). */
export function reachable(model: GraphModel, nodeId: string, kinds?: ReadonlySet<string>): Set<string> {
  const lit = new Set([nodeId]);
  for (const side of ["UPSTREAM", "DOWNSTREAM"] as const) {
    const queue = [nodeId];
    const seen = new Set([nodeId]);
    const out = new Map<string, string[]>();
    for (const edge of model.edges.values()) {
      if (kinds && !kinds.has(edge.kind)) continue;
      const [from, to] = side === "DOWNSTREAM" ? [edge.source, edge.target] : [edge.target, edge.source];
      (out.get(from) ?? out.set(from, []).get(from)!).push(to);
    }
    while (queue.length) {
      const next = queue.pop()!;
      for (const to of out.get(next) ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        lit.add(to);
        queue.push(to);
      }
    }
  }
  return lit;
}

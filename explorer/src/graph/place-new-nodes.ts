/**
 * Places nodes that have no position yet (an expansion's page, a live run, a path's missing nodes) in their
 * column next to the neighbours they were reached from, then pushes overlapping boxes of each touched column
 * apart. Cheap and stable: what was on screen stays where the user saw it, apart from boxes pushed down.
 */
import { type GraphModel, type GraphNode, isBox } from "./graph-model";
import { alignLanes } from "./align-lanes";
import { ROW_GAP, sizeOf } from "./node-size";

export function placeNewNodes(model: GraphModel, columnCounts: Map<string, number>): GraphModel {
  const unplaced = [...model.nodes.values()].filter((n) => !n.position && isBox(n, model.nodes));
  if (!unplaced.length) return model;
  const nodes = new Map(model.nodes);
  const neighboursOf = new Map<string, string[]>();
  for (const edge of model.edges.values()) {
    (neighboursOf.get(edge.source) ?? neighboursOf.set(edge.source, []).get(edge.source)!).push(edge.target);
    (neighboursOf.get(edge.target) ?? neighboursOf.set(edge.target, []).get(edge.target)!).push(edge.source);
  }
  // Group the new nodes by column and by the placed neighbour they hang from, in arrival order.
  const byAnchor = new Map<string, GraphNode[]>();
  for (const node of unplaced) {
    const anchor = (neighboursOf.get(node.id) ?? []).map((id) => nodes.get(id)).find((n) => n?.position);
    const key = `${node.lane}|${anchor?.id ?? ""}`;
    (byAnchor.get(key) ?? byAnchor.set(key, []).get(key)!).push(node);
  }
  const touched = new Set<number>();
  for (const [key, group] of byAnchor) {
    const anchorId = key.slice(key.indexOf("|") + 1);
    const anchor = anchorId ? nodes.get(anchorId) : undefined;
    const column = group[0].lane;
    const heights = group.map((n) => sizeOf(n, columnCounts.get(n.id)).height);
    const total = heights.reduce((a, b) => a + b + ROW_GAP, -ROW_GAP);
    const centre = anchor?.position ? anchor.position.y + sizeOf(anchor, columnCounts.get(anchor.id)).height / 2 : lowestIn(nodes, column, columnCounts) + total / 2;
    let y = centre - total / 2;
    group.forEach((node, i) => {
      nodes.set(node.id, { ...node, position: { x: 0, y } });
      y += heights[i] + ROW_GAP;
    });
    touched.add(column);
  }
  for (const column of touched) separate(nodes, column, columnCounts);
  return alignLanes({ ...model, nodes }, columnCounts);
}

function lowestIn(nodes: Map<string, GraphNode>, column: number, counts: Map<string, number>): number {
  let lowest = 0;
  for (const n of nodes.values()) if (n.lane === column && n.position) lowest = Math.max(lowest, n.position.y + sizeOf(n, counts.get(n.id)).height + ROW_GAP);
  return lowest;
}

/** Pushes the boxes of one column apart, top to bottom, keeping their order. */
export function separate(nodes: Map<string, GraphNode>, column: number, counts: Map<string, number>): void {
  const inColumn = [...nodes.values()].filter((n) => n.lane === column && n.position && isBox(n, nodes)).sort((a, b) => a.position!.y - b.position!.y);
  let floor = -Infinity;
  for (const node of inColumn) {
    const y = Math.max(node.position!.y, floor);
    if (y !== node.position!.y) nodes.set(node.id, { ...node, position: { x: node.position!.x, y } });
    floor = y + sizeOf(node, counts.get(node.id)).height + ROW_GAP;
  }
}

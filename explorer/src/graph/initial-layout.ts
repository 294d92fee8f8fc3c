/**
 * Positions for a freshly fetched neighbourhood: the server's layout when it sent one (layout: true), else
 * an immediate column placement, refined by ELK in a worker (elk-layout.ts, loaded on first use).
 */
import { columnsByParent } from "./flow-elements";
import { type GraphModel, isBox } from "./graph-model";
import { alignLanes } from "./align-lanes";
import { placeNewNodes, separate } from "./place-new-nodes";
import { ROW_GAP, sizeOf } from "./node-size";

export function columnCounts(model: GraphModel): Map<string, number> {
  return new Map([...columnsByParent(model)].map(([id, list]) => [id, list.length]));
}

/** True when every box came with the server's position. */
export function hasServerLayout(model: GraphModel): boolean {
  const boxes = [...model.nodes.values()].filter((n) => n.kind !== "COLUMN");
  return boxes.length > 0 && boxes.every((n) => n.position);
}

export function placeAll(model: GraphModel): GraphModel {
  if (hasServerLayout(model)) return fromServerLayout(model);
  // Place from the roots outwards, so each column hangs from the one nearer the root.
  const counts = columnCounts(model);
  const byDistance = [...model.nodes.values()].filter((n) => isBox(n, model.nodes)).sort((a, b) => Math.abs(a.lane) - Math.abs(b.lane));
  const nodes = new Map(model.nodes);
  for (const n of byDistance) nodes.set(n.id, { ...n, position: undefined });
  let placed: GraphModel = { ...model, nodes: new Map([...nodes].filter(([, n]) => n.lane === 0 || !isBox(n, model.nodes))) };
  placed = placeNewNodes(placed, counts);
  const distances = [...new Set(byDistance.map((n) => Math.abs(n.lane)))].filter((d) => d > 0);
  for (const distance of distances) {
    const next = new Map(placed.nodes);
    for (const n of byDistance) if (Math.abs(n.lane) === distance) next.set(n.id, nodes.get(n.id)!);
    placed = placeNewNodes({ ...placed, nodes: next }, counts);
  }
  return placed;
}

/**
 * The server's layout drawn with this page's boxes (taller than the server's, to hold a second line):
 * its columns become lanes, each box keeps its vertical centre scaled by how much taller boxes are here,
 * then each lane is pushed apart where boxes would still overlap.
 */
function fromServerLayout(model: GraphModel): GraphModel {
  const counts = columnCounts(model);
  const boxes = [...model.nodes.values()].filter((n) => n.kind !== "COLUMN");
  const scale = Math.max(1, ...boxes.map((n) => (n.height ? (sizeOf(n, counts.get(n.id)).height + ROW_GAP) / (n.height + ROW_GAP) : 1)));
  const nodes = new Map(model.nodes);
  for (const n of boxes) {
    const centre = (n.position!.y + (n.height ?? 0) / 2) * scale;
    nodes.set(n.id, { ...n, position: { x: n.position!.x, y: centre - sizeOf(n, counts.get(n.id)).height / 2 } });
  }
  for (const lane of new Set(boxes.map((n) => n.lane))) separate(nodes, lane, counts);
  return alignLanes({ ...model, nodes }, counts);
}

export async function refineWithElk(model: GraphModel): Promise<Map<string, { x: number; y: number }>> {
  const { elkLayout } = await import("./elk-layout");
  const counts = columnCounts(model);
  const boxes = [...model.nodes.values()].filter((n) => isBox(n, model.nodes));
  const ids = new Set(boxes.map((n) => n.id));
  // A column edge is laid out as an edge between the boxes that hold the columns.
  const boxOf = (id: string) => (ids.has(id) ? id : model.nodes.get(id)?.artifact?.id);
  const edges: { id: string; source: string; target: string }[] = [];
  const seen = new Set<string>();
  for (const edge of model.edges.values()) {
    const source = boxOf(edge.source);
    const target = boxOf(edge.target);
    if (!source || !target || source === target || !ids.has(source) || !ids.has(target) || seen.has(`${source}>${target}`)) continue;
    seen.add(`${source}>${target}`);
    edges.push({ id: edge.id, source, target });
  }
  const positions = await elkLayout({ nodes: boxes.map((n) => ({ id: n.id, column: n.lane, ...sizeOf(n, counts.get(n.id)) })), edges });
  return new Map(Object.entries(positions));
}

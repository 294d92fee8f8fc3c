/**
 * x of every box from its lane: lanes are as wide as their widest box (a lane of runs is narrower than a
 * lane of artifacts) with one gap between lanes, counted outwards from the root's lane. Recomputed after
 * each change; a lane keeps its x as long as the lanes between it and the root keep their widths.
 */
import { type GraphModel, isBox } from "./graph-model";
import { COLUMN_GAP, LABELLED_COLUMN_GAP, sizeOf } from "./node-size";

export function alignLanes(model: GraphModel, columnCounts: Map<string, number>): GraphModel {
  const widths = new Map<number, number>();
  // Lanes holding columns drawn without their dataset's box: their edges' labels need a wider gap.
  const ofColumns = new Set<number>();
  for (const node of model.nodes.values()) {
    if (!isBox(node, model.nodes)) continue;
    widths.set(node.lane, Math.max(widths.get(node.lane) ?? 0, sizeOf(node, columnCounts.get(node.id)).width));
    if (node.kind === "COLUMN") ofColumns.add(node.lane);
  }
  const gap = (a: number, b: number) => (ofColumns.has(a) && ofColumns.has(b) ? LABELLED_COLUMN_GAP : COLUMN_GAP);
  const lanes = [...widths.keys()].sort((a, b) => a - b);
  const x = new Map<number, number>([[0, 0]]);
  for (const lane of lanes.filter((l) => l > 0)) {
    const previous = lanes.filter((l) => l < lane).at(-1) ?? 0;
    x.set(lane, (x.get(previous) ?? 0) + (widths.get(previous) ?? 0) + gap(previous, lane));
  }
  for (const lane of lanes.filter((l) => l < 0).reverse()) {
    const next = lanes.filter((l) => l > lane)[0] ?? 0;
    x.set(lane, (x.get(next) ?? 0) - gap(lane, next) - (widths.get(lane) ?? 0));
  }
  const nodes = new Map(model.nodes);
  for (const [id, node] of nodes) {
    if (!node.position) continue;
    // Runs are centred in a lane of artifacts and the other way round.
    const offset = ((widths.get(node.lane) ?? 0) - sizeOf(node, columnCounts.get(id)).width) / 2;
    const want = (x.get(node.lane) ?? 0) + offset;
    if (node.position.x !== want) nodes.set(id, { ...node, position: { x: want, y: node.position.y } });
  }
  return { ...model, nodes };
}

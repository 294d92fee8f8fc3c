import { layOutBoxes } from "./box-layout";
import type { GraphNode, LayeredGraph } from "./layered-graph";

const NODE_HEIGHT = 40;
const MIN_WIDTH = 120;
const MAX_WIDTH = 280;
const CHARACTER_WIDTH = 7.2;

/**
 * A pipeline graph with coordinates (layout: true): every node a box in its column, at its place in
 * the column's order, every edge a route (box-layout.ts). The columns and order are the graph's own,
 * so the drawing is exactly the hints, laid out.
 */
export function withLayout<G extends LayeredGraph<GraphNode>>(graph: G): G {
  const nodes = graph.nodes.map((node) => ({
    key: node.key,
    column: node.column,
    order: node.order,
    width: Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, 24 + CHARACTER_WIDTH * node.label.length))),
    height: NODE_HEIGHT,
  }));
  const edges = graph.edges.map((edge, i) => ({ key: String(i), from: edge.from, to: edge.to }));
  const layout = layOutBoxes(nodes, edges);
  return {
    ...graph,
    nodes: graph.nodes.map((node) => ({ ...node, box: layout.boxes.get(node.key) ?? null })),
    edges: graph.edges.map((edge, i) => ({ ...edge, points: layout.routes.get(String(i)) ?? null })),
    width: layout.width,
    height: layout.height,
  };
}

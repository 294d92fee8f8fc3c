/**
 * A whole-graph layout by ELK (layered, left to right, each node held to its lane by partitioning),
 * computed in a Web Worker so the page stays responsive; this module and the worker are loaded on first use.
 */
import ELK from "elkjs/lib/elk-api.js";

export interface LayoutRequest {
  nodes: { id: string; width: number; height: number; column: number }[];
  edges: { id: string; source: string; target: string }[];
}

let elk: InstanceType<typeof ELK> | undefined;

function engine(): InstanceType<typeof ELK> {
  elk ??= new ELK({ workerFactory: () => new Worker(new URL("./elk.worker.ts", import.meta.url), { type: "module", name: "provgraph-layout" }) });
  return elk;
}

export async function elkLayout({ nodes, edges }: LayoutRequest): Promise<Record<string, { x: number; y: number }>> {
  const minColumn = Math.min(0, ...nodes.map((n) => n.column));
  const big = nodes.length > 400;
  const graph = await engine().layout({
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.partitioning.activate": "true",
      "elk.layered.spacing.nodeNodeBetweenLayers": "70",
      "elk.spacing.nodeNode": "18",
      "elk.layered.thoroughness": big ? "1" : "7",
      "elk.layered.nodePlacement.strategy": big ? "SIMPLE" : "BRANDES_KOEPF",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
    },
    children: nodes.map((n) => ({ id: n.id, width: n.width, height: n.height, layoutOptions: { "elk.partitioning.partition": String(n.column - minColumn) } })),
    edges: edges.map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  });
  const positions: Record<string, { x: number; y: number }> = {};
  for (const child of graph.children ?? []) positions[child.id] = { x: child.x ?? 0, y: child.y ?? 0 };
  return positions;
}

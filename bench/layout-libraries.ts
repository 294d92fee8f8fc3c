// npx tsx bench/layout-libraries.ts [--reps=3]: the measurement behind the choice of layout library
// (src/services/graph-views/box-layout.ts). Layered graphs shaped like lineage neighbourhoods (columns
// of nodes, each fed by one or two nodes of the column before) of 200 and 2,000 nodes, laid out left to
// right with their columns fixed: by dagre as box-layout.ts runs it (our columns as ranks, our order
// imposed, dagre's coordinates and routes), by dagre ordering for itself, and by elkjs's layered
// algorithm (columns as partitions, and free). Interleaved: each repetition runs every side once.
import type * as Dagre from "@dagrejs/dagre" with { "resolution-mode": "import" };
import { layOutBoxes } from "../src/services/graph-views/box-layout";
import { orderWithinColumns } from "../src/services/graph-views/column-order";
import { median } from "./interleave";

const dagre = require("@dagrejs/dagre") as typeof Dagre;
// elkjs's bundled build, run in this thread (as a server would without a worker of its own).
const ELK = require("elkjs/lib/elk.bundled.js") as new () => { layout(graph: unknown): Promise<unknown> };

function layeredGraph(n: number, seed = 1) {
  let a = seed;
  const random = () => {
    a = (Math.imul(a, 1103515245) + 12345) & 0x7fffffff;
    return a / 0x7fffffff;
  };
  const columns = Math.max(4, Math.round(Math.sqrt(n / 3)));
  const perColumn = Math.ceil(n / columns);
  const nodes = Array.from({ length: n }, (_, i) => ({ key: `n${i}`, column: Math.floor(i / perColumn) }));
  const edges: { key: string; from: string; to: string }[] = [];
  for (const node of nodes) {
    if (node.column === 0) continue;
    for (let k = random() < 0.35 ? 2 : 1; k > 0; k--) {
      const source = (node.column - 1) * perColumn + Math.floor(random() * perColumn);
      if (source < n) edges.push({ key: `e${edges.length}`, from: `n${source}`, to: node.key });
    }
  }
  return { nodes, edges };
}

const sides: Record<string, (g: ReturnType<typeof layeredGraph>) => Promise<void> | void> = {
  "dagre, our order (box-layout.ts)": (g) => {
    const order = orderWithinColumns(g.nodes, g.edges);
    layOutBoxes(g.nodes.map((node) => ({ ...node, order: order.get(node.key)!, width: 180, height: 40 })), g.edges);
  },
  "dagre, its own ordering": (g) => {
    const graph = new dagre.graphlib.Graph({ multigraph: true });
    graph.setGraph({ rankdir: "LR", ranker: (() => undefined) as never });
    for (const node of g.nodes) graph.setNode(node.key, { width: 180, height: 40, rank: 2 * node.column } as Dagre.NodeLabel);
    for (const edge of g.edges) graph.setEdge(edge.from, edge.to, {}, edge.key);
    dagre.layout(graph);
  },
  "elkjs layered, columns as partitions": async (g) => {
    await new ELK().layout({
      id: "root",
      layoutOptions: { "elk.algorithm": "layered", "elk.direction": "RIGHT", "elk.partitioning.activate": "true" },
      children: g.nodes.map((node) => ({ id: node.key, width: 180, height: 40, layoutOptions: { "elk.partitioning.partition": String(node.column) } })),
      edges: g.edges.map((edge) => ({ id: edge.key, sources: [edge.from], targets: [edge.to] })),
    });
  },
  "elkjs layered, free": async (g) => {
    await new ELK().layout({
      id: "root",
      layoutOptions: { "elk.algorithm": "layered", "elk.direction": "RIGHT" },
      children: g.nodes.map((node) => ({ id: node.key, width: 180, height: 40 })),
      edges: g.edges.map((edge) => ({ id: edge.key, sources: [edge.from], targets: [edge.to] })),
    });
  },
};

async function main() {
  const reps = Number(process.argv.find((a) => a.startsWith("--reps="))?.slice(7) ?? 3);
  for (const n of [200, 2000]) {
    const graph = layeredGraph(n);
    const times = new Map<string, number[]>(Object.keys(sides).map((name) => [name, []]));
    for (let rep = 0; rep < reps; rep++) {
      const names = Object.keys(sides);
      for (let k = 0; k < names.length; k++) {
        const name = names[(k + rep) % names.length];
        const start = performance.now();
        await sides[name](graph);
        times.get(name)!.push(performance.now() - start);
      }
    }
    for (const [name, values] of times) console.log(`${n} nodes, ${graph.edges.length} edges — ${name}: median ${Math.round(median(values))} ms (${values.map((v) => Math.round(v)).join(", ")})`);
  }
}

main();

import type * as Dagre from "@dagrejs/dagre" with { "resolution-mode": "import" };

// @dagrejs/dagre ships CommonJS (its "require" export) but types itself as an ES module, which a
// CommonJS file cannot `import`; the types come from the import above, the code from require.
const dagre = require("@dagrejs/dagre") as typeof Dagre;

export interface OrderableNode {
  key: string;
  column: number;
}

export interface OrderableEdge {
  from: string;
  to: string;
}

/**
 * Orders the nodes of each column top to bottom so that few edges cross, using dagre's ordering
 * phase (Sugiyama layer sweep: barycenter heuristic plus transpositions, with dummy nodes along
 * edges that span several columns so long edges take part too).
 *
 * The columns are ours, not dagre's: each node is given its rank and dagre is told to keep the
 * ranks it is given (a ranker that does nothing) instead of computing its own. Ranks are 2·column
 * because dagre's later phases expect what its own rankers produce — every edge at least two ranks
 * long (it doubles minlen to leave room for edge labels); the odd ranks only hold dummy nodes.
 * Edges are handed over oriented left to right (a backward edge counts like its reverse) and
 * edges within one column are left out: neither changes which column order crosses least.
 *
 * Connected components are ordered one at a time and stacked (in the order their first node
 * comes in the input): edges of different components never need to cross. A component with at
 * most one node per column has nothing to order and skips dagre (which costs about half a
 * millisecond per node, dummies included): a pipeline run as many independent chains stays cheap.
 *
 * Deterministic for a given input order (dagre uses no randomness); callers pass nodes in a
 * stable, meaningful order (by step, role, id), which is also how ties are broken.
 *
 * `dagreWorkLimit`: the work (nodes plus dummies) above which a component is ordered by barycenter
 * sweeps instead of dagre (a caller answering an interactive page sets a lower one).
 *
 * Returns each node's 0-based position within its column.
 */
export function orderWithinColumns(nodes: readonly OrderableNode[], edges: readonly OrderableEdge[], options: { dagreWorkLimit?: number } = {}): Map<string, number> {
  const dagreWorkLimit = options.dagreWorkLimit ?? DAGRE_WORK_LIMIT;
  const order = new Map<string, number>();
  const nextInColumn = new Map<number, number>();
  for (const component of connectedComponents(nodes, edges)) {
    const local = !hasChoice(component)
      ? inputOrder(component.nodes)
      : layoutWork(component) <= dagreWorkLimit
        ? dagreOrder(component.nodes, component.edges)
        : barycenterOrder(component.nodes, component.edges);
    const columns = new Map<number, OrderableNode[]>();
    for (const node of component.nodes) {
      const inColumn = columns.get(node.column);
      if (inColumn) inColumn.push(node);
      else columns.set(node.column, [node]);
    }
    for (const [column, inColumn] of columns) {
      const offset = nextInColumn.get(column) ?? 0;
      inColumn.sort((a, b) => local.get(a.key)! - local.get(b.key)!).forEach((node, i) => order.set(node.key, offset + i));
      nextInColumn.set(column, offset + inColumn.length);
    }
  }
  return order;
}

/** One component's order by dagre: within each column, a rank usable for sorting (dummy nodes leave gaps). */
function dagreOrder(nodes: readonly OrderableNode[], edges: readonly OrderableEdge[]): Map<string, number> {
  const columnOf = new Map(nodes.map((node) => [node.key, node.column]));
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: "LR", ranker: keepGivenRanks as unknown as Dagre.GraphLabel["ranker"] });
  for (const node of [...nodes].sort((a, b) => a.column - b.column)) {
    graph.setNode(node.key, { width: 1, height: 1, rank: 2 * node.column });
  }
  edges.forEach((edge, i) => {
    const fromColumn = columnOf.get(edge.from)!;
    const toColumn = columnOf.get(edge.to)!;
    if (fromColumn === toColumn) return;
    const [left, right] = fromColumn < toColumn ? [edge.from, edge.to] : [edge.to, edge.from];
    graph.setEdge(left, right, { weight: 1, minlen: 1 }, `e${i}`);
  });
  dagre.layout(graph);
  return new Map(nodes.map((node) => [node.key, (graph.node(node.key) as Dagre.NodeLabel).order ?? 0]));
}

/**
 * dagre costs about half a millisecond per node, dummy nodes included (one per column an edge
 * crosses): past this many, a component is ordered by plain barycenter sweeps instead, which
 * are linear per sweep, so a huge micro graph is answered in bounded time with a fair order.
 */
export const DAGRE_WORK_LIMIT = 2_000;

function layoutWork(component: Component): number {
  const columnOf = new Map(component.nodes.map((node) => [node.key, node.column]));
  let dummies = 0;
  for (const edge of component.edges) dummies += Math.max(0, Math.abs(columnOf.get(edge.from)! - columnOf.get(edge.to)!) - 1) * 2;
  return component.nodes.length + dummies;
}

const BARYCENTER_SWEEPS = 4;

/**
 * The fallback for components too big for dagre: start from input order, then sweep left to
 * right and right to left, sorting each column by the mean position of each node's neighbours
 * in the column(s) before it (stable, so ties keep their order). The Sugiyama heuristic dagre
 * also starts from, without its transpositions and dummy nodes.
 */
function barycenterOrder(nodes: readonly OrderableNode[], edges: readonly OrderableEdge[]): Map<string, number> {
  const position = inputOrder(nodes);
  const byColumn = new Map<number, OrderableNode[]>();
  for (const node of nodes) {
    const inColumn = byColumn.get(node.column);
    if (inColumn) inColumn.push(node);
    else byColumn.set(node.column, [node]);
  }
  const columns = [...byColumn.keys()].sort((a, b) => a - b);
  const columnOf = new Map(nodes.map((node) => [node.key, node.column]));
  const neighbours = new Map<string, string[]>(nodes.map((node) => [node.key, []]));
  for (const edge of edges) {
    if (columnOf.get(edge.from) === columnOf.get(edge.to)) continue;
    neighbours.get(edge.from)!.push(edge.to);
    neighbours.get(edge.to)!.push(edge.from);
  }
  for (let sweep = 0; sweep < BARYCENTER_SWEEPS; sweep++) {
    const rightwards = sweep % 2 === 0;
    for (const column of rightwards ? columns : [...columns].reverse()) {
      const barycenter = (node: OrderableNode) => {
        const fixed = neighbours.get(node.key)!.filter((n) => (rightwards ? columnOf.get(n)! < column : columnOf.get(n)! > column));
        return fixed.length === 0 ? position.get(node.key)! : fixed.reduce((sum, n) => sum + position.get(n)!, 0) / fixed.length;
      };
      const ordered = byColumn
        .get(column)!
        .map((node) => ({ node, key: barycenter(node) }))
        .sort((a, b) => a.key - b.key);
      ordered.forEach(({ node }, i) => position.set(node.key, i));
      byColumn.set(column, ordered.map(({ node }) => node));
    }
  }
  return position;
}

/** Whether the component's order matters: some column holds two of its nodes and it has edges at all. */
function hasChoice(component: Component): boolean {
  if (component.edges.length === 0) return false;
  const columns = new Set<number>();
  for (const node of component.nodes) {
    if (columns.has(node.column)) return true;
    columns.add(node.column);
  }
  return false;
}

function inputOrder(nodes: readonly OrderableNode[]): Map<string, number> {
  return new Map(nodes.map((node, i) => [node.key, i]));
}

interface Component {
  nodes: OrderableNode[];
  edges: OrderableEdge[];
}

/** The weakly connected components, each with its nodes and edges in input order; components by their first node. */
function connectedComponents(nodes: readonly OrderableNode[], edges: readonly OrderableEdge[]): Component[] {
  const parent = new Map(nodes.map((node) => [node.key, node.key]));
  const root = (key: string): string => {
    let r = key;
    while (parent.get(r) !== r) r = parent.get(r)!;
    for (let k = key; parent.get(k) !== r; ) {
      const next = parent.get(k)!;
      parent.set(k, r);
      k = next;
    }
    return r;
  };
  const known = edges.filter((edge) => parent.has(edge.from) && parent.has(edge.to));
  for (const edge of known) {
    const a = root(edge.from);
    const b = root(edge.to);
    if (a !== b) parent.set(b, a);
  }
  const components = new Map<string, Component>();
  for (const node of nodes) {
    const r = root(node.key);
    const component = components.get(r);
    if (component) component.nodes.push(node);
    else components.set(r, { nodes: [node], edges: [] });
  }
  for (const edge of known) components.get(root(edge.from))!.edges.push(edge);
  return [...components.values()];
}

/** The ranker handed to dagre: ranks were set on the nodes already. */
function keepGivenRanks(): void {}

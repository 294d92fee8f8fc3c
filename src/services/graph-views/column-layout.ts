import { columnsForSteps, isBackwardEdge } from "./column-rules";
import { orderWithinColumns } from "./column-order";
import type { DraftEdge, DraftNode, GraphColumn, GraphEdge, GraphEdgeKind, GraphNode } from "./layered-graph";

export interface ColumnLayout<N extends GraphNode> {
  columns: GraphColumn[];
  nodes: N[];
  edges: GraphEdge[];
}

const EDGE_KIND_RANK: Record<GraphEdgeKind, number> = { USED: 0, WAS_GENERATED_BY: 1, WAS_DERIVED_FROM: 2 };

/**
 * Completes a drafted graph (nodes already in their columns) with the layout hints: each node's
 * order within its column, each edge's backward flag, the column list, and a stable output order
 * (nodes by column then order; edges by their ends' positions, then kind and role).
 */
export function layOutColumns<N extends GraphNode>(
  steps: readonly number[],
  draftNodes: readonly DraftNode<N>[],
  draftEdges: readonly DraftEdge[],
): ColumnLayout<N> {
  const order = orderWithinColumns(draftNodes, draftEdges);
  const nodes = draftNodes
    .map((node) => ({ ...node, order: order.get(node.key) ?? 0 }) as unknown as N)
    .sort((a, b) => a.column - b.column || a.order - b.order);
  const byKey = new Map(nodes.map((node) => [node.key, node]));
  const columns = columnsForSteps(steps);
  for (const node of nodes) columns[node.column].nodeKeys.push(node.key);

  const position = (key: string) => {
    const node = byKey.get(key)!;
    return [node.column, node.order] as const;
  };
  const edges = draftEdges
    .map((edge) => ({ ...edge, backward: isBackwardEdge(edge.kind, byKey.get(edge.from)!.column, byKey.get(edge.to)!.column) }))
    .sort((a, b) => {
      const [af, ao] = position(a.from);
      const [bf, bo] = position(b.from);
      const [at, ato] = position(a.to);
      const [bt, bto] = position(b.to);
      return (
        af - bf ||
        ao - bo ||
        at - bt ||
        ato - bto ||
        EDGE_KIND_RANK[a.kind] - EDGE_KIND_RANK[b.kind] ||
        compareText(a.role ?? "", b.role ?? "") ||
        compareText(a.derivation ?? "", b.derivation ?? "")
      );
    });
  return { columns, nodes, edges };
}

/** Code-unit order, the same on every machine (localeCompare is not). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

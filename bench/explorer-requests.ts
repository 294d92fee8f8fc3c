/**
 * The two requests the Explorer (explorer/src/api/operations.graphql, GraphView.tsx) sends for what
 * its performance goals time — a search result opened, a node expanded — as the browser bench
 * (explorer-bench.ts) and the graph bench (graph-bench.ts: the server's side alone, against raw)
 * both send them: the same fields as the page's fragments, the same variables.
 */

/** The neighbourhood's depth: the page's deepest setting, so one root's neighbourhood fills the page's default 200 nodes. */
export const EXPLORER_DEPTH = 10;
/** The page's default node limit (explorer/src/routes/graph-params.ts). */
export const EXPLORER_FIRST = 200;

export const EXPLORER_GRAPH_QUERY = `query($roots: [ID!]!, $depth: Int, $first: Int) { lineageGraph(roots: $roots, depth: $depth, layout: true, first: $first) {
  nodes { id kind label depth upstreamCount downstreamCount hiddenUpstream hiddenDownstream x y width height artifact { id artifactType createdAt dataset { namespace name version } policyTags { tag inherited } redacted } execution { runId status pipeline step recordedAt operation { name } } }
  edges { id kind source target runId role groupId derivationKind subtype masking backward } } }`;
export const EXPLORER_EXPAND_QUERY = `query($nodeId: ID!, $direction: GraphDirection!, $first: Int) { expand(nodeId: $nodeId, direction: $direction, first: $first) {
  node { id } nodes { id kind label depth upstreamCount downstreamCount hiddenUpstream hiddenDownstream artifact { id artifactType createdAt dataset { namespace name version } policyTags { tag inherited } redacted } execution { runId status pipeline step recordedAt operation { name } } }
  edges { id kind source target runId role groupId derivationKind subtype masking backward } pageInfo { hasNextPage endCursor } } }`;

/** A "+N" the page shows without asking first (at most 100 hidden), the largest (then by id): what a user expands. */
export function expandTarget(nodes: readonly { id: string; hiddenUpstream: number; hiddenDownstream: number }[]): { nodeId: string; direction: "UPSTREAM" | "DOWNSTREAM"; n: number } | undefined {
  let best: { nodeId: string; direction: "UPSTREAM" | "DOWNSTREAM"; n: number } | undefined;
  for (const node of [...nodes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    for (const [direction, n] of [["UPSTREAM", node.hiddenUpstream], ["DOWNSTREAM", node.hiddenDownstream]] as const) {
      if (n >= 1 && n <= 100 && (!best || n > best.n)) best = { nodeId: node.id, direction, n };
    }
  }
  return best;
}

import { edgeConditions, type LineageFilters, linkConditions } from "./lineage-filters";
import type { StatementParams } from "./read-client";

/**
 * A lineage graph's direct neighbours, as SQL fragments over one node expression (a column of the
 * statement, e.g. `m.node`). The graph is bipartite: an artifact's neighbours are runs, a run's are
 * artifacts. A relation counts when it is stored either way — an execution link (the run used or
 * produced the artifact) or a derivation edge the run recorded (its source was used, its target
 * produced) — so runs reported with links only, and stores with edges only, both draw whole. An
 * output-to-output edge's source is another output of the run, not something it used.
 * Each fragment selects one column, the neighbour's id, distinct.
 */
const USED_EDGE = ` AND e.kind <> 'OUTPUT_TO_OUTPUT'`;
export type NeighbourSide = "producers" | "consumers" | "inputs" | "outputs";

export function neighboursOf(p: StatementParams, f: LineageFilters, side: NeighbourSide, node: string): string {
  return neighbourBranches(p, f, side, node).join(" UNION ");
}

/**
 * How many distinct neighbours on that side: a scalar subquery. COUNT(DISTINCT) over UNION ALL
 * rather than COUNT(*) over UNION: the same number (neighbour ids are never NULL), and on SQLite
 * cheaper per node (one distinct set instead of a union's set and a count over it).
 */
export function neighbourCount(p: StatementParams, f: LineageFilters, side: NeighbourSide, node: string): string {
  return `(SELECT COUNT(DISTINCT nb) FROM (${neighbourBranches(p, f, side, node).join(" UNION ALL ")}) nbs)`;
}

/** The two stored relations of a side: execution links and derivation edges (their rows may repeat a neighbour). */
function neighbourBranches(p: StatementParams, f: LineageFilters, side: NeighbourSide, node: string): [string, string] {
  switch (side) {
    case "producers":
      return [
        `SELECT l."runId" AS nb FROM "ExecutionArtifact" l WHERE l."artifactId" = ${node} AND l.direction = 'PRODUCED'${linkConditions(p, f, "l")}`,
        `SELECT e."runId" FROM "ProvenanceEdge" e WHERE e."targetId" = ${node}${edgeConditions(p, f, "e")}`,
      ];
    case "consumers":
      return [
        `SELECT l."runId" AS nb FROM "ExecutionArtifact" l WHERE l."artifactId" = ${node} AND l.direction = 'CONSUMED'${linkConditions(p, f, "l")}`,
        `SELECT e."runId" FROM "ProvenanceEdge" e WHERE e."sourceId" = ${node}${USED_EDGE}${edgeConditions(p, f, "e")}`,
      ];
    case "inputs":
      return [
        `SELECT l."artifactId" AS nb FROM "ExecutionArtifact" l WHERE l."runId" = ${node} AND l.direction = 'CONSUMED'${linkConditions(p, f, "l")}`,
        `SELECT e."sourceId" FROM "ProvenanceEdge" e WHERE e."runId" = ${node}${USED_EDGE}${edgeConditions(p, f, "e")}`,
      ];
    case "outputs":
      return [
        `SELECT l."artifactId" AS nb FROM "ExecutionArtifact" l WHERE l."runId" = ${node} AND l.direction = 'PRODUCED'${linkConditions(p, f, "l")}`,
        `SELECT e."targetId" FROM "ProvenanceEdge" e WHERE e."runId" = ${node}${edgeConditions(p, f, "e")}`,
      ];
  }
}

/** The sides of a node kind, upstream first. */
export const ARTIFACT_SIDES = { up: "producers", down: "consumers" } as const satisfies Record<"up" | "down", NeighbourSide>;
export const RUN_SIDES = { up: "inputs", down: "outputs" } as const satisfies Record<"up" | "down", NeighbourSide>;

/**
 * How many distinct neighbours on that side each node of a table expression has, as a table
 * (node, n) for a CTE (`from` and `node` as neighbourPairs takes them); a node without any has no
 * row. The same numbers as neighbourCount, grouped once over all the nodes: PostgreSQL joins the
 * links and edges of every node at once by hash, where a subquery per node runs its own index scans
 * (403 nodes of a hub: 4.5 of the statement's 9 ms). SQLite has no hash join: there it was slower.
 */
function neighbourCounts(p: StatementParams, f: LineageFilters, side: NeighbourSide, from: string, node: string): string {
  return `SELECT node, COUNT(DISTINCT nb) AS n FROM (${neighbourPairs(p, f, side, from, node, "UNION ALL")}) pairs GROUP BY node`;
}

/** A node's two counts as a statement selects them, and what its FROM needs for them (joins, or nothing). */
export interface SideCounts {
  up: string;
  down: string;
  joins: string;
}

/**
 * How a statement reads the neighbour counts of its artifacts and runs, given the tables that hold
 * them (e.g. `arts t` / `t.node`): on PostgreSQL `tables` (four count tables, neighbourCounts) to
 * append to its WITH, then LEFT JOINed for each node; on SQLite no tables and a subquery per node
 * (neighbourCount). Call artifact() and run() where their columns stand in the statement: SQLite
 * binds its parameters by position.
 */
export function nodeCounts(
  p: StatementParams,
  f: LineageFilters,
  arts: { from: string; node: string },
  runs: { from: string; node: string },
): { tables: string; artifact(node: string): SideCounts; run(node: string): SideCounts } {
  if (p.provider === "sqlite") {
    const perNode = (sides: { up: NeighbourSide; down: NeighbourSide }) => (node: string) => ({ up: neighbourCount(p, f, sides.up, node), down: neighbourCount(p, f, sides.down, node), joins: "" });
    return { tables: "", artifact: perNode(ARTIFACT_SIDES), run: perNode(RUN_SIDES) };
  }
  const tables =
    `, countartup AS (${neighbourCounts(p, f, ARTIFACT_SIDES.up, arts.from, arts.node)})` +
    `, countartdown AS (${neighbourCounts(p, f, ARTIFACT_SIDES.down, arts.from, arts.node)})` +
    `, countrunup AS (${neighbourCounts(p, f, RUN_SIDES.up, runs.from, runs.node)})` +
    `, countrundown AS (${neighbourCounts(p, f, RUN_SIDES.down, runs.from, runs.node)})`;
  const grouped = (kind: "art" | "run") => (node: string) => ({
    up: "coalesce(cu.n, 0)",
    down: "coalesce(cd.n, 0)",
    joins: ` LEFT JOIN count${kind}up cu ON cu.node = ${node} LEFT JOIN count${kind}down cd ON cd.node = ${node}`,
  });
  return { tables, artifact: grouped("art"), run: grouped("run") };
}

/**
 * (node, neighbour) pairs for every node of a table expression: `from` names it (e.g. `ua t`),
 * `node` its node column (e.g. `t.node`). Joins instead of correlated subqueries, so it works in a
 * FROM clause on both databases. A pair may come twice with `UNION ALL` (a link and an edge relate it).
 */
export function neighbourPairs(p: StatementParams, f: LineageFilters, side: NeighbourSide, from: string, node: string, union: "UNION" | "UNION ALL" = "UNION"): string {
  const link = (direction: string, nodeColumn: string, nb: string) =>
    `SELECT ${node} AS node, l."${nb}" AS nb FROM ${from} JOIN "ExecutionArtifact" l ON l."${nodeColumn}" = ${node} AND l.direction = '${direction}' WHERE 1 = 1${linkConditions(p, f, "l")}`;
  const edge = (nodeColumn: string, nb: string, used = false) =>
    `SELECT ${node}, e."${nb}" FROM ${from} JOIN "ProvenanceEdge" e ON e."${nodeColumn}" = ${node} WHERE 1 = 1${used ? USED_EDGE : ""}${edgeConditions(p, f, "e")}`;
  switch (side) {
    case "producers":
      return `${link("PRODUCED", "artifactId", "runId")} ${union} ${edge("targetId", "runId")}`;
    case "consumers":
      return `${link("CONSUMED", "artifactId", "runId")} ${union} ${edge("sourceId", "runId", true)}`;
    case "inputs":
      return `${link("CONSUMED", "runId", "artifactId")} ${union} ${edge("runId", "sourceId", true)}`;
    case "outputs":
      return `${link("PRODUCED", "runId", "artifactId")} ${union} ${edge("runId", "targetId")}`;
  }
}

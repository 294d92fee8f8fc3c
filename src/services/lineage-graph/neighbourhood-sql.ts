import type { DatabaseProvider } from "../../db/database-url";
import type { Statement } from "../../db/sql-statement";
import { edgeConditions, type LineageFilters, linkConditions } from "./lineage-filters";
import { ARTIFACT_SIDES, neighbourPairs, nodeCounts } from "./neighbour-sql";
import { byOtherIndex, StatementParams } from "./read-client";
import { UnionRows } from "./union-rows";

/**
 * The two statements behind a neighbourhood graph (docs: "Lineage and graphs"), whatever its size:
 *
 * 1. the walk (walkStatement): from the root artifacts (and the inputs and outputs of root runs)
 *    along derivation edges, upstream and/or downstream, at most `depth` hops, one recursive CTE per
 *    direction, each breadth-first with a row budget (as the closure's "depth" walk: SQLite orders
 *    its queue by depth and LIMITs it; PostgreSQL reads a lazily evaluated CTE only so far). It keeps
 *    the `keep` nearest artifacts per direction (by hops, then id) and counts the candidates.
 * 2. everything about those candidates (neighbourhoodStatement): the runs beside each artifact short
 *    of the depth limit (producers upstream, consumers downstream), the derivation edges among them
 *    and every edge into a downstream artifact (so its co-inputs come with it), the co-inputs, the
 *    links between those runs and artifacts, and for every artifact and run its labels and how many
 *    neighbours it has upstream and downstream.
 *
 * Numbers are inlined (validated integers); ids travel as JSON arrays (one bound value each).
 */
export interface WalkOptions {
  artifactRoots: readonly string[];
  runRoots: readonly string[];
  up: boolean;
  down: boolean;
  depth: number;
  /** Candidates kept per direction, nearest first. */
  keep: number;
  /** Walk rows per direction before it stops. */
  budget: number;
  filters: LineageFilters;
}

const WALK_COLUMNS = { row: "TEXT", id: "TEXT", n: "BIGINT", n2: "BIGINT", n3: "BIGINT", n4: "BIGINT" } as const;
export type WalkColumn = keyof typeof WALK_COLUMNS;
export const WALK_COLUMN_NAMES = Object.keys(WALK_COLUMNS) as WalkColumn[];

export function walkStatement(provider: DatabaseProvider, o: WalkOptions): Statement {
  for (const [name, value] of [["depth", o.depth], ["keep", o.keep], ["budget", o.budget]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`walkStatement: ${name} must be a non-negative integer, got ${value}`);
  }
  const p = new StatementParams(provider);
  const lateral = provider === "postgres";
  let sql = `WITH RECURSIVE roots(node) AS (SELECT value FROM ${p.list(o.artifactRoots)}), runroots(run) AS (SELECT value FROM ${p.list(o.runRoots)})`;
  const walk = (name: "up" | "down") => {
    const upstream = name === "up";
    const near = upstream ? `"targetId"` : `"sourceId"`;
    const far = upstream ? `"sourceId"` : `"targetId"`;
    // A root run's inputs (upstream) or outputs (downstream) are the first hop.
    const runSeeds = () =>
      `SELECT l."artifactId", 1 FROM runroots r JOIN "ExecutionArtifact" l ON l."runId" = r.run AND l.direction = '${upstream ? "CONSUMED" : "PRODUCED"}' WHERE 1 = 1${linkConditions(p, o.filters, "l")} ` +
      `UNION SELECT e.${far}, 1 FROM runroots r JOIN "ProvenanceEdge" e ON e."runId" = r.run WHERE 1 = 1${upstream ? ` AND e.kind <> 'OUTPUT_TO_OUTPUT'` : ""}${edgeConditions(p, o.filters, "e")}`;
    sql += `, ${name}seeds(node, depth) AS (SELECT node, 0 FROM roots${o.depth > 0 ? ` UNION ${runSeeds()}` : ""})`;
    sql += `, ${name}(node, depth) AS (SELECT node, depth FROM ${name}seeds UNION SELECT e.${far}, w.depth + 1 FROM ${name} w `;
    sql += lateral
      ? `CROSS JOIN LATERAL (SELECT e.${far} FROM "ProvenanceEdge" e WHERE e.${near} = w.node${edgeConditions(p, o.filters, "e")} OFFSET 0) e WHERE w.depth < ${o.depth}`
      : `JOIN "ProvenanceEdge" e ON e.${near} = w.node WHERE w.depth < ${o.depth}${edgeConditions(p, o.filters, "e")} ORDER BY 2 LIMIT ${o.budget}`;
    sql += `)`;
    sql += `, ${name}steps AS (SELECT * FROM ${name}${lateral ? ` LIMIT ${o.budget}` : ""})`;
    sql += `, ${name}reached AS (SELECT node, MIN(depth) AS depth FROM ${name}steps GROUP BY node)`;
    sql += `, ${name}candidates AS (SELECT node, depth FROM ${name}reached WHERE depth > 0 AND node NOT IN (SELECT node FROM roots))`;
    sql += `, ${name}kept AS (SELECT node, depth FROM ${name}candidates ORDER BY depth, node LIMIT ${o.keep})`;
  };
  if (o.up) walk("up");
  if (o.down) walk("down");
  const rows = new UnionRows(WALK_COLUMNS);
  sql += ` ${rows.select({ row: `'root'`, id: "a.id" })} FROM roots r JOIN "Artifact" a ON a.id = r.node`;
  sql += `${rows.select({ row: `'runroot'`, id: `x."runId"` })} FROM runroots r JOIN "Execution" x ON x."runId" = r.run`;
  const meta: Partial<Record<WalkColumn, string>> = { row: `'meta'` };
  for (const name of ["up", "down"] as const) {
    if (!(name === "up" ? o.up : o.down)) continue;
    sql += `${rows.select({ row: `'${name}'`, id: "k.node", n: "k.depth" })} FROM ${name}kept k`;
    const candidates = `(SELECT COUNT(*) FROM (SELECT 1 AS one FROM ${name}candidates LIMIT ${o.keep + 1}) c)`;
    const steps = `(SELECT COUNT(*) FROM ${name}steps)`;
    if (name === "up") Object.assign(meta, { n: candidates, n2: steps });
    else Object.assign(meta, { n3: candidates, n4: steps });
  }
  sql += rows.select(meta);
  return { sql, params: p.params };
}

/** What the neighbourhood statement is asked about (every list a set of ids). */
export interface NeighbourhoodOptions {
  /** Artifacts whose producing runs are wanted (upstream side, short of the depth limit). */
  upFrontier: readonly string[];
  /** Artifacts whose consuming runs are wanted (downstream side, short of the depth limit). */
  downFrontier: readonly string[];
  /** Downstream artifacts: every edge into them is read (their co-inputs). */
  downArtifacts: readonly string[];
  /**
   * Root artifacts on the downstream side. A root is also a child of the hop when a derivation leads
   * back to it (a self-edge, a cycle, one root derived from another) and comes with its co-inputs like
   * any child: the edges into it of a derivation group with a source on the downstream frontier are
   * read (only those groups, not every parent it has).
   */
  downRoots: readonly string[];
  /** Every artifact of the walk, roots included. */
  artifacts: readonly string[];
  runRoots: readonly string[];
  /** Runs read per artifact and side (one more than may be shown tells the list was cut). */
  runsPerArtifact: number;
  filters: LineageFilters;
}

/**
 * The statement's columns, shared by its kinds of row (a row of one kind fills the columns it needs,
 * in order, and leaves the others NULL). Few and shared on purpose: the driver builds a value for
 * every column of every row, NULLs included, and on the 400-node graph of a hub that cost as much as
 * the SQL itself.
 */
const NEIGHBOURHOOD_COLUMNS = {
  row: "TEXT",
  a: "TEXT",
  b: "TEXT",
  c: "TEXT",
  d: "TEXT",
  e: "TEXT",
  f: "TEXT",
  n: "BIGINT",
  up: "BIGINT",
  down: "BIGINT",
} as const;
export type NeighbourhoodColumn = keyof typeof NEIGHBOURHOOD_COLUMNS;
export const NEIGHBOURHOOD_COLUMN_NAMES = Object.keys(NEIGHBOURHOOD_COLUMNS) as NeighbourhoodColumn[];

/**
 * Rows (columns a…f, n, up, down):
 *  - 'edge': source, target, run, kind, groupId; n = edge id.
 *  - 'art': id, originalName, artifactType, dataset namespace, name, version; up / down = neighbour counts.
 *  - 'run': id, operation name, operation version, status, pipeline; n = step; up / down.
 *  - 'link': run, artifact, CONSUMED | PRODUCED, role.
 *  - 'pair': run, artifact, CONSUMED | PRODUCED: the run recorded a derivation edge from or into the
 *    artifact and no link of that direction says so.
 *  - 'adjup' / 'adjdown': artifact, run — only for a frontier artifact with more runs beside it than
 *    are read (runsPerArtifact + 1 or more). For every other frontier artifact, its runs on that side
 *    are exactly those the links and pairs relate it to: all of them are among the runs read.
 */
export function neighbourhoodStatement(provider: DatabaseProvider, o: NeighbourhoodOptions): Statement {
  if (!Number.isSafeInteger(o.runsPerArtifact) || o.runsPerArtifact < 0) throw new Error(`neighbourhoodStatement: runsPerArtifact must be a non-negative integer`);
  const p = new StatementParams(provider);
  const f = o.filters;
  let sql = `WITH upfront(node) AS (SELECT value FROM ${p.list(o.upFrontier)})`;
  sql += `, downfront(node) AS (SELECT value FROM ${p.list(o.downFrontier)})`;
  sql += `, downarts(node) AS (SELECT value FROM ${p.list(o.downArtifacts)})`;
  sql += `, walked(node) AS (SELECT value FROM ${p.list(o.artifacts)})`;
  sql += `, runroots(run) AS (SELECT value FROM ${p.list(o.runRoots)})`;
  sql += `, downroots(node) AS (SELECT value FROM ${p.list(o.downRoots)})`;
  const adjacency = (name: string, side: "producers" | "consumers", front: string) =>
    `, ${name}(node, run, k) AS (SELECT node, nb, ROW_NUMBER() OVER (PARTITION BY node ORDER BY nb) FROM (${neighbourPairs(p, f, side, `${front} t`, "t.node")}) pairs)`;
  sql += adjacency("adjup", ARTIFACT_SIDES.up, "upfront");
  sql += adjacency("adjdown", ARTIFACT_SIDES.down, "downfront");
  // Every edge into a downstream artifact (so its co-inputs) and the groups the frontier derived a
  // root from, then every edge among the artifacts walked and those co-inputs.
  // Edges are gathered by id (the target index holds the source and the id: no row is read to find
  // them) and each is read once, at the end, instead of unions of whole rows. `edges` is
  // MATERIALIZED: merged into `runs`, SQLite scanned the whole runId index for them (127 ms on the
  // 1.05M-edge store, against 4 ms for the statement).
  sql += `, intodown(id, "sourceId") AS (SELECT e.id, e."sourceId" FROM downarts t JOIN "ProvenanceEdge" e ON e."targetId" = t.node WHERE 1 = 1${edgeConditions(p, f, "e")}`;
  sql += ` UNION SELECT e.id, e."sourceId" FROM downroots t JOIN "ProvenanceEdge" e ON e."targetId" = t.node WHERE e."groupId" IS NOT NULL${edgeConditions(p, f, "e")}`;
  sql += ` AND EXISTS (SELECT 1 FROM "ProvenanceEdge" g WHERE g."targetId" = e."targetId" AND ${byOtherIndex(p, `g."runId"`)} = e."runId" AND ${byOtherIndex(p, `g."groupId"`)} = e."groupId"`;
  sql += ` AND g."sourceId" IN (SELECT node FROM downfront)${edgeConditions(p, f, "g")}))`;
  sql += `, arts(node) AS (SELECT node FROM walked UNION SELECT "sourceId" FROM intodown)`;
  sql += `, edgeids(id) AS (SELECT id FROM intodown UNION SELECT e.id FROM arts t JOIN "ProvenanceEdge" e ON e."targetId" = t.node WHERE e."sourceId" IN (SELECT node FROM arts)${edgeConditions(p, f, "e")})`;
  sql += `, edges AS MATERIALIZED (SELECT e.id, e."sourceId", e."targetId", e."runId", e.kind, e."groupId" FROM edgeids i JOIN "ProvenanceEdge" e ON e.id = i.id)`;
  // The runs beside the frontier, the root runs, and the runs of those edges (one that derived an output from another).
  sql += `, runs(run) AS (SELECT run FROM adjup WHERE k <= ${o.runsPerArtifact + 1} UNION SELECT run FROM adjdown WHERE k <= ${o.runsPerArtifact + 1} UNION SELECT run FROM runroots UNION SELECT "runId" FROM edges)`;
  // The runs' links to the artifacts shown, read once by the run: the 'link' rows, and what tells each edge
  // those runs recorded whether a link stands behind it (asked per edge of the link table itself, SQLite read
  // every link of a 20,000-input run for each edge; asked by the artifact, every run of a hub's for each).
  sql += `, runlinks AS MATERIALIZED (SELECT l."runId" AS run, l."artifactId" AS artifact, l.direction, l.role FROM runs r JOIN "ExecutionArtifact" l ON l."runId" = r.run`;
  sql += ` WHERE l."artifactId" IN (SELECT node FROM arts)${linkConditions(p, f, "l")})`;
  // Every node's neighbour counts (nodeCounts: grouped on PostgreSQL, a subquery per node on SQLite).
  const counts = nodeCounts(p, f, { from: "arts t", node: "t.node" }, { from: "runs t", node: "t.run" });
  sql += counts.tables;
  const rows = new UnionRows(NEIGHBOURHOOD_COLUMNS);
  const cap = o.runsPerArtifact + 1;
  sql += `${rows.select({ row: `'edge'`, a: `e."sourceId"`, b: `e."targetId"`, c: `e."runId"`, d: "e.kind", e: `e."groupId"`, n: "e.id" })} FROM edges e`;
  for (const name of ["adjup", "adjdown"]) {
    sql += `${rows.select({ row: `'${name}'`, a: "j.node", b: "j.run" })} FROM ${name} j WHERE j.k <= ${cap} AND j.node IN (SELECT node FROM ${name} WHERE k = ${cap})`;
  }
  const artCounts = counts.artifact("m.node");
  sql += rows.select({
    row: `'art'`,
    a: "m.node",
    b: `a."originalName"`,
    c: `a."artifactType"`,
    d: `a."datasetNamespace"`,
    e: `a."datasetName"`,
    f: `a."datasetVersion"`,
    up: artCounts.up,
    down: artCounts.down,
  });
  sql += ` FROM arts m LEFT JOIN "Artifact" a ON a.id = m.node${artCounts.joins}`;
  const runCounts = counts.run("r.run");
  sql += rows.select({
    row: `'run'`,
    a: "r.run",
    b: "o.name",
    c: "o.version",
    d: "x.status",
    e: "x.pipeline",
    n: "x.step",
    up: runCounts.up,
    down: runCounts.down,
  });
  sql += ` FROM runs r LEFT JOIN "Execution" x ON x."runId" = r.run LEFT JOIN "Operation" o ON o.id = x."operationId"${runCounts.joins}`;
  sql += `${rows.select({ row: `'link'`, a: "k.run", b: "k.artifact", c: "k.direction", d: "k.role" })} FROM runlinks k`;
  // The edges those runs recorded from or into these artifacts: used / produced even where no link says so.
  for (const [end, direction] of [["sourceId", "CONSUMED"], ["targetId", "PRODUCED"]] as const) {
    sql += `${rows.select({ row: `'pair'`, a: `e."runId"`, b: `e."${end}"`, c: `'${direction}'` })} FROM runs r JOIN "ProvenanceEdge" e ON e."runId" = r.run`;
    sql += ` WHERE e."${end}" IN (SELECT node FROM arts)${direction === "CONSUMED" ? ` AND e.kind <> 'OUTPUT_TO_OUTPUT'` : ""}${edgeConditions(p, f, "e")}`;
    sql += ` AND NOT EXISTS (SELECT 1 FROM runlinks k WHERE k.run = e."runId" AND k.direction = '${direction}' AND k.artifact = e."${end}")`;
  }
  return { sql, params: p.params };
}

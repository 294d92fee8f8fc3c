import type { DatabaseProvider } from "../../db/database-url";
import type { Statement } from "../../db/sql-statement";
import { columnEdgeConditions, edgeConditions, type LineageFilters, linkConditions } from "./lineage-filters";
import { StatementParams } from "./read-client";
import { UnionRows } from "./union-rows";
import { stopCheckSql } from "../../db/statement-stop";

const IMPACT_COLUMNS = {
  row: "TEXT",
  id: "TEXT",
  other: "TEXT",
  runId: "TEXT",
  field: "TEXT",
  otherField: "TEXT",
  namespace: "TEXT",
  name: "TEXT",
  pipeline: "TEXT",
  n: "BIGINT",
} as const;
export type ImpactColumn = keyof typeof IMPACT_COLUMNS;
export const IMPACT_COLUMN_NAMES = Object.keys(IMPACT_COLUMNS) as ImpactColumn[];

export interface ImpactWalkOptions {
  /** Artifacts the walk starts from (hop 0), or a run's inputs / outputs (hop 1). */
  artifactRoots: readonly string[];
  runRoot: string | null;
  upstream: boolean;
  /** null: as far as the graph goes (one row per node); else (node, hops) rows up to it. */
  maxDepth: number | null;
  budget: number;
  filters: LineageFilters;
}

/**
 * Everything reachable from the roots along derivation edges, in one statement, for counting: the
 * walk (each node once without a depth bound; (node, hops) pairs with one), the edges it followed
 * (for the hops), the runs beside the walked artifacts on the walking side (links included: a run
 * that used an artifact and derived nothing from it is still reached), each artifact's type and
 * dataset, each run's operation and pipeline, and the columns of the dataset versions reached.
 * Rows: 'node' (id), 'seed' (id, n = its hops: 0, or 1 for a root run's), 'edge' (id = near end, other = far end, runId), 'link' (id = artifact, runId),
 * 'art' (id, namespace/name), 'run' (id, other = operation id, pipeline), 'columns' (id, n), 'meta' (n).
 */
export function impactWalkStatement(provider: DatabaseProvider, o: ImpactWalkOptions): Statement {
  if (!Number.isSafeInteger(o.budget) || o.budget < 1) throw new Error("impactWalkStatement: budget must be a positive integer");
  if (o.maxDepth !== null && (!Number.isSafeInteger(o.maxDepth) || o.maxDepth < 0)) throw new Error("impactWalkStatement: maxDepth must be a non-negative integer");
  const p = new StatementParams(provider);
  const f = o.filters;
  const lateral = provider === "postgres";
  const [near, far] = o.upstream ? [`"targetId"`, `"sourceId"`] : [`"sourceId"`, `"targetId"`];
  const depth = o.maxDepth !== null;
  let sql = `WITH RECURSIVE roots(node) AS (SELECT value FROM ${p.list(o.artifactRoots)})`;
  sql += `, runroot(run) AS (SELECT value FROM ${p.list(o.runRoot ? [o.runRoot] : [])})`;
  const runSeeds =
    `SELECT l."artifactId", 1 FROM runroot r JOIN "ExecutionArtifact" l ON l."runId" = r.run AND l.direction = '${o.upstream ? "CONSUMED" : "PRODUCED"}' WHERE 1 = 1${linkConditions(p, f, "l")} ` +
    `UNION SELECT e.${far}, 1 FROM runroot r JOIN "ProvenanceEdge" e ON e."runId" = r.run WHERE 1 = 1${edgeConditions(p, f, "e")}`;
  sql += `, seeds(node, depth) AS (SELECT node, 0 FROM roots UNION ${runSeeds})`;
  sql += `, walk(node${depth ? ", depth" : ""}) AS (SELECT node${depth ? ", depth" : ""} FROM seeds UNION SELECT e.${far}${depth ? ", w.depth + 1" : ""} FROM walk w `;
  const bound = depth ? ` w.depth < ${o.maxDepth}` : "";
  // SQLite: the stop function on about one row in 256 of the walk and of each join over what it
  // reached, which take longer than the walk (statement-stop.ts, as the closures' walks).
  const stop = (rowid: string) => (lateral ? "" : ` AND ${stopCheckSql(rowid)}`);
  sql += lateral
    ? `CROSS JOIN LATERAL (SELECT e.${far} FROM "ProvenanceEdge" e WHERE e.${near} = w.node${edgeConditions(p, f, "e")} OFFSET 0) e${depth ? ` WHERE${bound}` : ""}`
    : `JOIN "ProvenanceEdge" e ON e.${near} = w.node WHERE 1 = 1${stop("e.id")}${depth ? ` AND${bound}` : ""}${edgeConditions(p, f, "e")}${depth ? " ORDER BY 2" : ""} LIMIT ${o.budget}`;
  sql += `)`;
  sql += `, steps AS (SELECT * FROM walk${lateral ? ` LIMIT ${o.budget}` : ""})`;
  sql += `, reached(node) AS (SELECT DISTINCT node FROM steps)`;
  // Runs beside the reached artifacts on the walking side: by links, and by the edges walked.
  sql +=
    `, besides(node, run) AS (SELECT l."artifactId", l."runId" FROM reached m JOIN "ExecutionArtifact" l ON l."artifactId" = m.node AND l.direction = '${o.upstream ? "PRODUCED" : "CONSUMED"}' WHERE 1 = 1${stop("l.rowid")}${linkConditions(p, f, "l")} ` +
    `UNION SELECT e.${near}, e."runId" FROM reached m JOIN "ProvenanceEdge" e ON e.${near} = m.node WHERE 1 = 1${stop("e.id")}${edgeConditions(p, f, "e")})`;
  sql += `, runs(run) AS (SELECT DISTINCT run FROM besides)`;
  const rows = new UnionRows(IMPACT_COLUMNS);
  sql += ` ${rows.select({ row: `'node'`, id: "m.node" })} FROM reached m`;
  sql += `${rows.select({ row: `'seed'`, id: "s.node", n: "s.depth" })} FROM seeds s`;
  sql += `${rows.select({ row: `'edge'`, id: `e.${near}`, other: `e.${far}`, runId: `e."runId"` })} FROM reached m JOIN "ProvenanceEdge" e ON e.${near} = m.node`;
  sql += ` WHERE e.${far} IN (SELECT node FROM reached)${stop("e.id")}${edgeConditions(p, f, "e")}`;
  sql += `${rows.select({ row: `'link'`, id: "b.node", runId: "b.run" })} FROM besides b`;
  sql += `${rows.select({ row: `'art'`, id: "a.id", namespace: `a."datasetNamespace"`, name: `a."datasetName"` })} FROM reached m JOIN "Artifact" a ON a.id = m.node WHERE 1 = 1${stop("a.rowid")}`;
  sql += `${rows.select({ row: `'run'`, id: "r.run", other: `x."operationId"`, pipeline: "x.pipeline" })} FROM runs r LEFT JOIN "Execution" x ON x."runId" = r.run`;
  // The columns of the dataset versions reached: from their schemas and from the edges that name them.
  sql +=
    `${rows.select({ row: `'columns'`, id: "c.artifact", n: "COUNT(*)" })} FROM (` +
    `SELECT d."artifactId" AS artifact, d.field AS field FROM reached m JOIN "DatasetColumn" d ON d."artifactId" = m.node WHERE 1 = 1${stop("d.rowid")} ` +
    `UNION SELECT e."sourceId", e."sourceField" FROM reached m JOIN "ColumnEdge" e ON e."sourceId" = m.node WHERE 1 = 1${stop("e.id")}${columnEdgeConditions(p, f, "e")} ` +
    `UNION SELECT e."targetId", e."targetField" FROM reached m JOIN "ColumnEdge" e ON e."targetId" = m.node WHERE e."targetField" IS NOT NULL${stop("e.id")}${columnEdgeConditions(p, f, "e")}) c GROUP BY c.artifact`;
  sql += `${rows.select({ row: `'meta'`, n: "(SELECT COUNT(*) FROM steps)" })}`;
  return { sql, params: p.params };
}

/**
 * The same for a root column: the column walk (upstream along the edges into a column and the
 * dataset-wide edges into its version; downstream along the edges out of it), each edge walked with
 * its run, and the versions' datasets and the runs' operations and pipelines.
 * Rows: 'node' (id = artifact, field), 'edge' (id/field = near end, other/otherField = far end, runId),
 * 'art', 'run', 'meta' as above.
 */
export function columnImpactWalkStatement(provider: DatabaseProvider, o: { root: readonly [string, string]; upstream: boolean; maxDepth: number | null; budget: number; filters: LineageFilters }): Statement {
  if (!Number.isSafeInteger(o.budget) || o.budget < 1) throw new Error("columnImpactWalkStatement: budget must be a positive integer");
  const p = new StatementParams(provider);
  const f = o.filters;
  const lateral = provider === "postgres";
  const depth = o.maxDepth !== null;
  const at = o.upstream
    ? (w: string) => `e."targetId" = ${w}.artifact AND (e."targetField" = ${w}.field OR e."targetField" IS NULL)`
    : (w: string) => `e."sourceId" = ${w}.artifact AND e."sourceField" = ${w}.field`;
  const [farNode, farField] = o.upstream ? [`e."sourceId"`, `e."sourceField"`] : [`e."targetId"`, `e."targetField"`];
  let sql = `WITH RECURSIVE roots(artifact, field) AS (SELECT artifact, field FROM ${p.pairList([o.root])})`;
  sql += `, walk(artifact, field${depth ? ", depth" : ""}) AS (SELECT artifact, field${depth ? ", 0" : ""} FROM roots UNION SELECT ${farNode}, ${farField}${depth ? ", w.depth + 1" : ""} FROM walk w `;
  const bound = depth ? ` AND w.depth < ${o.maxDepth}` : "";
  // SQLite: the stop function on about one edge in 256 (statement-stop.ts).
  sql += lateral
    ? `CROSS JOIN LATERAL (SELECT e."sourceId", e."sourceField", e."targetId", e."targetField" FROM "ColumnEdge" e WHERE ${at("w")}${columnEdgeConditions(p, f, "e")} OFFSET 0) e WHERE w.field IS NOT NULL${bound}`
    : `JOIN "ColumnEdge" e ON ${at("w")} WHERE w.field IS NOT NULL AND ${stopCheckSql("e.id")}${bound}${columnEdgeConditions(p, f, "e")}${depth ? " ORDER BY 3" : ""} LIMIT ${o.budget}`;
  sql += `)`;
  sql += `, steps AS (SELECT * FROM walk${lateral ? ` LIMIT ${o.budget}` : ""})`;
  sql += `, reached(artifact, field) AS (SELECT DISTINCT artifact, field FROM steps)`;
  sql += `, walked AS (SELECT e.* FROM reached w JOIN "ColumnEdge" e ON ${at("w")} WHERE w.field IS NOT NULL${columnEdgeConditions(p, f, "e")})`;
  sql += `, runs(run) AS (SELECT DISTINCT "runId" FROM walked)`;
  const rows = new UnionRows(IMPACT_COLUMNS);
  sql += ` ${rows.select({ row: `'node'`, id: "m.artifact", field: "m.field" })} FROM reached m`;
  const [nearNode, nearField] = o.upstream ? [`e."targetId"`, `e."targetField"`] : [`e."sourceId"`, `e."sourceField"`];
  sql += `${rows.select({ row: `'edge'`, id: nearNode, field: nearField, other: farNode, otherField: farField, runId: `e."runId"` })} FROM walked e`;
  sql += `${rows.select({ row: `'art'`, id: "a.id", namespace: `a."datasetNamespace"`, name: `a."datasetName"` })} FROM (SELECT DISTINCT artifact FROM reached) m JOIN "Artifact" a ON a.id = m.artifact`;
  sql += `${rows.select({ row: `'run'`, id: "r.run", other: `x."operationId"`, pipeline: "x.pipeline" })} FROM runs r LEFT JOIN "Execution" x ON x."runId" = r.run`;
  sql += `${rows.select({ row: `'meta'`, n: "(SELECT COUNT(*) FROM steps)" })}`;
  return { sql, params: p.params };
}

import type { DatabaseProvider } from "../../db/database-url";
import type { Statement } from "../../db/sql-statement";
import { columnEdgeConditions, type LineageFilters } from "./lineage-filters";
import { ARTIFACT_SIDES, neighbourCount } from "./neighbour-sql";
import { StatementParams } from "./read-client";
import { UnionRows } from "./union-rows";

/**
 * Column-level graphs. A column's neighbours are the columns its column edges join it to:
 * upstream, the sources of the edges into it and of the dataset-wide edges into its version (a
 * filter, join or grouping shapes every column of a version); downstream, the targets of the edges
 * out of it — a column, or a whole version for a dataset-wide edge.
 */
const COLUMN_ROW_COLUMNS = {
  row: "TEXT",
  artifact: "TEXT",
  field: "TEXT",
  otherArtifact: "TEXT",
  otherField: "TEXT",
  runId: "TEXT",
  type: "TEXT",
  subtype: "TEXT",
  label: "TEXT",
  namespace: "TEXT",
  name: "TEXT",
  version: "TEXT",
  n: "BIGINT",
  up: "BIGINT",
  down: "BIGINT",
  masking: "BOOLEAN",
} as const;
export type ColumnRowColumn = keyof typeof COLUMN_ROW_COLUMNS;
export const COLUMN_ROW_COLUMN_NAMES = Object.keys(COLUMN_ROW_COLUMNS) as ColumnRowColumn[];

/** Distinct upstream / downstream neighbours of the column (a, f) (SQL expressions for its artifact and field). */
function columnCount(p: StatementParams, f: LineageFilters, side: "up" | "down", artifact: string, field: string): string {
  return side === "up"
    ? `(SELECT COUNT(*) FROM (SELECT DISTINCT e."sourceId", e."sourceField" FROM "ColumnEdge" e WHERE e."targetId" = ${artifact} AND (e."targetField" = ${field} OR e."targetField" IS NULL)${columnEdgeConditions(p, f, "e")}) nbs)`
    : `(SELECT COUNT(*) FROM (SELECT DISTINCT e."targetId", e."targetField" FROM "ColumnEdge" e WHERE e."sourceId" = ${artifact} AND e."sourceField" = ${field}${columnEdgeConditions(p, f, "e")}) nbs)`;
}

const edgeValues = {
  artifact: `e."sourceId"`,
  field: `e."sourceField"`,
  otherArtifact: `e."targetId"`,
  otherField: `e."targetField"`,
  runId: `e."runId"`,
  type: "e.type",
  subtype: "e.subtype",
  masking: "e.masking",
  n: "e.id",
};

/**
 * The columns of these dataset versions (in this order of preference, at most `limit` + 1), with
 * their neighbour counts, and the column edges among the versions. Rows: 'col' (artifact, field,
 * n = position, up, down), 'edge' (artifact/field → otherArtifact/otherField, runId, type, subtype,
 * masking, n = id).
 */
export function datasetColumnsStatement(provider: DatabaseProvider, o: { artifacts: readonly string[]; limit: number; filters: LineageFilters }): Statement {
  if (!Number.isSafeInteger(o.limit) || o.limit < 0) throw new Error("datasetColumnsStatement: limit must be a non-negative integer");
  const p = new StatementParams(provider);
  const f = o.filters;
  let sql = `WITH ds(node, ord) AS (SELECT value, ord FROM ${p.indexedList(o.artifacts)})`;
  sql +=
    `, named AS (SELECT c."artifactId" AS artifact, c.field AS field, c.position AS position FROM ds JOIN "DatasetColumn" c ON c."artifactId" = ds.node ` +
    `UNION ALL SELECT e."sourceId", e."sourceField", NULL FROM ds JOIN "ColumnEdge" e ON e."sourceId" = ds.node WHERE 1 = 1${columnEdgeConditions(p, f, "e")} ` +
    `UNION ALL SELECT e."targetId", e."targetField", NULL FROM ds JOIN "ColumnEdge" e ON e."targetId" = ds.node WHERE e."targetField" IS NOT NULL${columnEdgeConditions(p, f, "e")})`;
  sql += `, cols AS (SELECT c.artifact, c.field, MIN(c.position) AS position, MIN(ds.ord) AS ord FROM named c JOIN ds ON ds.node = c.artifact GROUP BY c.artifact, c.field)`;
  sql += `, shown AS (SELECT artifact, field, position FROM cols ORDER BY ord, CASE WHEN position IS NULL THEN 1 ELSE 0 END, position, field LIMIT ${o.limit + 1})`;
  const rows = new UnionRows(COLUMN_ROW_COLUMNS);
  sql += ` ${rows.select({ row: `'col'`, artifact: "s.artifact", field: "s.field", n: "s.position", up: columnCount(p, f, "up", "s.artifact", "s.field"), down: columnCount(p, f, "down", "s.artifact", "s.field") })} FROM shown s`;
  sql += `${rows.select({ row: `'edge'`, ...edgeValues })} FROM ds JOIN "ColumnEdge" e ON e."sourceId" = ds.node WHERE e."targetId" IN (SELECT node FROM ds)${columnEdgeConditions(p, f, "e")}`;
  return { sql, params: p.params };
}

export interface ColumnWalkOptions {
  roots: readonly (readonly [string, string])[];
  up: boolean;
  down: boolean;
  depth: number;
  keep: number;
  budget: number;
  filters: LineageFilters;
}

/**
 * The column walk from root columns, in one statement: depth-bounded recursive walks upstream and
 * downstream (as the artifact walk: breadth-first, a row budget, the `keep` nearest per direction),
 * then for every member its counts and labels and the column edges among the members. A downstream
 * dataset-wide edge ends at a whole version (field null), which the walk does not leave.
 * Rows: 'root' (artifact, field: the roots that exist), 'up' / 'down' (artifact, field, n = hops),
 * 'member' (artifact, field, up, down, label and dataset of its version), 'edge', 'meta' (n = candidates
 * of the direction in `label`, up = walk rows).
 */
export function columnWalkStatement(provider: DatabaseProvider, o: ColumnWalkOptions): Statement {
  for (const [name, value] of [["depth", o.depth], ["keep", o.keep], ["budget", o.budget]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`columnWalkStatement: ${name} must be a non-negative integer, got ${value}`);
  }
  const p = new StatementParams(provider);
  const f = o.filters;
  const lateral = provider === "postgres";
  let sql = `WITH RECURSIVE roots(artifact, field) AS (SELECT artifact, field FROM ${p.pairList(o.roots)})`;
  const walk = (name: "up" | "down") => {
    const at =
      name === "up"
        ? (w: string) => `e."targetId" = ${w}.artifact AND (e."targetField" = ${w}.field OR e."targetField" IS NULL)`
        : (w: string) => `e."sourceId" = ${w}.artifact AND e."sourceField" = ${w}.field`;
    const [farNode, farField] = name === "up" ? [`e."sourceId"`, `e."sourceField"`] : [`e."targetId"`, `e."targetField"`];
    sql += `, ${name}(artifact, field, depth) AS (SELECT artifact, field, 0 FROM roots UNION SELECT ${farNode}, ${farField}, w.depth + 1 FROM ${name} w `;
    sql += lateral
      ? `CROSS JOIN LATERAL (SELECT e."sourceId", e."sourceField", e."targetId", e."targetField" FROM "ColumnEdge" e WHERE ${at("w")}${columnEdgeConditions(p, f, "e")} OFFSET 0) e WHERE w.depth < ${o.depth} AND w.field IS NOT NULL`
      : `JOIN "ColumnEdge" e ON ${at("w")} WHERE w.depth < ${o.depth} AND w.field IS NOT NULL${columnEdgeConditions(p, f, "e")} ORDER BY 3 LIMIT ${o.budget}`;
    sql += `)`;
    sql += `, ${name}steps AS (SELECT * FROM ${name}${lateral ? ` LIMIT ${o.budget}` : ""})`;
    sql += `, ${name}candidates AS (SELECT artifact, field, MIN(depth) AS depth FROM ${name}steps s WHERE depth > 0 AND NOT EXISTS (SELECT 1 FROM roots r WHERE r.artifact = s.artifact AND r.field = s.field) GROUP BY artifact, field)`;
    sql += `, ${name}kept AS (SELECT artifact, field, depth FROM ${name}candidates ORDER BY depth, artifact, field LIMIT ${o.keep})`;
  };
  if (o.up) walk("up");
  if (o.down) walk("down");
  const kept = [...(o.up ? ["SELECT artifact, field FROM upkept"] : []), ...(o.down ? ["SELECT artifact, field FROM downkept"] : [])];
  sql += `, members(artifact, field) AS (SELECT artifact, field FROM roots${kept.map((k) => ` UNION ${k}`).join("")})`;
  const rows = new UnionRows(COLUMN_ROW_COLUMNS);
  const exists = (artifact: string, field: string) =>
    `EXISTS (SELECT 1 FROM "DatasetColumn" c WHERE c."artifactId" = ${artifact} AND c.field = ${field}) OR ` +
    `EXISTS (SELECT 1 FROM "ColumnEdge" e WHERE e."sourceId" = ${artifact} AND e."sourceField" = ${field}) OR ` +
    `EXISTS (SELECT 1 FROM "ColumnEdge" e WHERE e."targetId" = ${artifact} AND e."targetField" = ${field})`;
  sql += ` ${rows.select({ row: `'root'`, artifact: "r.artifact", field: "r.field" })} FROM roots r WHERE ${exists("r.artifact", "r.field")}`;
  for (const name of ["up", "down"] as const) {
    if (!(name === "up" ? o.up : o.down)) continue;
    sql += `${rows.select({ row: `'${name}'`, artifact: "k.artifact", field: "k.field", n: "k.depth" })} FROM ${name}kept k`;
    sql += `${rows.select({ row: `'meta'`, label: `'${name}'`, n: `(SELECT COUNT(*) FROM (SELECT 1 AS one FROM ${name}candidates LIMIT ${o.keep + 1}) c)`, up: `(SELECT COUNT(*) FROM ${name}steps)` })}`;
  }
  // A member with a field is a column (column counts); without one, a whole version (its runs, as an artifact node).
  sql += rows.select({
    row: `'member'`,
    artifact: "m.artifact",
    field: "m.field",
    label: `a."originalName"`,
    namespace: `a."datasetNamespace"`,
    name: `a."datasetName"`,
    version: `a."datasetVersion"`,
    up: `CASE WHEN m.field IS NULL THEN ${neighbourCount(p, f, ARTIFACT_SIDES.up, "m.artifact")} ELSE ${columnCount(p, f, "up", "m.artifact", "m.field")} END`,
    down: `CASE WHEN m.field IS NULL THEN ${neighbourCount(p, f, ARTIFACT_SIDES.down, "m.artifact")} ELSE ${columnCount(p, f, "down", "m.artifact", "m.field")} END`,
  });
  sql += ` FROM members m LEFT JOIN "Artifact" a ON a.id = m.artifact`;
  // Edges among members: into a member column (or, dataset-wide, into its version), or into a member whole version.
  sql += `${rows.select({ row: `'edge'`, ...edgeValues })} FROM members s JOIN "ColumnEdge" e ON e."sourceId" = s.artifact AND e."sourceField" = s.field WHERE s.field IS NOT NULL`;
  sql += ` AND EXISTS (SELECT 1 FROM members t WHERE t.artifact = e."targetId" AND (t.field = e."targetField" OR e."targetField" IS NULL))${columnEdgeConditions(p, f, "e")}`;
  return { sql, params: p.params };
}

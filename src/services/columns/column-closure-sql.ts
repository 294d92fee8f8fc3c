import type { DatabaseProvider } from "../../db/database-url";
import { jsonListSelect } from "../../db/json-list";
import type { LineageDirection } from "../lineage";
import type { ColumnEdgeType } from "./column-records";
import { placeholders, type Statement } from "../../db/sql-statement";
import { stopCheckSql } from "../../db/statement-stop";

/**
 * The one recursive statement behind a column closure, portable between SQLite and PostgreSQL in
 * the way the artifact closure is (../lineage/closure-sql.ts): the same SQL except how each hop
 * reaches the edge index (a LATERAL fence on PostgreSQL) and where the budget is applied (LIMIT on
 * the recursive select in SQLite; a lazily read `steps` CTE in PostgreSQL).
 *
 * A node is (dataset version artifact, field). Field null stands for a whole dataset version: the
 * target of a dataset-wide edge (OpenLineage's columnLineage `dataset` list), which shapes every
 * column of it. So, walking
 *  - UPSTREAM from (T, f): every edge into (T, f), and every dataset-wide edge into T;
 *  - DOWNSTREAM from (S, f): every edge out of (S, f); from (T, null): every edge out of T.
 * Two walks, as for artifacts:
 *  - "reach": rows (node, field); UNION drops a node already walked, so each is expanded once — the
 *    cycle guard — and depths are found by the caller over the returned edges;
 *  - "depth": rows (node, field, depth) with depth < the bound; MIN(depth) is a node's distance.
 * `seeds` is one root or a list of artifacts whose columns (schema fields, fields edges name) all start
 * the walk (coverage walks from every output column of a namespace at once).
 * Result rows, told apart by "row": 'node' (id, field, n = depth or null), 'edge' (every edge whose
 * near end is a walked node: id/field = source, otherId/otherField = target, n = edge id, and its
 * details), 'meta' (n2 = walk rows produced, to tell a walk the budget cut).
 */
export interface ColumnClosureStatementOptions {
  mode: "reach" | "depth";
  seeds: { root: { artifactId: string; field: string } } | { artifactColumnsOf: readonly string[] };
  direction: LineageDirection;
  /** "depth" walks: hops the walk may take. */
  depthBound: number;
  /** Follow only edges of these types; null = both. */
  types: readonly ColumnEdgeType[] | null;
  /** Most walk rows (seeds included). */
  budget: number;
}

const COLUMN_TYPES = {
  row: "TEXT",
  id: "TEXT",
  field: "TEXT",
  otherId: "TEXT",
  otherField: "TEXT",
  n: "BIGINT",
  n2: "BIGINT",
  runId: "TEXT",
  type: "TEXT",
  subtype: "TEXT",
  description: "TEXT",
  masking: "BOOLEAN",
  createdAt: "TIMESTAMP(3)",
} as const;
type Column = keyof typeof COLUMN_TYPES;
const COLUMNS = Object.keys(COLUMN_TYPES) as Column[];

export function columnClosureStatement(provider: DatabaseProvider, o: ColumnClosureStatementOptions): Statement {
  for (const [name, value] of [["depthBound", o.depthBound], ["budget", o.budget]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`columnClosureStatement: ${name} must be a non-negative integer, got ${value}`);
  }
  const { params, bind } = placeholders(provider);
  const depth = o.mode === "depth";
  const upstream = o.direction === "UPSTREAM";
  const lateral = provider === "postgres";
  // The edges at a walked node w (alias of the walk or member table), and the far end they lead to.
  const at = (w: string) =>
    upstream ? `e."targetId" = ${w}.node AND (e."targetField" = ${w}.field OR e."targetField" IS NULL)` : `e."sourceId" = ${w}.node AND (${w}.field IS NULL OR e."sourceField" = ${w}.field)`;
  const farNode = upstream ? `e."sourceId"` : `e."targetId"`;
  const farField = upstream ? `e."sourceField"` : `e."targetField"`;
  // bounded: the distinct values of ColumnEdgeType (two).
  const typeFilter = () => (o.types ? ` AND e.type IN (${[...new Set(o.types)].map((t) => bind(t)).join(", ")})` : "");

  let seed: string;
  if ("root" in o.seeds) {
    seed = `SELECT CAST(${bind(o.seeds.root.artifactId)} AS TEXT), CAST(${bind(o.seeds.root.field)} AS TEXT)${depth ? ", 0" : ""}`;
  } else {
    // Any number of versions (a namespace's outputs): bound as one JSON list.
    const ids = JSON.stringify(o.seeds.artifactColumnsOf);
    seed =
      `SELECT seed.node, seed.field${depth ? ", 0" : ""} FROM (SELECT c."artifactId" AS node, c.field AS field FROM "DatasetColumn" c WHERE c."artifactId" IN (${jsonListSelect(provider, bind(ids), o.seeds.artifactColumnsOf.length)}) ` +
      `UNION SELECT s."targetId", s."targetField" FROM "ColumnEdge" s WHERE s."targetId" IN (${jsonListSelect(provider, bind(ids), o.seeds.artifactColumnsOf.length)}) AND s."targetField" IS NOT NULL ` +
      `UNION SELECT s."sourceId", s."sourceField" FROM "ColumnEdge" s WHERE s."sourceId" IN (${jsonListSelect(provider, bind(ids), o.seeds.artifactColumnsOf.length)})) seed`;
  }
  let sql = `WITH RECURSIVE walk(node, field${depth ? ", depth" : ""}) AS (${seed} UNION `;
  sql += `SELECT ${farNode}, ${farField}${depth ? ", w.depth + 1" : ""} FROM walk w `;
  if (lateral) {
    sql += `CROSS JOIN LATERAL (SELECT e."sourceId", e."sourceField", e."targetId", e."targetField" FROM "ColumnEdge" e WHERE ${at("w")}${typeFilter()} OFFSET 0) e`;
    if (depth) sql += ` WHERE w.depth < ${o.depthBound}`;
  } else {
    // The stop function on about one edge in 256, here and in the edges among the members (statement-stop.ts, as the artifacts' walk: closure-sql.ts).
    sql += `JOIN "ColumnEdge" e ON ${at("w")}${typeFilter()} WHERE ${stopCheckSql("e.id")}`;
    if (depth) sql += ` AND w.depth < ${o.depthBound}`;
  }
  sql += provider === "sqlite" ? `${depth ? " ORDER BY 3" : ""} LIMIT ${o.budget}), ` : `), `;
  sql += `steps AS (SELECT * FROM walk${provider === "sqlite" ? "" : ` LIMIT ${o.budget}`}), `;
  sql += depth
    ? `members AS (SELECT node, field, MIN(depth) AS depth FROM steps GROUP BY node, field) `
    : `members AS (SELECT DISTINCT node, field, CAST(NULL AS INTEGER) AS depth FROM steps) `;

  let branches = 0;
  const select = (values: Partial<Record<Column, string>>): string =>
    (branches++ === 0 ? "SELECT " : " UNION ALL SELECT ") +
    COLUMNS.map((column) => {
      const value = values[column];
      if (branches === 1) return value === undefined ? `CAST(NULL AS ${COLUMN_TYPES[column]}) AS "${column}"` : `${value} AS "${column}"`;
      return value ?? "NULL";
    }).join(", ");
  sql += select({ row: `'node'`, id: "m.node", field: "m.field", n: "m.depth" });
  sql += ` FROM members m`;
  sql += select({
    row: `'edge'`,
    id: `e."sourceId"`,
    field: `e."sourceField"`,
    otherId: `e."targetId"`,
    otherField: `e."targetField"`,
    n: "e.id",
    runId: `e."runId"`,
    type: "e.type",
    subtype: "e.subtype",
    description: "e.description",
    masking: "e.masking",
    createdAt: `e."createdAt"`,
  });
  sql += lateral
    ? ` FROM members m CROSS JOIN LATERAL (SELECT * FROM "ColumnEdge" e WHERE ${at("m")}${typeFilter()} OFFSET 0) e`
    : ` FROM members m JOIN "ColumnEdge" e ON ${at("m")}${typeFilter()} WHERE ${stopCheckSql("e.id")}`;
  sql += select({ row: `'meta'`, n2: "(SELECT COUNT(*) FROM steps)" });
  return { sql, params };
}

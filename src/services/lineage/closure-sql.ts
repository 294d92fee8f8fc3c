import type { DatabaseProvider } from "../../db/database-url";
import { jsonListSelect } from "../../db/json-list";
import type { LineageDirection } from "./lineage-records";
import { placeholders, type Statement } from "../../db/sql-statement";
import { stopCheckSql } from "../../db/statement-stop";

/**
 * The one recursive statement behind a closure (seed "Querying provenance": transitive walks run
 * in the database, not one round trip per hop). The SQL is the same on SQLite and PostgreSQL
 * except for how each hop reaches the edge index (a LATERAL fence on PostgreSQL, see below) and
 * where the walk's budget is applied:
 *  - SQLite: LIMIT on the recursive select caps the rows ever added to the walk;
 *  - PostgreSQL: a recursive CTE is evaluated lazily, only as far as its reader fetches, so the
 *    `steps` CTE reading at most `budget` rows stops the recursion there.
 * Both engines produce a walk's rows breadth-first (PostgreSQL: one iteration per hop; SQLite:
 * ORDER BY depth, or without it its FIFO queue — SQLite's documented current behaviour, which
 * test/unit/closure-property.test.ts pins), so any prefix of the rows holds the nearest nodes.
 *
 * Two walks, chosen by ClosurePlan.mode:
 *  - "reach": rows are (node, type). UNION drops a node already walked, so every reachable node
 *    is expanded once: linear in the edges walked and safe on cycles (a csv → parquet → csv round
 *    trip yields the same content-addressed id twice). Depths are computed by the caller with a
 *    breadth-first pass over the returned edges, and the caller cuts the result to `first`.
 *  - "depth": rows are (node, type, depth), the depth bounded by a small maxDepth. A node may be
 *    expanded once per depth it is reached at, which the bound keeps small; MIN(depth) is its
 *    distance, and the statement itself keeps the nearest `first` (by depth, then id).
 *
 * One result set carries everything, told apart by the "row" column:
 *  - 'root': the root artifact (absent when it does not exist), with its record if asked for;
 *  - 'node': the walked nodes ("reach") or the kept ones ("depth"), with records if asked for;
 *  - 'edge': "depth": the edges among the kept nodes and the root; "reach": every edge whose near
 *    end (target when walking upstream) is walked — its far end was walked too, unless the budget
 *    cut the walk first, and the caller drops those;
 *  - 'meta': walk rows produced (n2) and, for "depth", candidate nodes capped at first + 1 (n).
 * Numbers are inlined (validated integers) so the planner sees them; strings and dates are bound.
 */
export interface ClosureStatementOptions {
  mode: "reach" | "depth";
  rootId: string;
  direction: LineageDirection;
  /** "depth" walks only: hops from the root the walk may take. */
  depthBound: number;
  /** Keep only nodes whose type (from the denormalized edge types) is one of these; null = all. */
  artifactTypes: readonly string[] | null;
  stepBoundaryOnly: boolean;
  /** Ignore edges recorded after this instant. Through raw better-sqlite3, pass the stored text form. */
  asOf: Date | string | null;
  /** "depth" walks only: nodes to keep besides the root. */
  first: number;
  /** Most rows the walk may produce (the root's row included). */
  budget: number;
  /** Join the Artifact table for the nodes and the root (only when a client asks for more than ids). */
  withArtifacts: boolean;
  /** Read each edge's kind, groupId, runId, … (only when a client asks; ids alone come from the index). */
  edgeDetails: boolean;
}

/** Every column a closure row may carry, with the type PostgreSQL must see in the first branch of the UNION. */
const COLUMN_TYPES = {
  row: "TEXT",
  id: "TEXT",
  otherId: "TEXT",
  type: "TEXT",
  n: "BIGINT",
  n2: "BIGINT",
  kind: "TEXT",
  groupId: "TEXT",
  runId: "TEXT",
  stepBoundary: "BOOLEAN",
  sourceType: "TEXT",
  targetType: "TEXT",
  createdAt: "TIMESTAMP(3)",
  artifactType: "TEXT",
  contentHash: "TEXT",
  originalName: "TEXT",
  metadata: "TEXT",
  datasetNamespace: "TEXT",
  datasetName: "TEXT",
  datasetVersion: "TEXT",
  artifactCreatedAt: "TIMESTAMP(3)",
} as const;
type Column = keyof typeof COLUMN_TYPES;

const EDGE_DETAIL_COLUMNS: Column[] = ["kind", "groupId", "runId", "stepBoundary", "sourceType", "targetType", "createdAt"];
const ARTIFACT_COLUMNS: Column[] = ["artifactType", "contentHash", "originalName", "metadata", "datasetNamespace", "datasetName", "datasetVersion", "artifactCreatedAt"];
const artifactColumnsOf = (alias: string): Partial<Record<Column, string>> => ({
  artifactType: `${alias}."artifactType"`,
  contentHash: `${alias}."contentHash"`,
  originalName: `${alias}."originalName"`,
  metadata: `${alias}."metadata"`,
  datasetNamespace: `${alias}."datasetNamespace"`,
  datasetName: `${alias}."datasetName"`,
  datasetVersion: `${alias}."datasetVersion"`,
  artifactCreatedAt: `${alias}."createdAt"`,
});

export function closureStatement(provider: DatabaseProvider, o: ClosureStatementOptions): Statement {
  for (const [name, value] of [["depthBound", o.depthBound], ["first", o.first], ["budget", o.budget]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`closureStatement: ${name} must be a non-negative integer, got ${value}`);
  }
  // Placeholders are numbered as they are created, so the fragments are built in text order.
  const { params, bind } = placeholders(provider);
  const upstream = o.direction === "UPSTREAM";
  const near = upstream ? `"targetId"` : `"sourceId"`;
  const far = upstream ? `"sourceId"` : `"targetId"`;
  const farType = upstream ? `"sourceType"` : `"targetType"`;
  const edgeFilter = (alias: string): string =>
    (o.stepBoundaryOnly ? ` AND ${alias}."stepBoundary" = TRUE` : "") + (o.asOf !== null ? ` AND ${alias}."createdAt" <= ${bind(o.asOf)}` : "");
  const depth = o.mode === "depth";
  const columns: Column[] = ["row", "id", "otherId", "type", "n", "n2", ...(o.edgeDetails ? EDGE_DETAIL_COLUMNS : []), ...(o.withArtifacts ? ARTIFACT_COLUMNS : [])];
  let branches = 0;
  // One SELECT of the result: the listed columns, NULL for the others (typed in the first branch).
  const select = (values: Partial<Record<Column, string>>): string =>
    (branches++ === 0 ? "SELECT " : " UNION ALL SELECT ") +
    columns
      .map((column) => {
        const value = values[column];
        if (branches === 1) return `${value ?? "NULL"} AS "${column}"`.replace(/^NULL AS/, `CAST(NULL AS ${COLUMN_TYPES[column]}) AS`);
        return value ?? "NULL";
      })
      .join(", ");

  // Each hop looks up the edges at a node through the index that starts with the near end.
  // PostgreSQL gets it as a LATERAL subquery behind an OFFSET 0 fence, so it probes the index per
  // node whatever its statistics say (on a freshly written table it would otherwise re-scan the
  // whole edge table at every hop); SQLite's nested loop does so by itself, and calls the stop
  // function on about one edge in 256, so that in a heavy-read thread a walk of millions ends itself
  // when its client goes away or its budget runs out (statement-stop.ts).
  const lateral = provider === "postgres";
  let sql =
    `WITH RECURSIVE walk(node, "nodeType"${depth ? ", depth" : ""}) AS (` +
    `SELECT CAST(${bind(o.rootId)} AS TEXT), CAST(NULL AS TEXT)${depth ? ", 0" : ""} ` +
    `UNION ` +
    `SELECT e.${far}, e.${farType}${depth ? ", w.depth + 1" : ""} FROM walk w ` +
    (lateral ? `CROSS JOIN LATERAL (SELECT e.${far}, e.${farType} FROM "ProvenanceEdge" e WHERE e.${near} = w.node` : `JOIN "ProvenanceEdge" e ON e.${near} = w.node WHERE ${stopCheckSql("e.id")}`);
  // The root is row one already: a cycle back to it would only add a duplicate under another type.
  sql += ` AND e.${far} <> ${bind(o.rootId)}`;
  sql += edgeFilter("e");
  if (lateral) sql += ` OFFSET 0) e`;
  if (depth) sql += `${lateral ? " WHERE" : " AND"} w.depth < ${o.depthBound}`;
  sql += provider === "sqlite" ? `${depth ? " ORDER BY 3" : ""} LIMIT ${o.budget}), ` : `), `;
  sql += `steps AS (SELECT * FROM walk${provider === "sqlite" ? "" : ` LIMIT ${o.budget}`}), `;
  if (depth) {
    sql += `reached AS (SELECT node, MIN("nodeType") AS "nodeType", MIN(depth) AS depth FROM steps GROUP BY node), `;
    sql += `candidates AS (SELECT node, "nodeType", depth FROM reached WHERE node <> ${bind(o.rootId)}`;
    if (o.artifactTypes) sql += ` AND "nodeType" IN (${jsonListSelect(provider, bind(JSON.stringify(o.artifactTypes)), o.artifactTypes.length)})`;
    sql += `), kept AS (SELECT node, "nodeType", depth FROM candidates ORDER BY depth, node LIMIT ${o.first}), `;
  } else {
    // UNION kept each (node, type) once; the caller merges the rare node recorded under two types.
    sql += `kept AS (SELECT node, "nodeType", CAST(NULL AS INTEGER) AS depth FROM steps WHERE node <> ${bind(o.rootId)}), `;
  }
  sql += `members AS (SELECT node FROM kept UNION ALL SELECT CAST(${bind(o.rootId)} AS TEXT)) `;

  sql += select({ row: `'root'`, id: "a.id", type: `a."artifactType"`, ...(o.withArtifacts ? artifactColumnsOf("a") : {}) });
  sql += ` FROM "Artifact" a WHERE a.id = ${bind(o.rootId)}`;
  sql += select({ row: `'node'`, id: "k.node", type: `k."nodeType"`, n: "k.depth", ...(o.withArtifacts ? artifactColumnsOf("a") : {}) });
  sql += ` FROM kept k${o.withArtifacts ? ` LEFT JOIN "Artifact" a ON a.id = k.node` : ""}`;
  sql += select({
    row: `'edge'`,
    id: `e."sourceId"`,
    otherId: `e."targetId"`,
    n: "e.id",
    ...(o.edgeDetails
      ? {
          kind: "e.kind",
          groupId: `e."groupId"`,
          runId: `e."runId"`,
          stepBoundary: `e."stepBoundary"`,
          sourceType: `e."sourceType"`,
          targetType: `e."targetType"`,
          createdAt: `e."createdAt"`,
        }
      : {}),
  });
  // Each member, then its edges through the index that starts with the near end — never a scan
  // of the edge table (SQLite: CROSS JOIN fixes the join order, and the stop function is called on
  // about one edge in 256, as in the walk; PostgreSQL: the LATERAL fence).
  // A reach walk expanded every member, so the far end of such an edge is a member too (the
  // caller drops edges to nodes a cut left out); a depth walk's kept nodes are checked here.
  if (lateral) {
    sql += ` FROM members t CROSS JOIN LATERAL (SELECT * FROM "ProvenanceEdge" e WHERE e.${near} = t.node`;
    sql += edgeFilter("e");
    sql += ` OFFSET 0) e${depth ? ` WHERE e.${far} IN (SELECT node FROM members)` : ""}`;
  } else {
    sql += ` FROM members t CROSS JOIN "ProvenanceEdge" e${depth ? " CROSS JOIN members s" : ""} WHERE e.${near} = t.node AND ${stopCheckSql("e.id")}${depth ? ` AND s.node = e.${far}` : ""}`;
    sql += edgeFilter("e");
  }
  sql += select({
    row: `'meta'`,
    n: depth ? `(SELECT COUNT(*) FROM (SELECT 1 AS one FROM candidates LIMIT ${o.first + 1}) c)` : "NULL",
    n2: "(SELECT COUNT(*) FROM steps)",
  });
  return { sql, params };
}

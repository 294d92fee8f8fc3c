import type { DatabaseProvider } from "../../db/database-url";
import { jsonListSelect } from "../../db/json-list";
import { placeholders } from "../../db/sql-statement";

/**
 * The one recursive statement behind an erasure plan (seed "Erasure is a forward closure over the
 * graph, not a DELETE"): from every artifact holding the subject, forward along wasDerivedFrom edges
 * and column edges — DIRECT and INDIRECT alike (an indirect edge is no disclosure, but it is a
 * dependency, and erasure honours it) — to every derived artifact. UNION keeps each artifact once
 * (the cycle guard); the walk stops at `budget` rows. Portable like the closures: SQLite walks with
 * one recursive select per edge table, PostgreSQL with one over a LATERAL union.
 *
 * Result rows: 'node' (id: a walked artifact), 'edge' (id → otherId: a derivation between walked
 * artifacts, once per pair whichever table holds it), 'meta' (n: walk rows).
 */
export function erasureClosureStatement(provider: DatabaseProvider, roots: readonly string[], budget: number): { sql: string; params: unknown[] } {
  if (!Number.isSafeInteger(budget) || budget < 1) throw new Error(`erasureClosureStatement: budget must be a positive integer, got ${budget}`);
  const { params, bind } = placeholders(provider);
  // Every artifact holding the subject (any number): one JSON list.
  let sql = `WITH RECURSIVE walk(node) AS (SELECT a.id FROM "Artifact" a WHERE a.id IN (${jsonListSelect(provider, bind(JSON.stringify(roots)), roots.length)})`;
  if (provider === "sqlite") {
    sql += ` UNION SELECT p."targetId" FROM walk w JOIN "ProvenanceEdge" p ON p."sourceId" = w.node`;
    sql += ` UNION SELECT e."targetId" FROM walk w JOIN "ColumnEdge" e ON e."sourceId" = w.node`;
    sql += ` LIMIT ${budget}), steps AS (SELECT * FROM walk), `;
  } else {
    sql +=
      ` UNION SELECT s.node FROM walk w CROSS JOIN LATERAL (` +
      `SELECT p."targetId" AS node FROM "ProvenanceEdge" p WHERE p."sourceId" = w.node ` +
      `UNION ALL SELECT e."targetId" FROM "ColumnEdge" e WHERE e."sourceId" = w.node OFFSET 0) s` +
      `), steps AS (SELECT * FROM walk LIMIT ${budget}), `;
  }
  sql += `members AS (SELECT DISTINCT node FROM steps), `;
  sql += `pairs AS (SELECT p."sourceId" AS s, p."targetId" AS t FROM members m JOIN "ProvenanceEdge" p ON p."sourceId" = m.node UNION SELECT e."sourceId", e."targetId" FROM members m JOIN "ColumnEdge" e ON e."sourceId" = m.node) `;
  sql += `SELECT 'node' AS "row", m.node AS id, CAST(NULL AS TEXT) AS "otherId", CAST(NULL AS BIGINT) AS n FROM members m`;
  sql += ` UNION ALL SELECT 'edge', x.s, x.t, NULL FROM pairs x`;
  sql += ` UNION ALL SELECT 'meta', NULL, NULL, (SELECT COUNT(*) FROM steps)`;
  return { sql, params };
}

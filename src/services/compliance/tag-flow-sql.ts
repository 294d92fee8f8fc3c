import type { DatabaseProvider } from "../../db/database-url";
import type { Statement } from "../../db/sql-statement";

/**
 * The one recursive statement behind each hop set of a tag flow (seed "Policy travels along the
 * same edges"): from its seeds, tags walk downstream at most HOPS_PER_STATEMENT hops, and every node
 * reached keeps its best holding — the nearest origin, ties to the oldest assignment — written by
 * the same statement (INSERT … SELECT, an upsert that only ever moves a holding nearer). Portable
 * between SQLite and PostgreSQL like the closures (../lineage/closure-sql.ts): SQLite walks with
 * three recursive selects (one per kind of edge), PostgreSQL with one whose edges come from a
 * LATERAL union (it allows one recursive reference).
 *
 * A walk row is (kind, node, field, tag, origin, depth, hop). From a
 *  - COLUMN (A, f): each column edge out of (A, f), DIRECT or INDIRECT, to (B, g) — or to the whole
 *    version B (VERSION) when it is dataset-wide;
 *  - VERSION A: each column edge out of any column of A, except out of a column where the tag was
 *    downgraded (a whole version's tag reaches its columns, and a downgrade stops it at one);
 *  - ARTIFACT A: each wasDerivedFrom edge out of A.
 * A step is not taken into a node where the tag was downgraded (the barrier), nor into one that
 * already holds the tag at least as near (so stored, consistent parts are not walked again). The
 * hop bound is the cycle guard (UNION keeps the walk finite); nodes the last hop reached are marked
 * `frontier` with the statement's pass so the next statement continues from them.
 */
export const HOPS_PER_STATEMENT = 32;

export type TagFlowSeeds =
  /** Assignments: each holds its tag at its node, depth 0. */
  | { assignments: readonly number[] }
  /** Every assignment of these tags (a tag derived afresh). */
  | { tagsOf: readonly string[] }
  /** The holdings of these nodes (the near ends of new lineage). */
  | { nodes: readonly { nodeKind: string; artifactId: string; field: string }[] }
  /** The holdings a previous statement's last hop reached. */
  | { frontier: number };

export function tagFlowStatement(provider: DatabaseProvider, seeds: TagFlowSeeds, pass: number, hops: number = HOPS_PER_STATEMENT): Statement {
  for (const [name, value] of [["pass", pass], ["hops", hops]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`tagFlowStatement: ${name} must be a positive integer, got ${value}`);
  }
  const params: unknown[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return provider === "sqlite" ? "?" : `$${params.length}`;
  };

  let seed: string;
  if ("assignments" in seeds) {
    seed = `SELECT a."nodeKind", a."artifactId", a.field, a.tag, a.id, 0, 0 FROM "PolicyTagAssignment" a WHERE a.id IN (${list(seeds.assignments, bind)})`;
  } else if ("tagsOf" in seeds) {
    seed = `SELECT a."nodeKind", a."artifactId", a.field, a.tag, a.id, 0, 0 FROM "PolicyTagAssignment" a WHERE a.tag IN (${list(seeds.tagsOf, bind)})`;
  } else if ("nodes" in seeds) {
    const values = seeds.nodes.length > 0 ? seeds.nodes.map((n) => `(${bind(n.nodeKind)}, ${bind(n.artifactId)}, ${bind(n.field)})`).join(", ") : `(${bind("")}, ${bind("")}, ${bind("")})`;
    seed = `SELECT h."nodeKind", h."artifactId", h.field, h.tag, h."originId", h.depth, 0 FROM "PolicyTagHolding" h WHERE (h."nodeKind", h."artifactId", h.field) IN (VALUES ${values})`;
  } else {
    seed = `SELECT h."nodeKind", h."artifactId", h.field, h.tag, h."originId", h.depth, 0 FROM "PolicyTagHolding" h WHERE h.frontier = ${bind(seeds.frontier)}`;
  }

  // A far node (kind, id, field) the step may enter: not downgraded for the tag, not held as near already.
  const mayEnter = (kind: string, id: string, field: string) =>
    `NOT EXISTS (SELECT 1 FROM "PolicyTagDowngrade" d WHERE d."nodeKind" = ${kind} AND d."artifactId" = ${id} AND d.field = ${field} AND d.tag = w.tag) ` +
    `AND NOT EXISTS (SELECT 1 FROM "PolicyTagHolding" h WHERE h."nodeKind" = ${kind} AND h."artifactId" = ${id} AND h.field = ${field} AND h.tag = w.tag ` +
    `AND (h.depth < w.depth + 1 OR (h.depth = w.depth + 1 AND h."originId" <= w.origin)))`;
  const columnTarget = (e: string) => ({ kind: `CASE WHEN ${e}."targetField" IS NULL THEN 'VERSION' ELSE 'COLUMN' END`, id: `${e}."targetId"`, field: `COALESCE(${e}."targetField", '')` });
  const notDowngradedSource = (e: string) => `NOT EXISTS (SELECT 1 FROM "PolicyTagDowngrade" s WHERE s."nodeKind" = 'COLUMN' AND s."artifactId" = ${e}."sourceId" AND s.field = ${e}."sourceField" AND s.tag = w.tag)`;
  const next = (far: { kind: string; id: string; field: string }) => `SELECT ${far.kind}, ${far.id}, ${far.field}, w.tag, w.origin, w.depth + 1, w.hop + 1 FROM walk w`;

  let sql = `WITH RECURSIVE walk(kind, node, field, tag, origin, depth, hop) AS (${seed}`;
  if (provider === "sqlite") {
    const c = columnTarget("e");
    sql += ` UNION ${next(c)} JOIN "ColumnEdge" e ON e."sourceId" = w.node AND e."sourceField" = w.field WHERE w.kind = 'COLUMN' AND w.hop < ${hops} AND ${mayEnter(c.kind, c.id, c.field)}`;
    sql += ` UNION ${next(c)} JOIN "ColumnEdge" e ON e."sourceId" = w.node WHERE w.kind = 'VERSION' AND w.hop < ${hops} AND ${notDowngradedSource("e")} AND ${mayEnter(c.kind, c.id, c.field)}`;
    const a = { kind: `'ARTIFACT'`, id: `p."targetId"`, field: `''` };
    sql += ` UNION ${next(a)} JOIN "ProvenanceEdge" p ON p."sourceId" = w.node WHERE w.kind = 'ARTIFACT' AND w.hop < ${hops} AND ${mayEnter(a.kind, a.id, a.field)}`;
  } else {
    const c = columnTarget("e");
    // Each branch probes its edge index per walked row (the LATERAL fence, as in the closures).
    sql +=
      ` UNION ${next({ kind: "s.kind", id: "s.node", field: "s.field" })} CROSS JOIN LATERAL (` +
      `SELECT ${c.kind} AS kind, ${c.id} AS node, ${c.field} AS field FROM "ColumnEdge" e WHERE w.kind = 'COLUMN' AND e."sourceId" = w.node AND e."sourceField" = w.field ` +
      `UNION ALL SELECT ${c.kind}, ${c.id}, ${c.field} FROM "ColumnEdge" e WHERE w.kind = 'VERSION' AND e."sourceId" = w.node AND ${notDowngradedSource("e")} ` +
      `UNION ALL SELECT 'ARTIFACT', p."targetId", '' FROM "ProvenanceEdge" p WHERE w.kind = 'ARTIFACT' AND p."sourceId" = w.node OFFSET 0) s ` +
      `WHERE w.hop < ${hops} AND ${mayEnter("s.kind", "s.node", "s.field")}`;
  }
  sql += `), best AS (SELECT kind, node, field, tag, origin, depth, hop, ROW_NUMBER() OVER (PARTITION BY kind, node, field, tag ORDER BY depth, origin, hop) AS rn FROM walk) `;
  sql += `INSERT INTO "PolicyTagHolding" ("nodeKind", "artifactId", field, tag, "originId", depth, frontier) `;
  sql += `SELECT kind, node, field, tag, origin, depth, CASE WHEN hop = ${hops} THEN CAST(${bind(pass)} AS INTEGER) ELSE NULL END FROM best WHERE rn = 1 `;
  sql += `ON CONFLICT ("nodeKind", "artifactId", field, tag) DO UPDATE SET "originId" = excluded."originId", depth = excluded.depth, frontier = excluded.frontier `;
  sql += `WHERE excluded.depth < "PolicyTagHolding".depth OR (excluded.depth = "PolicyTagHolding".depth AND excluded."originId" < "PolicyTagHolding"."originId")`;
  return { sql, params };
}

function list(values: readonly (string | number)[], bind: (value: unknown) => string): string {
  // IN () is not SQL; a list that matches nothing keeps the statement valid.
  return values.length > 0 ? values.map((v) => bind(v)).join(", ") : "NULL";
}

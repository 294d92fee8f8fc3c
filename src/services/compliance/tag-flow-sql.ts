import type { DatabaseProvider } from "../../db/database-url";
import { jsonListSelect } from "../../db/json-list";
import { placeholders, type Statement } from "../../db/sql-statement";

/**
 * The one recursive statement behind each hop set of a tag flow (docs: "Policy tags and how they
 * propagate"): from its seeds, tags walk downstream at most HOPS_PER_STATEMENT hops, and every
 * node reached keeps its best holding — the nearest origin, ties to the oldest assignment, then to
 * a path that crosses no opaque step — written by the same statement (INSERT … SELECT, an upsert
 * that only ever moves a holding to a better one). Portable between SQLite and PostgreSQL like the
 * closures (../lineage/closure-sql.ts): SQLite walks with one recursive select per kind of step,
 * PostgreSQL with one whose edges come from a LATERAL union (it allows one recursive reference).
 *
 * A walk row is (kind, node, field, tag, origin, depth, hop, opaque). From a
 *  - COLUMN (A, f): each column edge out of (A, f), DIRECT or INDIRECT, to (B, g) — or to the whole
 *    version B (VERSION) when it is dataset-wide;
 *  - VERSION A: each column edge out of any column of A, except out of a column where the tag was
 *    downgraded (a whole version's tag reaches its columns, and a downgrade stops it at one);
 *  - ARTIFACT A: each wasDerivedFrom edge out of A;
 *  - COLUMN or VERSION of A, through an opaque step: each wasDerivedFrom edge A → B whose run
 *    reported no column lineage into B, to the whole version B (conservative propagation: where
 *    column lineage is missing, the output holds every tag of its inputs), `opaque` from then on.
 * A step is not taken into a node where the tag was downgraded (the barrier; an artifact's
 * downgrade bars its version-wide holding too), nor into one that already holds the tag at least
 * as well (so stored, consistent parts are not walked again). The hop bound is the cycle guard
 * (UNION keeps the walk finite); nodes the last hop reached are marked `frontier` with the
 * statement's pass so the next statement continues from them.
 *
 * Seeds: assignments hold their tag at their node (a DATASET_COLUMN assignment at that column of
 * every version of its dataset); nodes given as near ends seed their holdings — an ARTIFACT node
 * every holding on the artifact, of any level (each may cross an opaque step out of it).
 */
export const HOPS_PER_STATEMENT = 32;

export type TagFlowSeeds =
  /** Assignments: each holds its tag at its node(s), depth 0. */
  | { assignments: readonly number[] }
  /** Every assignment of these tags (a tag derived afresh). */
  | { tagsOf: readonly string[] }
  /** The holdings of these nodes (the near ends of new lineage). */
  | { nodes: readonly { nodeKind: string; artifactId: string; field: string }[] }
  /** The holdings a previous statement's last hop reached. */
  | { frontier: number };

const WALK_COLUMNS = `"nodeKind", "artifactId", field, tag, "originId", depth`;
/** 1 when the holding row `h` was reached through an opaque step (a boolean column on PostgreSQL, 0/1 on SQLite). */
const opaqueOf = (h: string) => `CASE WHEN ${h}.opaque THEN 1 ELSE 0 END`;

/**
 * The assignments `where` selects (a condition over alias a, made once per branch so its values are
 * bound in order), each as the node(s) holding it at depth 0: its own node, or for a DATASET_COLUMN
 * assignment its column of every version of the dataset.
 */
export function assignedNodes(where: () => string): string {
  return (
    `SELECT a."nodeKind", a."artifactId", a.field, a.tag, a.id FROM "PolicyTagAssignment" a WHERE ${where()} AND a."nodeKind" <> 'DATASET_COLUMN' ` +
    `UNION ALL SELECT 'COLUMN', v.id, a.field, a.tag, a.id FROM "PolicyTagAssignment" a JOIN "Artifact" v ON v."datasetNamespace" = a."datasetNamespace" AND v."datasetName" = a."datasetName" ` +
    `WHERE ${where()} AND a."nodeKind" = 'DATASET_COLUMN'`
  );
}

export function tagFlowStatement(provider: DatabaseProvider, seeds: TagFlowSeeds, pass: number, hops: number = HOPS_PER_STATEMENT): Statement {
  for (const [name, value] of [["pass", pass], ["hops", hops]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`tagFlowStatement: ${name} must be a positive integer, got ${value}`);
  }
  const { params, bind } = placeholders(provider);

  let seed: string;
  if ("assignments" in seeds) {
    seed = `SELECT s."nodeKind", s."artifactId", s.field, s.tag, s.id, 0, 0, 0 FROM (${assignedNodes(() => `a.id IN (${jsonListSelect(provider, bind(JSON.stringify(seeds.assignments)), seeds.assignments.length, "bigint")})`)}) s`;
  } else if ("tagsOf" in seeds) {
    seed = `SELECT s."nodeKind", s."artifactId", s.field, s.tag, s.id, 0, 0, 0 FROM (${assignedNodes(() => `a.tag IN (${jsonListSelect(provider, bind(JSON.stringify(seeds.tagsOf)), seeds.tagsOf.length)})`)}) s`;
  } else if ("nodes" in seeds) {
    const artifacts = seeds.nodes.filter((n) => n.nodeKind === "ARTIFACT").map((n) => n.artifactId);
    const exact = seeds.nodes.filter((n) => n.nodeKind !== "ARTIFACT");
    const branches: string[] = [];
    if (exact.length > 0) {
      const values = exact.map((n) => `(${bind(n.nodeKind)}, ${bind(n.artifactId)}, ${bind(n.field)})`).join(", ");
      // bounded: callers pass at most NODES_PER_STATEMENT nodes (tag-flow.ts), three values each.
      branches.push(`SELECT ${WALK_COLUMNS}, ${opaqueOf("h")} AS opaque FROM "PolicyTagHolding" h WHERE (h."nodeKind", h."artifactId", h.field) IN (VALUES ${values})`);
    }
    if (artifacts.length > 0 || branches.length === 0) {
      branches.push(`SELECT ${WALK_COLUMNS}, ${opaqueOf("h")} AS opaque FROM "PolicyTagHolding" h WHERE h."nodeKind" IN ('COLUMN', 'VERSION', 'ARTIFACT') AND h."artifactId" IN (${jsonListSelect(provider, bind(JSON.stringify(artifacts)), artifacts.length)})`);
    }
    seed = `SELECT s."nodeKind", s."artifactId", s.field, s.tag, s."originId", s.depth, 0, s.opaque FROM (${branches.join(" UNION ALL ")}) s`;
  } else {
    seed = `SELECT h."nodeKind", h."artifactId", h.field, h.tag, h."originId", h.depth, 0, ${opaqueOf("h")} FROM "PolicyTagHolding" h WHERE h.frontier = ${bind(seeds.frontier)}`;
  }

  // A far node (kind, id, field) the step may enter with `opaque`: not downgraded for the tag (an
  // artifact's downgrade bars its version too), not held at least as well already.
  // bounded: a kind and its wider kind, two column expressions
  const mayEnter = (kind: string, id: string, field: string, opaque: string) =>
    `NOT EXISTS (SELECT 1 FROM "PolicyTagDowngrade" d WHERE d."nodeKind" IN (${kind}, CASE WHEN ${kind} = 'VERSION' THEN 'ARTIFACT' ELSE ${kind} END) AND d."artifactId" = ${id} AND d.field = ${field} AND d.tag = w.tag) ` +
    `AND NOT EXISTS (SELECT 1 FROM "PolicyTagHolding" h WHERE h."nodeKind" = ${kind} AND h."artifactId" = ${id} AND h.field = ${field} AND h.tag = w.tag ` +
    `AND (h.depth < w.depth + 1 OR (h.depth = w.depth + 1 AND (h."originId" < w.origin OR (h."originId" = w.origin AND ${opaqueOf("h")} <= ${opaque})))))`;
  const columnTarget = (e: string) => ({ kind: `CASE WHEN ${e}."targetField" IS NULL THEN 'VERSION' ELSE 'COLUMN' END`, id: `${e}."targetId"`, field: `COALESCE(${e}."targetField", '')` });
  const notDowngradedSource = (e: string) => `NOT EXISTS (SELECT 1 FROM "PolicyTagDowngrade" s WHERE s."nodeKind" = 'COLUMN' AND s."artifactId" = ${e}."sourceId" AND s.field = ${e}."sourceField" AND s.tag = w.tag)`;
  // An opaque step: the run of wasDerivedFrom edge p reported no column lineage into its target.
  const opaqueStep = (p: string) => `NOT EXISTS (SELECT 1 FROM "ColumnEdge" x WHERE x."targetId" = ${p}."targetId" AND x."runId" = ${p}."runId")`;
  const next = (far: { kind: string; id: string; field: string }, opaque: string) => `SELECT ${far.kind}, ${far.id}, ${far.field}, w.tag, w.origin, w.depth + 1, w.hop + 1, ${opaque} FROM walk w`;

  let sql = `WITH RECURSIVE walk(kind, node, field, tag, origin, depth, hop, opaque) AS (${seed}`;
  if (provider === "sqlite") {
    const c = columnTarget("e");
    sql += ` UNION ${next(c, "w.opaque")} JOIN "ColumnEdge" e ON e."sourceId" = w.node AND e."sourceField" = w.field WHERE w.kind = 'COLUMN' AND w.hop < ${hops} AND ${mayEnter(c.kind, c.id, c.field, "w.opaque")}`;
    sql += ` UNION ${next(c, "w.opaque")} JOIN "ColumnEdge" e ON e."sourceId" = w.node WHERE w.kind = 'VERSION' AND w.hop < ${hops} AND ${notDowngradedSource("e")} AND ${mayEnter(c.kind, c.id, c.field, "w.opaque")}`;
    const a = { kind: `'ARTIFACT'`, id: `p."targetId"`, field: `''` };
    sql += ` UNION ${next(a, "w.opaque")} JOIN "ProvenanceEdge" p ON p."sourceId" = w.node WHERE w.kind = 'ARTIFACT' AND w.hop < ${hops} AND ${mayEnter(a.kind, a.id, a.field, "w.opaque")}`;
    const v = { kind: `'VERSION'`, id: `p."targetId"`, field: `''` };
    sql += ` UNION ${next(v, "1")} JOIN "ProvenanceEdge" p ON p."sourceId" = w.node WHERE w.kind IN ('COLUMN', 'VERSION') AND w.hop < ${hops} AND ${opaqueStep("p")} AND ${mayEnter(v.kind, v.id, v.field, "1")}`;
  } else {
    const c = columnTarget("e");
    // Each branch probes its edge index per walked row (the LATERAL fence, as in the closures).
    const stepOpaque = "CASE WHEN w.opaque = 1 OR s.opaque = 1 THEN 1 ELSE 0 END";
    sql +=
      ` UNION ${next({ kind: "s.kind", id: "s.node", field: "s.field" }, stepOpaque)} CROSS JOIN LATERAL (` +
      `SELECT ${c.kind} AS kind, ${c.id} AS node, ${c.field} AS field, 0 AS opaque FROM "ColumnEdge" e WHERE w.kind = 'COLUMN' AND e."sourceId" = w.node AND e."sourceField" = w.field ` +
      `UNION ALL SELECT ${c.kind}, ${c.id}, ${c.field}, 0 FROM "ColumnEdge" e WHERE w.kind = 'VERSION' AND e."sourceId" = w.node AND ${notDowngradedSource("e")} ` +
      `UNION ALL SELECT 'ARTIFACT', p."targetId", '', 0 FROM "ProvenanceEdge" p WHERE w.kind = 'ARTIFACT' AND p."sourceId" = w.node ` +
      `UNION ALL SELECT 'VERSION', p."targetId", '', 1 FROM "ProvenanceEdge" p WHERE w.kind IN ('COLUMN', 'VERSION') AND p."sourceId" = w.node AND ${opaqueStep("p")} OFFSET 0) s ` +
      `WHERE w.hop < ${hops} AND ${mayEnter("s.kind", "s.node", "s.field", stepOpaque)}`;
  }
  sql += `), best AS (SELECT kind, node, field, tag, origin, depth, hop, opaque, ROW_NUMBER() OVER (PARTITION BY kind, node, field, tag ORDER BY depth, origin, opaque, hop) AS rn FROM walk) `;
  sql += `INSERT INTO "PolicyTagHolding" ("nodeKind", "artifactId", field, tag, "originId", depth, opaque, frontier) `;
  sql += `SELECT kind, node, field, tag, origin, depth, CASE WHEN opaque = 1 THEN TRUE ELSE FALSE END, CASE WHEN hop = ${hops} THEN CAST(${bind(pass)} AS INTEGER) ELSE NULL END FROM best WHERE rn = 1 `;
  sql += `ON CONFLICT ("nodeKind", "artifactId", field, tag) DO UPDATE SET "originId" = excluded."originId", depth = excluded.depth, opaque = excluded.opaque, frontier = excluded.frontier `;
  sql += `WHERE ${better("excluded", `"PolicyTagHolding"`)}`;
  return { sql, params };
}


/** Holding `a` is better than holding `b`: nearer, else from an older origin, else not through an opaque step where `b` is. */
export function better(a: string, b: string): string {
  return `${a}.depth < ${b}.depth OR (${a}.depth = ${b}.depth AND (${a}."originId" < ${b}."originId" OR (${a}."originId" = ${b}."originId" AND ${opaqueOf(a)} < ${opaqueOf(b)})))`;
}

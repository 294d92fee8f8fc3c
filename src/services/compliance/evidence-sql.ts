import type { DatabaseProvider } from "../../db/database-url";
import { placeholders, type Statement } from "../../db/sql-statement";
import { stopCheckSql } from "../../db/statement-stop";

/**
 * The one recursive statement behind an evidence package (seed "The evidence package"): the
 * backward closure from an artifact or from one column of a dataset version, down to the raw
 * sources, with every run that produced an edge of it, that run's four pins and its inputs — the
 * acceptance gate's facts — in one result. Portable like the closures (../lineage/closure-sql.ts):
 * SQLite walks with one recursive select per kind of step, PostgreSQL with one over a LATERAL union.
 *
 * A walk row is (kind, node, field): 'A' an artifact, 'C' a column (node = its version). From
 *  - A: each wasDerivedFrom edge into it, to its source artifact;
 *  - C (V, f): each column edge into (V, f) and each dataset-wide edge into V, to its source column;
 *    a column no column edge reaches is opaque (its run reported no column lineage into it): the
 *    walk goes on from V along wasDerivedFrom, conservatively (everything V derives from).
 * UNION keeps each node once (the cycle guard); the walk is cut at `budget` rows (then `truncated`).
 *
 * Result rows, told apart by "row": 'node' (kind, id, field, the artifact's type, hash and dataset,
 * n = 1 when an opaque column — its version was produced by a run that reported no column lineage
 * into it — and n = 2 when a raw source — nothing recorded produced it: a root of the closure),
 * 'edge' (layer 'A' or 'C', source → target, the run and the edge's kind/type/subtype; an opaque
 * column's wasDerivedFrom edges are 'A' edges), 'run' (each run of the edges: operation, status,
 * params, the four pins, n = its inputs), 'input' (each input of those runs: the artifact, its
 * dataset version and whether the event pinned it), 'meta' (n = walk rows).
 *
 * As of an instant (docs: "Evidence packages", as-of semantics), everything recorded later is left
 * out: edges, column edges, and the inputs a run reported later (its uses of dataset versions, by
 * when each was recorded). What a run reported about itself later (its pins, params, status) is
 * the caller's to fold as of the instant: the statement reads the run as it is now.
 */
export interface EvidenceStatementOptions {
  root: { artifactId: string; field: string | null };
  /** Leave out what was recorded after this instant. */
  asOf: Date | null;
  budget: number;
}

const COLUMN_TYPES = {
  row: "TEXT",
  kind: "TEXT",
  id: "TEXT",
  field: "TEXT",
  otherId: "TEXT",
  otherField: "TEXT",
  runId: "TEXT",
  edgeKind: "TEXT",
  subtype: "TEXT",
  artifactType: "TEXT",
  contentHash: "TEXT",
  datasetNamespace: "TEXT",
  datasetName: "TEXT",
  datasetVersion: "TEXT",
  operation: "TEXT",
  operationVersion: "TEXT",
  status: "TEXT",
  params: "TEXT",
  inputVersions: "TEXT",
  codeVersion: "TEXT",
  imageDigest: "TEXT",
  deterministic: "BOOLEAN",
  pinned: "BOOLEAN",
  resolvedBy: "TEXT",
  n: "BIGINT",
} as const;
type Column = keyof typeof COLUMN_TYPES;
const COLUMNS = Object.keys(COLUMN_TYPES) as Column[];

export function evidenceStatement(provider: DatabaseProvider, o: EvidenceStatementOptions): Statement {
  if (!Number.isSafeInteger(o.budget) || o.budget < 1) throw new Error(`evidenceStatement: budget must be a positive integer, got ${o.budget}`);
  const { params, bind } = placeholders(provider);
  const asOf = (alias: string) => (o.asOf ? ` AND ${alias}."createdAt" <= ${bind(o.asOf)}` : "");
  const intoColumn = (e: string, w: string) => `${e}."targetId" = ${w}.node AND (${e}."targetField" = ${w}.field OR ${e}."targetField" IS NULL)`;
  const opaque = (w: string) => `NOT EXISTS (SELECT 1 FROM "ColumnEdge" x WHERE ${intoColumn("x", w)}${asOf("x")})`;
  const produced = (w: string) => `EXISTS (SELECT 1 FROM "ProvenanceEdge" y WHERE y."targetId" = ${w}.node${asOf("y")})`;
  // An input reported after the instant (an OpenLineage use of a dataset version recorded later); a
  // recordExecution input has no use row and came with its run.
  const usedByThen = (u: string) => (o.asOf ? ` AND (${u}."createdAt" IS NULL OR ${u}."createdAt" <= ${bind(o.asOf)})` : "");

  const kind = o.root.field === null ? "A" : "C";
  // SQLite: the stop function on about one edge in 256 of the walk and of the edges among what it
  // reached (statement-stop.ts, as the closures' walks).
  const stop = (id: string) => (provider === "sqlite" ? ` AND ${stopCheckSql(id)}` : "");
  let sql = `WITH RECURSIVE walk(kind, node, field) AS (SELECT CAST(${bind(kind)} AS TEXT), CAST(${bind(o.root.artifactId)} AS TEXT), CAST(${bind(o.root.field ?? "")} AS TEXT)`;
  if (provider === "sqlite") {
    sql += ` UNION SELECT 'A', p."sourceId", '' FROM walk w JOIN "ProvenanceEdge" p ON p."targetId" = w.node WHERE w.kind = 'A'${stop("p.id")}${asOf("p")}`;
    sql += ` UNION SELECT 'C', e."sourceId", e."sourceField" FROM walk w JOIN "ColumnEdge" e ON ${intoColumn("e", "w")} WHERE w.kind = 'C'${stop("e.id")}${asOf("e")}`;
    sql += ` UNION SELECT 'A', p."sourceId", '' FROM walk w JOIN "ProvenanceEdge" p ON p."targetId" = w.node WHERE w.kind = 'C'${stop("p.id")} AND ${opaque("w")}${asOf("p")}`;
    sql += ` LIMIT ${o.budget}), steps AS (SELECT * FROM walk), `;
  } else {
    sql +=
      ` UNION SELECT s.kind, s.node, s.field FROM walk w CROSS JOIN LATERAL (` +
      `SELECT CAST('A' AS TEXT) AS kind, p."sourceId" AS node, CAST('' AS TEXT) AS field FROM "ProvenanceEdge" p WHERE w.kind = 'A' AND p."targetId" = w.node${asOf("p")} ` +
      `UNION ALL SELECT 'C', e."sourceId", e."sourceField" FROM "ColumnEdge" e WHERE w.kind = 'C' AND ${intoColumn("e", "w")}${asOf("e")} ` +
      `UNION ALL SELECT 'A', p."sourceId", '' FROM "ProvenanceEdge" p WHERE w.kind = 'C' AND p."targetId" = w.node AND ${opaque("w")}${asOf("p")} OFFSET 0) s` +
      `), steps AS (SELECT * FROM walk LIMIT ${o.budget}), `;
  }
  sql += `members AS (SELECT DISTINCT kind, node, field FROM steps), `;
  // The edges among the members: into an artifact, into a column (or its version as a whole), and an opaque column's.
  sql +=
    `edges AS (` +
    `SELECT 'A' AS layer, p."sourceId" AS "sourceId", CAST(NULL AS TEXT) AS "sourceField", p."targetId" AS "targetId", CAST(NULL AS TEXT) AS "targetField", p."runId" AS "runId", p.kind AS "edgeKind", CAST(NULL AS TEXT) AS subtype ` +
    `FROM members m JOIN "ProvenanceEdge" p ON p."targetId" = m.node WHERE m.kind = 'A'${stop("p.id")}${asOf("p")} ` +
    `UNION SELECT 'C', e."sourceId", e."sourceField", e."targetId", e."targetField", e."runId", e.type, e.subtype FROM members m JOIN "ColumnEdge" e ON ${intoColumn("e", "m")} WHERE m.kind = 'C'${stop("e.id")}${asOf("e")} ` +
    `UNION SELECT 'A', p."sourceId", NULL, p."targetId", NULL, p."runId", p.kind, NULL FROM members m JOIN "ProvenanceEdge" p ON p."targetId" = m.node WHERE m.kind = 'C'${stop("p.id")} AND ${opaque("m")}${asOf("p")}` +
    `), runs AS (SELECT DISTINCT "runId" FROM edges) `;

  let branches = 0;
  const select = (values: Partial<Record<Column, string>>): string =>
    (branches++ === 0 ? "SELECT " : " UNION ALL SELECT ") +
    COLUMNS.map((column) => {
      const value = values[column];
      if (branches === 1) return value === undefined ? `CAST(NULL AS ${COLUMN_TYPES[column]}) AS "${column}"` : `${value} AS "${column}"`;
      return value ?? "NULL";
    }).join(", ");
  sql += select({
    row: `'node'`,
    kind: "m.kind",
    id: "m.node",
    field: "m.field",
    artifactType: `a."artifactType"`,
    contentHash: `a."contentHash"`,
    datasetNamespace: `a."datasetNamespace"`,
    datasetName: `a."datasetName"`,
    datasetVersion: `a."datasetVersion"`,
    n: `CASE WHEN NOT ${produced("m")} AND (m.kind = 'A' OR ${opaque("m")}) THEN 2 WHEN m.kind = 'C' AND ${opaque("m")} THEN 1 ELSE 0 END`,
  });
  sql += ` FROM members m LEFT JOIN "Artifact" a ON a.id = m.node`;
  sql += select({ row: `'edge'`, kind: "d.layer", id: `d."sourceId"`, field: `d."sourceField"`, otherId: `d."targetId"`, otherField: `d."targetField"`, runId: `d."runId"`, edgeKind: `d."edgeKind"`, subtype: "d.subtype" });
  sql += ` FROM edges d`;
  sql += select({
    row: `'run'`,
    runId: `x."runId"`,
    operation: "o.name",
    operationVersion: "o.version",
    status: "x.status",
    params: "x.params",
    inputVersions: `x."pinInputVersions"`,
    codeVersion: `x."pinCodeVersion"`,
    imageDigest: `x."pinImageDigest"`,
    deterministic: `x."pinDeterministic"`,
    n: `(SELECT COUNT(*) FROM "ExecutionArtifact" l LEFT JOIN "DatasetVersionUse" lu ON lu."runId" = l."runId" AND lu."artifactId" = l."artifactId" WHERE l."runId" = x."runId" AND l.direction = 'CONSUMED'${usedByThen("lu")})`,
  });
  sql += ` FROM runs r JOIN "Execution" x ON x."runId" = r."runId" JOIN "Operation" o ON o.id = x."operationId"`;
  sql += select({
    row: `'input'`,
    runId: `l."runId"`,
    id: `l."artifactId"`,
    field: "l.role",
    datasetNamespace: `a."datasetNamespace"`,
    datasetName: `a."datasetName"`,
    datasetVersion: `a."datasetVersion"`,
    // Unpinned: an unversioned dataset, or an OpenLineage input resolved without a version facet (the newest known).
    pinned: `CASE WHEN (a."datasetNamespace" IS NOT NULL AND a."datasetVersion" IS NULL) OR u.pinned = FALSE THEN FALSE ELSE TRUE END`,
    resolvedBy: `u."resolvedBy"`,
  });
  sql += ` FROM runs r JOIN "ExecutionArtifact" l ON l."runId" = r."runId" AND l.direction = 'CONSUMED' LEFT JOIN "Artifact" a ON a.id = l."artifactId" LEFT JOIN "DatasetVersionUse" u ON u."runId" = l."runId" AND u."artifactId" = l."artifactId"`;
  if (o.asOf) sql += ` WHERE 1 = 1${usedByThen("u")}`;
  sql += select({ row: `'meta'`, n: "(SELECT COUNT(*) FROM steps)" });
  return { sql, params };
}

import { columnIndex, UnionRows } from "./union-rows";
import { columnNodeId, type GraphNodeRef, parseGraphNodeId } from "./graph-node-ids";
import type { LineageGraphNodeRecord } from "./graph-records";
import { artifactLabel, emptyNode } from "./lineage-graph";
import type { LineageFilters } from "./lineage-filters";
import { nodeCounts } from "./neighbour-sql";
import { asNumber, asText, type GraphReadClient, StatementParams } from "./read-client";

const DETAIL_COLUMNS = {
  row: "TEXT",
  id: "TEXT",
  field: "TEXT",
  label: "TEXT",
  artifactType: "TEXT",
  namespace: "TEXT",
  name: "TEXT",
  version: "TEXT",
  status: "TEXT",
  pipeline: "TEXT",
  n: "BIGINT",
  up: "BIGINT",
  down: "BIGINT",
} as const;
type DetailColumn = keyof typeof DETAIL_COLUMNS;
const DETAIL_COLUMN_NAMES = Object.keys(DETAIL_COLUMNS) as DetailColumn[];

/**
 * Any set of graph nodes, by id, as graph nodes: labels, kind-specific details and their neighbour
 * counts (hidden counts equal to the counts: nothing else is shown), in one statement. Nodes that do
 * not exist are left out of the map. Depths are 0; callers set them.
 */
export async function readNodeDetails(reader: GraphReadClient, ids: readonly string[], filters: LineageFilters): Promise<Map<string, LineageGraphNodeRecord>> {
  const refs = [...new Set(ids)].map((id) => parseGraphNodeId("id", id));
  const result = new Map<string, LineageGraphNodeRecord>();
  if (refs.length === 0) return result;
  const of = <K extends GraphNodeRef["kind"]>(kind: K) => refs.filter((r): r is Extract<GraphNodeRef, { kind: K }> => r.kind === kind);
  const p = new StatementParams(reader.provider);
  const f = filters;
  const rows = new UnionRows(DETAIL_COLUMNS);
  let sql = `WITH arts(node) AS (SELECT value FROM ${p.list(of("ARTIFACT").map((r) => r.id))})`;
  sql += `, runs(run) AS (SELECT value FROM ${p.list(of("RUN").map((r) => r.id))})`;
  sql += `, cols(artifact, field) AS (SELECT artifact, field FROM ${p.pairList(of("COLUMN").map((r) => [r.artifactId, r.field] as const))})`;
  // Neighbour counts as neighbourhood-sql.ts reads them (nodeCounts).
  const counts = nodeCounts(p, f, { from: "arts t", node: "t.node" }, { from: "runs t", node: "t.run" });
  sql += counts.tables;
  const artCounts = counts.artifact("m.node");
  sql += ` ${rows.select({
    row: `'art'`,
    id: "a.id",
    label: `a."originalName"`,
    artifactType: `a."artifactType"`,
    namespace: `a."datasetNamespace"`,
    name: `a."datasetName"`,
    version: `a."datasetVersion"`,
    up: artCounts.up,
    down: artCounts.down,
  })} FROM arts m JOIN "Artifact" a ON a.id = m.node${artCounts.joins}`;
  const runCounts = counts.run("r.run");
  sql += `${rows.select({
    row: `'run'`,
    id: "r.run",
    label: "o.name",
    version: "o.version",
    status: "x.status",
    pipeline: "x.pipeline",
    n: "x.step",
    up: runCounts.up,
    down: runCounts.down,
  })} FROM runs r LEFT JOIN "Execution" x ON x."runId" = r.run LEFT JOIN "Operation" o ON o.id = x."operationId"${runCounts.joins}`;
  // A run is known by its execution, or (in stores written without executions) by the edges it recorded.
  sql += ` WHERE x."runId" IS NOT NULL OR EXISTS (SELECT 1 FROM "ProvenanceEdge" e WHERE e."runId" = r.run)`;
  const asOf = f.asOf !== null ? ` AND e."createdAt" <= ${p.bind(f.asOf)}` : "";
  const asOfDown = f.asOf !== null ? ` AND e."createdAt" <= ${p.bind(f.asOf)}` : "";
  const asOfExists = f.asOf !== null ? ` AND e."createdAt" <= ${p.bind(f.asOf)}` : "";
  sql += `${rows.select({
    row: `'col'`,
    id: "c.artifact",
    field: "c.field",
    artifactType: `a."artifactType"`,
    namespace: `a."datasetNamespace"`,
    name: `a."datasetName"`,
    version: `a."datasetVersion"`,
    up: `(SELECT COUNT(*) FROM (SELECT DISTINCT e."sourceId", e."sourceField" FROM "ColumnEdge" e WHERE e."targetId" = c.artifact AND (e."targetField" = c.field OR e."targetField" IS NULL)${asOf}) nbs)`,
    down: `(SELECT COUNT(*) FROM (SELECT DISTINCT e."targetId", e."targetField" FROM "ColumnEdge" e WHERE e."sourceId" = c.artifact AND e."sourceField" = c.field${asOfDown}) nbs)`,
  })} FROM cols c LEFT JOIN "Artifact" a ON a.id = c.artifact`;
  // A column exists when its version's schema lists it or an edge names it.
  sql +=
    ` WHERE EXISTS (SELECT 1 FROM "DatasetColumn" d WHERE d."artifactId" = c.artifact AND d.field = c.field)` +
    ` OR EXISTS (SELECT 1 FROM "ColumnEdge" e WHERE ((e."sourceId" = c.artifact AND e."sourceField" = c.field) OR (e."targetId" = c.artifact AND e."targetField" = c.field))${asOfExists})`;
  const read = await reader.readRows(sql, p.params);
  const at = columnIndex(read.columnNames, DETAIL_COLUMN_NAMES);
  for (const row of read.rows) {
    const text = (column: DetailColumn) => asText(row[at[column]]);
    const namespace = text("namespace");
    const name = text("name");
    const dataset = namespace !== null && name !== null ? { namespace, name, version: text("version") } : null;
    const up = asNumber(row[at.up]);
    const down = asNumber(row[at.down]);
    const counts = { upstreamCount: up, downstreamCount: down, hiddenUpstream: up, hiddenDownstream: down };
    const id = text("id")!;
    switch (row[at.row]) {
      case "art":
        result.set(id, { ...emptyNode(id, "ARTIFACT", 0), ...counts, label: artifactLabel({ label: text("label"), dataset }), artifactId: id, artifactType: text("artifactType"), dataset });
        break;
      case "run":
        result.set(id, {
          ...emptyNode(id, "RUN", 0),
          ...counts,
          label: text("label") ?? id,
          runId: id,
          run: { operation: text("label"), operationVersion: text("version"), status: text("status"), pipeline: text("pipeline"), step: row[at.n] == null ? null : asNumber(row[at.n]) },
        });
        break;
      case "col": {
        const field = text("field")!;
        const nodeId = columnNodeId(id, field);
        result.set(nodeId, { ...emptyNode(nodeId, "COLUMN", 0), ...counts, label: field, artifactId: id, field, artifactType: text("artifactType"), dataset });
        break;
      }
    }
  }
  return result;
}

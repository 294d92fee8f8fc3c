import { inChunks } from "../../db/chunked-lists";
import type { DbTx } from "../../db/client";
import { insertRows, noteUnitWrites, turnSlicer } from "../recording";
import type { ColumnEdgeDraft, DatasetColumnRecord } from "./column-records";

type EdgeFacts = { [K in keyof ColumnEdgeDraft]: ColumnEdgeDraft[K] extends boolean ? boolean : ColumnEdgeDraft[K] extends string ? string : string | null };
const edgeKey = (e: EdgeFacts) =>
  JSON.stringify([e.runId, e.sourceId, e.sourceField, e.targetId, e.targetField, e.type, e.subtype, e.description, e.masking]);

/**
 * Writes column edges inside a recording unit. A run reporting the same edge again (OpenLineage
 * sends its column lineage with START and COMPLETE) records it once: edges already stored for the
 * run are skipped. An edge's `createdAt` (default `at`) is when it was recorded. Returns the edges it added.
 */
export async function stageColumnEdges(tx: DbTx, edges: readonly (ColumnEdgeDraft & { createdAt?: Date })[], at: Date, options: { newRuns?: ReadonlySet<string> } = {}): Promise<ColumnEdgeDraft[]> {
  if (edges.length === 0) return [];
  // Runs recorded by this very unit (`newRuns`) have no edges stored yet: nothing to read for them.
  const runIds = [...new Set(edges.map((e) => e.runId as string))].filter((runId) => !options.newRuns?.has(runId));
  const stored = runIds.length === 0 ? [] : await inChunks(runIds, (chunk) => tx.columnEdge.findMany({ where: { runId: { in: chunk } } }));
  const known = new Set(stored.map(edgeKey));
  const added: (ColumnEdgeDraft & { createdAt?: Date })[] = [];
  // Keying tens of thousands of edges (a wide column-lineage facet) takes turns with other requests.
  const slice = turnSlicer();
  for (const edge of edges) {
    await slice();
    const key = edgeKey(edge);
    if (known.has(key)) continue;
    known.add(key);
    added.push(edge);
  }
  await insertRows(
    tx,
    "ColumnEdge",
    ["sourceId", "sourceField", "targetId", "targetField", "runId", "type", "subtype", "description", "masking", "createdAt"],
    added.map((e) => [e.sourceId, e.sourceField, e.targetId, e.targetField, e.runId, e.type, e.subtype, e.description, e.masking, e.createdAt ?? at]),
  );
  // Policy tags flow across them before the unit commits (the propagate stage); the columns they name are found by search.
  noteUnitWrites(tx, {
    columnEdges: added.map((e) => ({ sourceId: e.sourceId, sourceField: e.sourceField, targetId: e.targetId, targetField: e.targetField, type: e.type })),
    searchable: added.flatMap((e) => [
      { kind: "COLUMN" as const, artifactId: e.sourceId, field: e.sourceField, description: null },
      ...(e.targetField === null ? [] : [{ kind: "COLUMN" as const, artifactId: e.targetId, field: e.targetField, description: null }]),
    ]),
  });
  return added;
}

/** Records the columns a schema facet gives a dataset version; a column already known keeps what was first recorded. */
export async function stageDatasetColumns(tx: DbTx, columns: readonly DatasetColumnRecord[]): Promise<void> {
  await insertRows(
    tx,
    "DatasetColumn",
    ["artifactId", "field", "position", "type", "description"],
    columns.map((c) => [c.artifactId, c.field, c.position, c.type, c.description]),
    { ignoreConflicts: true },
  );
  noteUnitWrites(tx, { searchable: columns.map((c) => ({ kind: "COLUMN", artifactId: c.artifactId, field: c.field, description: c.description })) });
}

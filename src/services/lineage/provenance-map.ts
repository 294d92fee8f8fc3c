import type { ReadDatabase } from "../../db/client";
import { storedTime } from "../../db/rows-by-id";
import { placeholders } from "../../db/sql-statement";
import type { ArtifactId, RunId } from "../ids";
import type { LineageDirection, ProvenanceEdgeKind, ProvenanceEdgeRecord } from "./lineage-records";
import type { KeysetPage } from "../pagination";

/**
 * Full provenance maps (seed "Querying provenance": the entire backward or forward map, for batch
 * analysis). The backward (UPSTREAM) map lists every artifact that has parents, each with all the
 * edges into it; the forward (DOWNSTREAM) map every artifact that has children, with all the
 * edges out of it. Paged by artifact id: one statement per page picks the page's artifacts from
 * the (targetId, sourceId) or (sourceId, targetId) index and reads their edges.
 */
export interface ProvenanceMapEntry {
  artifactId: ArtifactId;
  /** From the denormalized edge types. */
  artifactType: string;
  direction: LineageDirection;
  /** UPSTREAM: the edges into the artifact; DOWNSTREAM: the edges out of it; by id. */
  edges: ProvenanceEdgeRecord[];
  /** UPSTREAM: its parents; DOWNSTREAM: its children; distinct, in edge order. */
  relatedIds: ArtifactId[];
}

interface EdgeRow {
  id: number | bigint;
  sourceId: string;
  targetId: string;
  runId: string;
  kind: string;
  groupId: string | null;
  stepBoundary: boolean | number;
  sourceType: string;
  targetType: string;
  createdAt: Date | string;
}

export class ProvenanceMapReader {
  constructor(private readonly database: ReadDatabase) {}

  async page(direction: LineageDirection, page: KeysetPage<ArtifactId>, asOf: Date | null = null): Promise<ProvenanceMapEntry[]> {
    const { params, bind } = placeholders(this.database.provider);
    const key = direction === "UPSTREAM" ? `"targetId"` : `"sourceId"`;
    const asOfFilter = (alias: string) => (asOf ? ` AND ${alias}."createdAt" <= ${bind(asOf)}` : "");
    let sql = `WITH keys AS (SELECT DISTINCT k.${key} AS artifact FROM "ProvenanceEdge" k WHERE 1 = 1`;
    if (page.after) sql += ` AND k.${key} > ${bind(page.after)}`;
    if (page.before) sql += ` AND k.${key} < ${bind(page.before)}`;
    sql += asOfFilter("k");
    if (!Number.isSafeInteger(page.limit) || page.limit < 0) throw new Error(`provenance map page limit must be a whole number, got ${page.limit}`);
    sql += ` ORDER BY artifact ${page.inverted ? "DESC" : "ASC"} LIMIT ${page.limit}) `;
    sql +=
      `SELECT e.id, e."sourceId", e."targetId", e."runId", e.kind, e."groupId", e."stepBoundary", e."sourceType", e."targetType", e."createdAt" ` +
      `FROM keys JOIN "ProvenanceEdge" e ON e.${key} = keys.artifact WHERE 1 = 1`;
    sql += asOfFilter("e");
    sql += ` ORDER BY keys.artifact ${page.inverted ? "DESC" : "ASC"}, e.id`;
    const rows = await this.database.reader.$queryRawUnsafe<EdgeRow[]>(sql, ...params);

    const entries: ProvenanceMapEntry[] = [];
    let current: ProvenanceMapEntry | undefined;
    let related = new Set<ArtifactId>();
    for (const row of rows) {
      const edge: ProvenanceEdgeRecord = {
        id: Number(row.id),
        sourceId: row.sourceId as ArtifactId,
        targetId: row.targetId as ArtifactId,
        runId: row.runId as RunId,
        kind: row.kind as ProvenanceEdgeKind,
        groupId: row.groupId,
        stepBoundary: Boolean(row.stepBoundary),
        sourceType: row.sourceType,
        targetType: row.targetType,
        createdAt: storedTime(row.createdAt)!,
      };
      const [artifactId, artifactType, relatedId] =
        direction === "UPSTREAM" ? [edge.targetId, edge.targetType, edge.sourceId] : [edge.sourceId, edge.sourceType, edge.targetId];
      if (current?.artifactId !== artifactId) {
        current = { artifactId, artifactType, direction, edges: [], relatedIds: [] };
        related = new Set();
        entries.push(current);
      }
      current.edges.push(edge);
      if (!related.has(relatedId)) {
        related.add(relatedId);
        current.relatedIds.push(relatedId);
      }
    }
    return entries;
  }
}

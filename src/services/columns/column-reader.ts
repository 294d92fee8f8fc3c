import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import type { ArtifactId, RunId } from "../ids";
import { type ColumnEdgeRecord, type ColumnRef, toColumnEdgeRecord } from "./column-records";

/** A column of a dataset version: from its schema facet, or only known because an edge names it. */
export interface ColumnView {
  artifactId: ArtifactId;
  field: string;
  /** Its place in the schema (0-based); null for a field only edges name. */
  position: number | null;
  type: string | null;
  description: string | null;
}

/** Columns of dataset versions and their one-hop edges, a batch of ids per statement. */
export class ColumnReader {
  constructor(private readonly db: Db) {}

  /** For each artifact, its columns: the schema's in order, then fields only edges name, by name. */
  async columnsOf(ids: readonly ArtifactId[]): Promise<ColumnView[][]> {
    const wanted = [...new Set(ids as readonly string[])];
    const [schema, sources, targets] = await Promise.all([
      inChunks(wanted, (chunk) => this.db.datasetColumn.findMany({ where: { artifactId: { in: chunk } } })),
      inChunks(wanted, (chunk) => this.db.columnEdge.findMany({ where: { sourceId: { in: chunk } }, select: { sourceId: true, sourceField: true }, distinct: ["sourceId", "sourceField"] })),
      inChunks(wanted, (chunk) => this.db.columnEdge.findMany({ where: { targetId: { in: chunk }, targetField: { not: null } }, select: { targetId: true, targetField: true }, distinct: ["targetId", "targetField"] })),
    ]);
    const byArtifact = new Map<string, Map<string, ColumnView>>();
    const add = (view: ColumnView) => {
      const columns = byArtifact.get(view.artifactId) ?? new Map<string, ColumnView>();
      byArtifact.set(view.artifactId, columns);
      if (!columns.has(view.field)) columns.set(view.field, view);
    };
    for (const c of schema) add({ artifactId: c.artifactId as ArtifactId, field: c.field, position: c.position, type: c.type, description: c.description });
    for (const e of sources) add({ artifactId: e.sourceId as ArtifactId, field: e.sourceField, position: null, type: null, description: null });
    for (const e of targets) add({ artifactId: e.targetId as ArtifactId, field: e.targetField!, position: null, type: null, description: null });
    return ids.map((id) =>
      [...(byArtifact.get(id)?.values() ?? [])].sort((a, b) =>
        a.position !== null && b.position !== null ? a.position - b.position || compare(a.field, b.field) : a.position !== null ? -1 : b.position !== null ? 1 : compare(a.field, b.field),
      ),
    );
  }

  /**
   * For each column, the edges one hop upstream: those into the column, and the dataset-wide ones
   * into its version (which shape every column of it). For a whole version (field null), only the
   * dataset-wide ones.
   */
  async upstreamOf(refs: readonly ColumnRef[]): Promise<ColumnEdgeRecord[][]> {
    const rows = await inChunks(new Set(refs.map((r) => r.artifactId as string)), (chunk) => this.db.columnEdge.findMany({ where: { targetId: { in: chunk } }, orderBy: { id: "asc" } }));
    const edges = rows.map(toColumnEdgeRecord);
    return refs.map((ref) => edges.filter((e) => e.targetId === ref.artifactId && (e.targetField === null || e.targetField === ref.field)));
  }

  /** For each column, the edges one hop downstream: those out of it (for a whole version: out of any of its columns). */
  async downstreamOf(refs: readonly ColumnRef[]): Promise<ColumnEdgeRecord[][]> {
    const rows = await inChunks(new Set(refs.map((r) => r.artifactId as string)), (chunk) => this.db.columnEdge.findMany({ where: { sourceId: { in: chunk } }, orderBy: { id: "asc" } }));
    const edges = rows.map(toColumnEdgeRecord);
    return refs.map((ref) => edges.filter((e) => e.sourceId === ref.artifactId && (ref.field === null || e.sourceField === ref.field)));
  }

  /** For each run, the column edges it recorded, in recording order. */
  async edgesOfRuns(runIds: readonly RunId[]): Promise<ColumnEdgeRecord[][]> {
    const rows = await inChunks(new Set(runIds as readonly string[]), (chunk) => this.db.columnEdge.findMany({ where: { runId: { in: chunk } }, orderBy: { id: "asc" } }));
    const edges = rows.map(toColumnEdgeRecord);
    return runIds.map((runId) => edges.filter((e) => e.runId === runId));
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

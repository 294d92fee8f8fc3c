import { inChunks } from "../db/chunked-lists";
import type { Db } from "../db/client";
import type { ArtifactId, RunId } from "./ids";
import { type ArtifactRecord, type LinkDirection, toArtifactRecord } from "./records";
import { groupInOrder } from "./batching";

/** Reads artifacts and the executions linked to them, a batch of ids per statement. */
export class ArtifactReader {
  constructor(private readonly db: Db) {}

  async byIds(ids: readonly ArtifactId[]): Promise<(ArtifactRecord | null)[]> {
    const rows = await inChunks(new Set(ids), (chunk) => this.db.artifact.findMany({ where: { id: { in: chunk } } }));
    const byId = new Map(rows.map((row) => [row.id, toArtifactRecord(row)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** For each artifact, the runIds that produced (or consumed) it, in any role or in `role`, oldest first. */
  async linkedRunIds(ids: readonly ArtifactId[], direction: LinkDirection, role?: string): Promise<RunId[][]> {
    const rows = await inChunks(new Set(ids), (chunk) =>
      this.db.executionArtifact.findMany({
        where: { artifactId: { in: chunk }, direction, ...(role !== undefined ? { role } : {}) },
        select: { artifactId: true, runId: true },
        orderBy: [{ runId: "asc" }],
      }),
    );
    return groupInOrder(ids, rows, (row) => row.artifactId).map((group) => [
      ...new Set(group.map((row) => row.runId as RunId)),
    ]);
  }
}

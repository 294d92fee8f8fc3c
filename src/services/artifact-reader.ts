import { inChunks } from "../db/chunked-lists";
import type { Db } from "../db/client";
import type { Artifact } from "../generated/sqlite/client";
import type { ArtifactId, RunId } from "./ids";
import { type ArtifactRecord, type LinkDirection, toArtifactRecord } from "./records";
import { groupInOrder } from "./batching";
import { type RowsById, storedTime } from "../db/rows-by-id";

/** An artifact row's columns (every column of the Artifact table but its relations). */
const ARTIFACT_COLUMNS = ["id", "artifactType", "contentHash", "originalName", "metadata", "datasetNamespace", "datasetName", "datasetVersion", "createdAt"] as const satisfies readonly (keyof Artifact)[];

/** Reads artifacts and the executions linked to them, a batch of ids per statement. */
export class ArtifactReader {
  constructor(
    private readonly db: Db,
    private readonly rows: RowsById,
  ) {}

  /** The artifacts of a loader's batch: one statement past Prisma (src/db/rows-by-id.ts). */
  async byIds(ids: readonly ArtifactId[]): Promise<(ArtifactRecord | null)[]> {
    const found = await this.rows.read("Artifact", "id", ARTIFACT_COLUMNS, ids);
    const byId = new Map<string, ArtifactRecord>();
    for (const [id, row] of found) byId.set(id, toArtifactRecord({ ...(row as unknown as Artifact), createdAt: storedTime(row.createdAt)! }));
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

import { orChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { runIdForUuid } from "../ids";
import type { DatasetRef } from "../records";
import { type ArtifactRecord, toArtifactRecord } from "../records";

/** The versions of a dataset listed at most, newest first. */
export const MAX_DATASET_VERSIONS = 500;

/** Datasets (OpenLineage namespace + name) across their versions: every artifact that is a version of one. */
export class DatasetReader {
  constructor(private readonly db: Db) {}

  /** For each dataset, its versions, newest first (by when provgraph recorded them, then id); one statement. */
  async versionsOf(datasets: readonly Pick<DatasetRef, "namespace" | "name">[], first: number): Promise<ArtifactRecord[][]> {
    if (datasets.length === 0) return [];
    // Each dataset's versions come from one chunk, in their order.
    const rows = await orChunks(datasets, (chunk) =>
      this.db.artifact.findMany({
        where: { OR: chunk.map((d) => ({ datasetNamespace: d.namespace, datasetName: d.name })) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      }),
    );
    const records = rows.map(toArtifactRecord);
    return datasets.map((d) => records.filter((a) => a.dataset!.namespace === d.namespace && a.dataset!.name === d.name).slice(0, first));
  }

  /**
   * The newest version of a dataset (a named `version` when given), or null when provgraph has none.
   * A version no `version` facet named is the producing run's id, `run_<uuid>`: the bare OpenLineage
   * runId names it too (docs/column-lineage.md), when no version is called that itself.
   */
  async version(namespace: string, name: string, version?: string | null): Promise<ArtifactRecord | null> {
    const find = (datasetVersion?: string) =>
      this.db.artifact.findFirst({
        where: { datasetNamespace: namespace, datasetName: name, ...(datasetVersion !== undefined ? { datasetVersion } : {}) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
    let row = await find(version ?? undefined);
    const runId = version != null ? runIdForUuid(version) : undefined;
    if (!row && runId !== undefined) row = await find(runId);
    return row ? toArtifactRecord(row) : null;
  }
}

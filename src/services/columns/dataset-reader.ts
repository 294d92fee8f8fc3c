import type { Db } from "../../db/client";
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
    const rows = await this.db.artifact.findMany({
      where: { OR: datasets.map((d) => ({ datasetNamespace: d.namespace, datasetName: d.name })) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    const records = rows.map(toArtifactRecord);
    return datasets.map((d) => records.filter((a) => a.dataset!.namespace === d.namespace && a.dataset!.name === d.name).slice(0, first));
  }

  /** The newest version of a dataset (a named `version` when given), or null when provgraph has none. */
  async version(namespace: string, name: string, version?: string | null): Promise<ArtifactRecord | null> {
    const row = await this.db.artifact.findFirst({
      where: { datasetNamespace: namespace, datasetName: name, ...(version != null ? { datasetVersion: version } : {}) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    return row ? toArtifactRecord(row) : null;
  }
}

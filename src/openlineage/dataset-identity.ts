import crypto from "node:crypto";
import type { DatasetVersionRef } from "../../plugins/types";
import { canonicalJson } from "../services/canonical-json";
import { type ArtifactId, artifactIdFor, type RunId } from "../services/ids";
import type { DatasetName } from "./event-facts";

/** The artifact type of every OpenLineage dataset version. */
export const DATASET_ARTIFACT_TYPE = "dataset";

/**
 * A dataset version is an artifact whose content hash names it: sha256 of the canonical JSON of
 * ["openlineage-dataset", namespace, name, version] (version null: the dataset itself, unversioned).
 * So the same version reported by any event, run or producer is one artifact, and its id can be
 * computed by anyone who knows the three.
 */
export function datasetContentHash(ref: DatasetVersionRef): string {
  return `sha256:${crypto.createHash("sha256").update(canonicalJson(["openlineage-dataset", ref.namespace, ref.name, ref.version])).digest("hex")}`;
}

export function datasetArtifactId(ref: DatasetVersionRef): ArtifactId {
  return artifactIdFor(DATASET_ARTIFACT_TYPE, datasetContentHash(ref));
}

/** An output reported without a `version` facet is the version its run made: the version is the runId. */
export function outputVersion(output: DatasetName & { version: string | null }, runId: RunId): DatasetVersionRef {
  return { namespace: output.namespace, name: output.name, version: output.version ?? runId };
}

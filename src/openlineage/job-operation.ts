import { jobOperationVersion } from "../services/job-names";
import type { OperationDeclarationInput } from "../services/recording";
import { DATASET_ARTIFACT_TYPE } from "./dataset-identity";
import type { DatasetName } from "./event-facts";

/** The input and output roles of every OpenLineage job's operation. */
export const INPUT_ROLE = "input";
export const OUTPUT_ROLE = "output";

/** An OpenLineage job's operation version: the job's namespace, so (name, version) names one job. */
export { jobOperationVersion } from "../services/job-names";

/**
 * An OpenLineage job is not declared up front: it becomes an operation on first sight, named after
 * the job, versioned `openlineage:<namespace>`. A CREATOR with one input role and one output role of
 * type `dataset`, neither required; the output role is declared `{inputs: []}`, so stem matching
 * never runs on it and an output may have no source (a run that reports no inputs). Each output's
 * lineage is given explicitly by the ingestion (a JOINT mapping from the run's inputs).
 */
export function jobDeclaration(job: DatasetName): OperationDeclarationInput {
  return {
    name: job.name,
    version: jobOperationVersion(job.namespace),
    kind: "CREATOR",
    groupBy: null,
    inputs: [{ role: INPUT_ROLE, artifactType: DATASET_ARTIFACT_TYPE, required: false }],
    outputs: [{ role: OUTPUT_ROLE, artifactType: DATASET_ARTIFACT_TYPE, required: false, inferLineageFrom: { inputs: [] } }],
  };
}

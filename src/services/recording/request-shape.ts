import { InvalidArgumentError, InvalidIdError } from "../errors";
import { isIdOfKind } from "../ids";
import { EXECUTION_STATUSES, type ExecutionStatus } from "../records";

/** One execution as a pipeline reports it. */
export interface RecordExecutionRequest {
  operation: string;
  operationVersion: string;
  params?: unknown;
  inputs: { role: string; artifactIds: readonly string[] }[];
  outputs: { role: string; artifacts: { originalName: string; contentHash: string; metadata?: unknown }[] }[];
  lineage?: { output: string; sources: readonly string[] }[] | null;
  pipeline?: string | null;
  step?: number | null;
  agent?: string | null;
  parentRunId?: string | null;
  status?: ExecutionStatus | null;
  startedAt?: Date | null;
  endedAt?: Date | null;
  pins?: { inputVersions?: unknown; codeVersion?: string | null; imageDigest?: string | null; deterministic?: boolean | null } | null;
}

/** What can be checked without the database: ids well formed, names not empty, pipeline and step together. */
export function checkRequestShape(request: RecordExecutionRequest): void {
  request.inputs.forEach(({ artifactIds }, i) =>
    artifactIds.forEach((id, j) => {
      if (!isIdOfKind(id, "artifact")) throw new InvalidIdError(`inputs[${i}].artifactIds[${j}]`, id, "artifact (art_…)");
    }),
  );
  request.outputs.forEach(({ artifacts }, i) =>
    artifacts.forEach((artifact, j) => {
      if (!artifact.originalName.trim()) throw new InvalidArgumentError(`outputs[${i}].artifacts[${j}].originalName`, "must not be empty");
      if (!artifact.contentHash.trim()) throw new InvalidArgumentError(`outputs[${i}].artifacts[${j}].contentHash`, "must not be empty");
    }),
  );
  const hasPipeline = request.pipeline != null;
  const hasStep = request.step != null;
  if (hasPipeline !== hasStep) throw new InvalidArgumentError(hasPipeline ? "step" : "pipeline", "pipeline and step are given together or not at all");
  if (hasStep && (!Number.isInteger(request.step) || request.step! < 0)) throw new InvalidArgumentError("step", `must be a whole number ≥ 0, got ${request.step}`);
  if (hasPipeline && !request.pipeline!.trim()) throw new InvalidArgumentError("pipeline", "must not be empty");
  if (request.parentRunId != null && !isIdOfKind(request.parentRunId, "run")) throw new InvalidIdError("parentRunId", request.parentRunId, "run (run_…)");
  if (request.status != null && !EXECUTION_STATUSES.includes(request.status)) throw new InvalidArgumentError("status", `unknown status ${request.status}`);
  if (request.startedAt && request.endedAt && request.endedAt < request.startedAt) throw new InvalidArgumentError("endedAt", "is before startedAt");
}

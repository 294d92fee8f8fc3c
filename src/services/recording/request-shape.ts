import { canonicalContentHash } from "../content-hash";
import { InvalidArgumentError, InvalidIdError } from "../errors";
import { isIdOfKind } from "../ids";
import { type DatasetRef, EXECUTION_STATUSES, type ExecutionStatus } from "../records";
import { unsafeTextReason } from "../safe-text";

/** One execution as a pipeline reports it. */
export interface RecordExecutionRequest {
  operation: string;
  operationVersion: string;
  params?: unknown;
  inputs: { role: string; artifactIds: readonly string[] }[];
  /**
   * `subjectKeys`: the data subjects whose data the artifact holds (erasure plans start from them);
   * only their keyed hashes are stored, and a subject on the suppression list is refused.
   */
  outputs: { role: string; artifacts: { originalName: string; contentHash: string; metadata?: unknown; dataset?: DatasetRef | null; subjectKeys?: readonly string[] | null }[] }[];
  /** Explicit mappings; `kind` (default JOINT) says whether several sources are one joint derivation or each its own. */
  lineage?: { output: string; sources: readonly string[]; kind?: "JOINT" | "INDEPENDENT" | null }[] | null;
  pipeline?: string | null;
  step?: number | null;
  agent?: string | null;
  parentRunId?: string | null;
  status?: ExecutionStatus | null;
  startedAt?: Date | null;
  endedAt?: Date | null;
  pins?: { inputVersions?: unknown; codeVersion?: string | null; imageDigest?: string | null; deterministic?: boolean | null } | null;
}

/** Subject keys declared on one artifact at most; a key's length at most. */
export const MAX_SUBJECT_KEYS = 1_000;
export const MAX_SUBJECT_KEY_LENGTH = 1_024;

/** Subject keys are secrets of a kind: what is wrong with one is said without ever quoting it. */
function checkSubjectKeys(field: string, keys: readonly string[] | null | undefined): void {
  if (!keys) return;
  if (keys.length > MAX_SUBJECT_KEYS) throw new InvalidArgumentError(field, `at most ${MAX_SUBJECT_KEYS} subject keys per artifact, got ${keys.length}`);
  keys.forEach((key, k) => {
    if (key.trim() === "") throw new InvalidArgumentError(`${field}[${k}]`, "must not be empty");
    if (key.length > MAX_SUBJECT_KEY_LENGTH) throw new InvalidArgumentError(`${field}[${k}]`, `is longer than ${MAX_SUBJECT_KEY_LENGTH} characters`);
    const reason = unsafeTextReason(key);
    if (reason) throw new InvalidArgumentError(`${field}[${k}]`, reason);
  });
}

/**
 * What can be checked without the database: ids well formed, names, roles and hashes safe text,
 * content hashes in a supported format, pipeline and step together. Returns the request with its
 * content hashes in canonical spelling (one content, one artifact id).
 */
export function checkRequestShape(request: RecordExecutionRequest): RecordExecutionRequest {
  const text = (field: string, value: string | null | undefined, options: { nonEmpty?: boolean } = {}) => {
    if (value == null) return;
    if (options.nonEmpty && !value.trim()) throw new InvalidArgumentError(field, "must not be empty");
    const reason = unsafeTextReason(value);
    if (reason) throw new InvalidArgumentError(field, reason);
  };
  text("operation", request.operation);
  text("operationVersion", request.operationVersion);
  request.inputs.forEach(({ role, artifactIds }, i) => {
    text(`inputs[${i}].role`, role);
    artifactIds.forEach((id, j) => {
      if (!isIdOfKind(id, "artifact")) throw new InvalidIdError(`inputs[${i}].artifactIds[${j}]`, id, "artifact (art_…)");
    });
  });
  const outputs = request.outputs.map(({ role, artifacts }, i) => {
    text(`outputs[${i}].role`, role);
    return {
      role,
      artifacts: artifacts.map((artifact, j) => {
        text(`outputs[${i}].artifacts[${j}].originalName`, artifact.originalName, { nonEmpty: true });
        checkSubjectKeys(`outputs[${i}].artifacts[${j}].subjectKeys`, artifact.subjectKeys);
        if (artifact.dataset) {
          text(`outputs[${i}].artifacts[${j}].dataset.namespace`, artifact.dataset.namespace);
          text(`outputs[${i}].artifacts[${j}].dataset.name`, artifact.dataset.name);
          text(`outputs[${i}].artifacts[${j}].dataset.version`, artifact.dataset.version);
        }
        return { ...artifact, contentHash: canonicalContentHash(`outputs[${i}].artifacts[${j}].contentHash`, artifact.contentHash) };
      }),
    };
  });
  request.lineage?.forEach((entry, i) => {
    text(`lineage[${i}].output`, entry.output);
    entry.sources.forEach((source, j) => text(`lineage[${i}].sources[${j}]`, source));
  });
  text("agent", request.agent);
  const hasPipeline = request.pipeline != null;
  const hasStep = request.step != null;
  if (hasPipeline !== hasStep) throw new InvalidArgumentError(hasPipeline ? "step" : "pipeline", "pipeline and step are given together or not at all");
  if (hasStep && (!Number.isInteger(request.step) || request.step! < 0)) throw new InvalidArgumentError("step", `must be a whole number ≥ 0, got ${request.step}`);
  text("pipeline", request.pipeline, { nonEmpty: true });
  if (request.parentRunId != null && !isIdOfKind(request.parentRunId, "run")) throw new InvalidIdError("parentRunId", request.parentRunId, "run (run_…)");
  if (request.status != null && !EXECUTION_STATUSES.includes(request.status)) throw new InvalidArgumentError("status", `unknown status ${request.status}`);
  if (request.startedAt && request.endedAt && request.endedAt < request.startedAt) throw new InvalidArgumentError("endedAt", "is before startedAt");
  return { ...request, outputs };
}

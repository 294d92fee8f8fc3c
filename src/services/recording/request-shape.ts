import { canonicalContentHash } from "../content-hash";
import { InvalidArgumentError, InvalidIdError } from "../errors";
import { isIdOfKind } from "../ids";
import { type DatasetRef, EXECUTION_STATUSES, type ExecutionStatus } from "../records";
import { unsafeNameReason, unsafeTextReason } from "../safe-text";
import { openLineageJobNamespace } from "../job-names";
import { yieldToEventLoop } from "./yield";

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
  outputs: { role: string; artifacts: { originalName: string; contentHash: string; metadata?: unknown; dataset?: DatasetVersionDraft | null; subjectKeys?: readonly string[] | null }[] }[];
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
  /** A retry with the same key and input is answered with the first recording (src/services/recording/idempotency.ts). */
  idempotencyKey?: string | null;
  /**
   * The run is a differentially private release: what it spends of the budgets of the protected
   * datasets it reads, directly or through lineage (src/services/privacy debits them in its unit).
   */
  privacyCost?: PrivacyCost | null;
  /**
   * The purpose the run acts under (`fraud-investigation`): one the recording token carries, and one
   * every tag on its inputs allows (src/services/compliance checks it in its unit; PURPOSE_NOT_PERMITTED).
   */
  purpose?: string | null;
}

/** A purpose data may serve, a request or a run may act under (`fraud-investigation`, `marketing`). */
export const PURPOSE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
export const PURPOSE_SYNTAX = "1-64 letters, digits, '_', '.' or '-' (what a purpose:<NAME> scope can name)";

/** A release's privacy cost: ε (> 0), δ (0 ≤ δ < 1, default 0), and the mechanism that spent it. */
export interface PrivacyCost {
  epsilon: number;
  delta?: number | null;
  mechanism: string;
}

/** The largest ε one release may declare (budgets are kept to 10⁻¹² in 63-bit integers). */
export const MAX_RELEASE_EPSILON = 1_000_000;

/**
 * A privacy cost's shape, `field` naming where it was given (`privacyCost`, an event's facet): ε a
 * finite number in (0, 1,000,000], δ in [0, 1), the mechanism 1–200 characters of safe text.
 * Returns it with δ defaulted to 0.
 */
export function checkPrivacyCost(cost: PrivacyCost, field: string, fail: (field: string, reason: string) => Error = (f, r) => new InvalidArgumentError(f, r)): { epsilon: number; delta: number; mechanism: string } {
  if (typeof cost.epsilon !== "number" || !Number.isFinite(cost.epsilon) || cost.epsilon <= 0 || cost.epsilon > MAX_RELEASE_EPSILON) {
    throw fail(`${field}.epsilon`, `must be a number above 0 and at most ${MAX_RELEASE_EPSILON.toLocaleString("en")}, got ${JSON.stringify(cost.epsilon)}`);
  }
  const delta = cost.delta ?? 0;
  if (typeof delta !== "number" || !Number.isFinite(delta) || delta < 0 || delta >= 1) throw fail(`${field}.delta`, `must be a number from 0 up to (not including) 1, got ${JSON.stringify(cost.delta)}`);
  if (typeof cost.mechanism !== "string" || !cost.mechanism.trim() || cost.mechanism.length > 200) throw fail(`${field}.mechanism`, "must name the mechanism (1-200 characters), e.g. laplace, gaussian");
  const unsafe = unsafeTextReason(cost.mechanism);
  if (unsafe) throw fail(`${field}.mechanism`, unsafe);
  return { epsilon: cost.epsilon, delta, mechanism: cost.mechanism };
}

/** The dataset an output is a version of, as a request names it (no version: the dataset itself, unversioned). */
export type DatasetVersionDraft = Omit<DatasetRef, "version"> & { version?: string | null };

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

/** Artifacts checked between two turns of the event loop when a request is checked in turns. */
const ARTIFACTS_PER_TURN = 1_000;

/**
 * What can be checked without the database: ids well formed, names, roles and hashes safe text,
 * content hashes in a supported format, pipeline and step together. Returns the request with its
 * content hashes in canonical spelling (one content, one artifact id).
 */
export function checkRequestShape(request: RecordExecutionRequest): RecordExecutionRequest {
  const checks = shapeChecks(request);
  for (let step = checks.next(); ; step = checks.next()) if (step.done) return step.value;
}

/** The same, letting other work run every few thousand artifacts (a 30,000-output execution takes tens of ms to check). */
export async function checkRequestShapeInTurns(request: RecordExecutionRequest): Promise<RecordExecutionRequest> {
  const checks = shapeChecks(request);
  for (let step = checks.next(); ; step = checks.next()) {
    if (step.done) return step.value;
    await yieldToEventLoop();
  }
}

/** The checks, pausing (yield) every ARTIFACTS_PER_TURN artifacts; field paths are only spelled out for an error. */
function* shapeChecks(request: RecordExecutionRequest): Generator<void, RecordExecutionRequest> {
  const check = (field: string | (() => string), value: string | null | undefined, nonEmpty: boolean | undefined, reasonOf: (value: string) => string | undefined) => {
    if (value == null) return;
    const fieldName = () => (typeof field === "string" ? field : field());
    if (nonEmpty && !value.trim()) throw new InvalidArgumentError(fieldName(), "must not be empty");
    const reason = reasonOf(value);
    if (reason) throw new InvalidArgumentError(fieldName(), reason);
  };
  type Check = (field: string | (() => string), value: string | null | undefined, options?: { nonEmpty?: boolean }) => void;
  // Free text, such as a file's original name; a name keys an index, so it is also bounded (MAX_NAME_BYTES).
  const text: Check = (field, value, options = {}) => check(field, value, options.nonEmpty, unsafeTextReason);
  const name: Check = (field, value, options = {}) => check(field, value, options.nonEmpty, unsafeNameReason);
  let sinceTurn = 0;
  name("operation", request.operation);
  name("operationVersion", openLineageJobNamespace(request.operationVersion) ?? request.operationVersion);
  for (let i = 0; i < request.inputs.length; i++) {
    const { role, artifactIds } = request.inputs[i];
    name(() => `inputs[${i}].role`, role);
    for (let j = 0; j < artifactIds.length; j++) {
      if (!isIdOfKind(artifactIds[j], "artifact")) throw new InvalidIdError(`inputs[${i}].artifactIds[${j}]`, artifactIds[j], "artifact (art_…)");
      if (++sinceTurn === ARTIFACTS_PER_TURN) (sinceTurn = 0), yield;
    }
  }
  const outputs: RecordExecutionRequest["outputs"] = [];
  for (let i = 0; i < request.outputs.length; i++) {
    const { role, artifacts } = request.outputs[i];
    name(() => `outputs[${i}].role`, role);
    const checked: RecordExecutionRequest["outputs"][number]["artifacts"] = [];
    for (let j = 0; j < artifacts.length; j++) {
      const artifact = artifacts[j];
      text(() => `outputs[${i}].artifacts[${j}].originalName`, artifact.originalName, { nonEmpty: true });
      if (artifact.subjectKeys) checkSubjectKeys(`outputs[${i}].artifacts[${j}].subjectKeys`, artifact.subjectKeys);
      if (artifact.dataset) {
        name(() => `outputs[${i}].artifacts[${j}].dataset.namespace`, artifact.dataset.namespace);
        name(() => `outputs[${i}].artifacts[${j}].dataset.name`, artifact.dataset.name);
        name(() => `outputs[${i}].artifacts[${j}].dataset.version`, artifact.dataset.version);
      }
      checked.push({ ...artifact, contentHash: canonicalContentHash(() => `outputs[${i}].artifacts[${j}].contentHash`, artifact.contentHash) });
      if (++sinceTurn === ARTIFACTS_PER_TURN) (sinceTurn = 0), yield;
    }
    outputs.push({ role, artifacts: checked });
  }
  request.lineage?.forEach((entry, i) => {
    text(`lineage[${i}].output`, entry.output);
    entry.sources.forEach((source, j) => text(`lineage[${i}].sources[${j}]`, source));
  });
  text("agent", request.agent);
  text("pins.codeVersion", request.pins?.codeVersion);
  text("pins.imageDigest", request.pins?.imageDigest);
  const hasPipeline = request.pipeline != null;
  const hasStep = request.step != null;
  if (hasPipeline !== hasStep) throw new InvalidArgumentError(hasPipeline ? "step" : "pipeline", "pipeline and step are given together or not at all");
  if (hasStep && (!Number.isInteger(request.step) || request.step! < 0)) throw new InvalidArgumentError("step", `must be a whole number ≥ 0, got ${request.step}`);
  name("pipeline", request.pipeline, { nonEmpty: true });
  if (request.parentRunId != null && !isIdOfKind(request.parentRunId, "run")) throw new InvalidIdError("parentRunId", request.parentRunId, "run (run_…)");
  if (request.status != null && !EXECUTION_STATUSES.includes(request.status)) throw new InvalidArgumentError("status", `unknown status ${request.status}`);
  if (request.startedAt && request.endedAt && request.endedAt < request.startedAt) throw new InvalidArgumentError("endedAt", "is before startedAt");
  const privacyCost = request.privacyCost ? checkPrivacyCost(request.privacyCost, "privacyCost") : null;
  if (request.purpose != null && !PURPOSE_NAME.test(request.purpose)) throw new InvalidArgumentError("purpose", `'${request.purpose.slice(0, 80)}' is not a purpose: ${PURPOSE_SYNTAX}`);
  return { ...request, outputs, ...(privacyCost ? { privacyCost } : {}) };
}

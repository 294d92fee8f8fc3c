import type { ProvgraphPlugin } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { InvalidArgumentError, NotFoundError } from "../errors";
import { newRunId, type RunId, type SpecId } from "../ids";
import type { ExecutionLinkRecord, OperationRecord } from "../records";
import { businessDateOf } from "./business-date";
import { checkIdempotencyKey, claimKey, requestHashOf, sameRequestOrRefuse, type StoredKey, storedKey } from "./idempotency";
import type { CommitPath, RecordingUnit } from "./commit-path";
import type { OperationRegistry } from "./operation-registry";
import { prepareExecution } from "./prepared-execution";
import { observeRecording, type RecordingObserver } from "./recording-observer";
import { type RecordedExecution, recordedExecutionOf, unpairedOf } from "./recorded-execution";
import { checkRequestShapeInTurns, type RecordExecutionRequest } from "./request-shape";
import { specIdOf } from "./spec-id";
import { stageExecution } from "./stage";
import { noteUnitWrites, type RecordingActor } from "./unit-writes";
import { yieldToEventLoop } from "./yield";
import { markCpuPhase } from "../../cpu-phases";

/** Who records when the caller does not say (a service call outside any request). */
const UNKNOWN_ACTOR: RecordingActor = { name: "unknown", tokenId: null };

export type { RecordExecutionRequest } from "./request-shape";

/** Outputs above which the answer is built in a turn of the event loop of its own. */
const ANSWER_IN_ITS_OWN_TURN = 2_000;
export type { RecordedExecution } from "./recorded-execution";

export interface RecordOptions {
  /**
   * Runs last inside the recording's unit, so what it writes commits or rolls back with the
   * execution: the audit entry of a recording made with a token (src/auth), at no extra commit.
   */
  beforeCommit?: (tx: DbTx, runId: RunId) => Promise<void>;
  /** Who records it (a release's ledger entries name them). */
  actor?: RecordingActor;
}

/**
 * The recording pipeline (DESIGN "Recording pipeline"): capture → build → enrich → validate →
 * propagate → stage, as one unit on the commit path. Any failure throws a typed error and the
 * unit's transaction rolls back: a rejected execution writes nothing.
 */
export class ExecutionRecorder {
  constructor(
    private readonly commits: CommitPath,
    private readonly operations: OperationRegistry,
    private readonly plugins: readonly ProvgraphPlugin[],
    private readonly observer?: RecordingObserver,
  ) {}

  /** Without an idempotency key, always a recording; with one, the first recording's answer when the key was used before. */
  record(reported: RecordExecutionRequest & { idempotencyKey?: null }, options?: RecordOptions): Promise<RecordedExecution>;
  record(reported: RecordExecutionRequest, options?: RecordOptions): Promise<RecordedExecution | ReplayedExecution>;
  async record(reported: RecordExecutionRequest, options: RecordOptions = {}): Promise<RecordedExecution | ReplayedExecution> {
    markCpuPhase("core");
    return observeRecording(this.observer, "execution", (async () => answered(await this.commits.run(this.unitOf(await this.plan(reported), options))))());
  }

  /**
   * A batch (recordExecutions, OpenLineage batches): every execution its own unit, all handed to the
   * commit path at once and in order, so they share transactions (group commit) and each sees the
   * ones before it. One outcome per request, in order: what was recorded, or why it was not.
   */
  async recordMany(reported: readonly RecordExecutionRequest[], options: RecordOptions = {}): Promise<PromiseSettledResult<RecordedExecution | ReplayedExecution>[]> {
    markCpuPhase("core");
    const plans = await Promise.allSettled(reported.map((request) => this.plan(request)));
    return answeredAll(await Promise.allSettled(plans.map((plan) => observeRecording(this.observer, "execution", plan.status === "fulfilled" ? this.commits.run(this.unitOf(plan.value, options)) : Promise.reject(plan.reason)))));
  }

  /** What can be decided before the unit: the request's shape, its operation, its ids. */
  private async plan(reported: RecordExecutionRequest): Promise<Plan> {
    const key = checkIdempotencyKey("idempotencyKey", reported.idempotencyKey);
    const request = await checkRequestShapeInTurns(reported);
    const operation = await this.operations.find(request.operation, request.operationVersion);
    if (!operation) throw new NotFoundError("operation", `${request.operation}@${request.operationVersion}`, "operation");
    if (operation.kind === "COMPOSITE") throw new InvalidArgumentError("operation", `${operation.name}@${operation.version} is a composite: record its runs with recordCompositeExecution`);
    // A declared business date that is no date is refused before the unit (staging reads it again).
    businessDateOf(operation, request.params);
    const idempotency = key === null ? null : { key, requestHash: requestHashOf("RECORD_EXECUTION", request) };
    return { request, operation, ids: { runId: newRunId(), specId: specIdOf(operation, request), recordedAt: new Date() }, idempotency };
  }

  private unitOf({ request, operation, ids, idempotency }: Plan, options: RecordOptions): RecordingUnit<RecordedExecution | ReplayedExecution> {
    return async (tx, scope) => {
      // A key already used: the first recording's answer (or IDEMPOTENCY_KEY_REUSED), nothing recorded again.
      const replay = async (stored: StoredKey): Promise<ReplayedExecution> => {
        const first = sameRequestOrRefuse(idempotency!.key, stored, "RECORD_EXECUTION", idempotency!.requestHash);
        if (options.beforeCommit) await options.beforeCommit(tx, first.runId);
        return { replayOf: first.runId, ...(first.answer as Omit<ReplayedExecution, "replayOf">) };
      };
      const known = idempotency && (await storedKey(tx, idempotency.key));
      if (known) return replay(known);
      const prepared = await prepareExecution(tx, this.plugins, operation, request, ids);
      if (idempotency) {
        const answer: Omit<ReplayedExecution, "replayOf"> = { edgeCount: prepared.edges.length, unpaired: unpairedOf(prepared) };
        const holder = await claimKey(tx, idempotency.key, { kind: "RECORD_EXECUTION", requestHash: idempotency.requestHash, runId: ids.runId, answer }, ids.recordedAt);
        if (holder) return replay(holder);
      }
      const created = await stageExecution(tx, prepared);
      if (request.privacyCost) {
        const cost = { epsilon: request.privacyCost.epsilon, delta: request.privacyCost.delta ?? 0, mechanism: request.privacyCost.mechanism };
        noteUnitWrites(tx, { privacyReleases: [{ runId: ids.runId, cost, inputIds: prepared.draft.inputs.map((i) => i.id), principal: options.actor ?? UNKNOWN_ACTOR, at: { field: "privacyCost" } }] });
      }
      if (request.purpose) {
        noteUnitWrites(tx, { runPurposes: [{ runId: ids.runId, purpose: request.purpose, inputIds: prepared.draft.inputs.map((i) => i.id), principal: options.actor ?? UNKNOWN_ACTOR, at: { field: "purpose" } }] });
      }
      // Building a big execution's answer takes a while of its own.
      if (prepared.draft.outputs.length > ANSWER_IN_ITS_OWN_TURN) await yieldToEventLoop();
      const recorded = recordedExecutionOf(prepared, created);
      if (options.beforeCommit) await options.beforeCommit(tx, ids.runId);
      scope.emit({ type: "EXECUTION_RECORDED", execution: recorded.execution, edges: recorded.edges });
      return recorded;
    };
  }
}

/** What follows a commit is the answer (the CPU budget's marks: src/cpu-phases.ts). */
function answered<T>(value: T): T {
  markCpuPhase("response");
  return value;
}
const answeredAll = answered;

interface Plan {
  request: RecordExecutionRequest;
  operation: OperationRecord;
  ids: { runId: RunId; specId: SpecId; recordedAt: Date };
  idempotency: { key: string; requestHash: string } | null;
}

/** A retry answered from the recording its idempotency key made first: that run, and what its answer said. */
export interface ReplayedExecution {
  replayOf: RunId;
  edgeCount: number;
  unpaired: ExecutionLinkRecord[];
}


import { ArtifactValidationError } from "../../../plugins/errors";
import type { DraftExecution, LineageMapping, ProvgraphPlugin, ProvenanceEdgeDraft } from "../../../plugins/types";
import type { Db, DbTx } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import { InvalidArgumentError, InvalidIdError, NotFoundError } from "../errors";
import { type ArtifactId, artifactIdFor, isIdOfKind, newRunId, type RunId, specIdFrom, type SpecId } from "../ids";
import { type ArtifactRecord, EXECUTION_STATUSES, type ExecutionLinkRecord, type ExecutionRecord, type ExecutionStatus, type OperationRecord, toArtifactRecord } from "../records";
import { buildEdges } from "./build-edges";
import { insertRows } from "./bulk-insert";
import { declarationOf, type OperationRegistry } from "./operation-registry";
import { recordPipelineStep } from "./pipeline-steps";
import { prismaReadPort } from "./prisma-read-port";

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

export interface RecordedExecution {
  execution: ExecutionRecord;
  edges: ProvenanceEdgeDraft[];
  /** What the execution used and produced, as the read side would return them. */
  links: { consumed: ExecutionLinkRecord[]; produced: ExecutionLinkRecord[] };
  /** The stored input artifacts, and the artifacts this recording created (not outputs whose content was already stored). */
  artifacts: ArtifactRecord[];
}

/** Big executions may take a while inside their transaction; waiting for the write lock is bounded. */
const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 120_000 };

/**
 * The recording pipeline (DESIGN "Recording pipeline"): capture → build → enrich → validate →
 * propagate → stage + commit, in one database transaction. Any failure throws a typed error and
 * the transaction rolls back: a rejected execution writes nothing.
 */
export class ExecutionRecorder {
  constructor(
    private readonly db: Db,
    private readonly operations: OperationRegistry,
    private readonly plugins: readonly ProvgraphPlugin[],
  ) {}

  async record(request: RecordExecutionRequest): Promise<RecordedExecution> {
    checkRequestShape(request);
    const operation = await this.operations.find(request.operation, request.operationVersion);
    if (!operation) throw new NotFoundError("operation", `${request.operation}@${request.operationVersion}`, "operation");
    const runId = newRunId();
    const specId = specIdOf(operation, request);
    const recordedAt = new Date();
    const { draft, edges, created, inputs } = await this.db.$transaction(async (tx) => {
      const { draft, inputs } = await buildDraft(tx, operation, request, runId, specId);
      const port = prismaReadPort(tx);
      const mappings: LineageMapping[] = [];
      const mapped = new Set<string>();
      for (const plugin of this.plugins) {
        if (plugin.stage !== "capture") continue;
        for (const mapping of await plugin.capture(draft, { alreadyMapped: mapped, port })) {
          mappings.push(mapping);
          if (mapping.kind !== "CONFIG_REFERENCE") mapped.add(mapping.output);
        }
      }
      const built = await buildEdges(draft, mappings, port);
      for (const plugin of this.plugins) if (plugin.stage === "validate") await plugin.validate(draft, { mappings, edges: built, port });
      for (const plugin of this.plugins) if (plugin.stage === "propagate") await plugin.propagate(draft, { edges: built, port });
      // The step is checked (and recorded) before staging: once rows are staged nothing expected can
      // fail, so readers sharing SQLite's one connection never see rows that are then rolled back.
      if (draft.pipeline !== null && draft.step !== null) await recordPipelineStep(tx, draft, operation, recordedAt);
      const created = await stage(tx, draft, operation, request, built, recordedAt);
      return { draft, edges: built, created: new Set(created), inputs };
    }, TRANSACTION_OPTIONS);
    const link = (a: { id: string; role: string; index: number }): ExecutionLinkRecord => ({ runId, artifactId: a.id as ArtifactId, role: a.role, position: a.index });
    const byRoleAndPosition = (a: ExecutionLinkRecord, b: ExecutionLinkRecord) => (a.role < b.role ? -1 : a.role > b.role ? 1 : a.position - b.position);
    return {
      links: { consumed: draft.inputs.map(link).sort(byRoleAndPosition), produced: draft.outputs.map(link).sort(byRoleAndPosition) },
      artifacts: [
        ...inputs,
        ...draft.outputs
          .filter((o) => created.has(o.id))
          .map((o) => ({ id: o.id as ArtifactId, artifactType: o.artifactType!, contentHash: o.contentHash, originalName: o.originalName, metadata: o.metadata, dataset: null, createdAt: recordedAt })),
      ],
      execution: {
        runId,
        specId,
        operationId: operation.id,
        status: request.status ?? "COMPLETED",
        params: request.params ?? null,
        agent: request.agent ?? null,
        startedAt: request.startedAt ?? null,
        endedAt: request.endedAt ?? null,
        recordedAt,
        pins: {
          inputVersions: request.pins?.inputVersions ?? null,
          codeVersion: request.pins?.codeVersion ?? null,
          imageDigest: request.pins?.imageDigest ?? null,
          deterministic: request.pins?.deterministic ?? null,
        },
        pipeline: request.pipeline ?? null,
        step: request.step ?? null,
        parentRunId: (request.parentRunId ?? null) as RunId | null,
      },
      edges,
    };
  }
}

/** Same operation, version, params (key order irrelevant) and inputs by role (order irrelevant) = same specId. */
export function specIdOf(operation: Pick<OperationRecord, "name" | "version">, request: Pick<RecordExecutionRequest, "params" | "inputs">): SpecId {
  const inputs: Record<string, string[]> = {};
  for (const { role, artifactIds } of request.inputs) inputs[role] = [...(inputs[role] ?? []), ...artifactIds].sort();
  return specIdFrom(canonicalJson({ operation: operation.name, version: operation.version, params: request.params ?? null, inputs }));
}

function checkRequestShape(request: RecordExecutionRequest): void {
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

async function buildDraft(
  tx: DbTx,
  operation: OperationRecord,
  request: RecordExecutionRequest,
  runId: RunId,
  specId: SpecId,
): Promise<{ draft: DraftExecution; inputs: ArtifactRecord[] }> {
  const inputIds = [...new Set(request.inputs.flatMap((i) => i.artifactIds))];
  const inputs = inputIds.length === 0 ? [] : (await tx.artifact.findMany({ where: { id: { in: inputIds } } })).map(toArtifactRecord);
  const stored = new Map(inputs.map((a) => [a.id as string, a]));
  for (const { role, artifactIds } of request.inputs) {
    const missing = artifactIds.filter((id) => !stored.has(id));
    if (missing.length > 0) {
      throw new ArtifactValidationError(`input role '${role}' names artifacts that do not exist: ${missing.join(", ")}`, { rule: "UNKNOWN_INPUT", role, candidates: missing });
    }
  }
  if (request.parentRunId != null && !(await tx.execution.findUnique({ where: { runId: request.parentRunId }, select: { runId: true } }))) {
    throw new NotFoundError("execution", request.parentRunId, "parentRunId");
  }
  const outputTypes = new Map(operation.outputs.map((role) => [role.role, role.artifactType]));
  const draft: DraftExecution = {
    runId,
    specId,
    operation: declarationOf(operation),
    params: request.params ?? null,
    inputs: request.inputs.flatMap(({ role, artifactIds }) =>
      artifactIds.map((id, index) => ({ id, role, index, artifactType: stored.get(id)!.artifactType, originalName: stored.get(id)!.originalName })),
    ),
    outputs: request.outputs.flatMap(({ role, artifacts }) =>
      artifacts.map((artifact, index) => {
        const artifactType = outputTypes.get(role) ?? null;
        return {
          // An undeclared role gets no id of its own; artifact validation refuses it before anything is staged.
          id: artifactType === null ? "" : artifactIdFor(artifactType, artifact.contentHash),
          role,
          index,
          originalName: artifact.originalName,
          contentHash: artifact.contentHash,
          artifactType,
          metadata: artifact.metadata ?? null,
        };
      }),
    ),
    explicitLineage: (request.lineage ?? []).map((entry) => ({ output: entry.output, sources: [...entry.sources] })),
    pipeline: request.pipeline ?? null,
    step: request.step ?? null,
    parentRunId: request.parentRunId ?? null,
  };
  return { draft, inputs };
}

const json = (value: unknown) => (value === null || value === undefined ? null : canonicalJson(value));

// Seed "staging-commit": artifacts (existing content is kept as it is: provenance is immutable),
// then the execution, its links, and its edges, all in the caller's transaction. Returns the ids
// of the artifacts it created.
async function stage(tx: DbTx, draft: DraftExecution, operation: OperationRecord, request: RecordExecutionRequest, edges: ProvenanceEdgeDraft[], at: Date): Promise<string[]> {
  const created = await insertRows(
    tx,
    "Artifact",
    ["id", "artifactType", "contentHash", "originalName", "metadata", "createdAt"],
    draft.outputs.map((o) => [o.id, o.artifactType, o.contentHash, o.originalName, json(o.metadata), at]),
    { ignoreConflicts: true, returning: "id" },
  );
  const pins = request.pins ?? {};
  await insertRows(
    tx,
    "Execution",
    ["runId", "specId", "operationId", "status", "params", "agent", "startedAt", "endedAt", "recordedAt", "pinInputVersions", "pinCodeVersion", "pinImageDigest", "pinDeterministic", "pipeline", "step", "parentRunId"],
    [
      [
        draft.runId,
        draft.specId,
        operation.id,
        request.status ?? "COMPLETED",
        json(draft.params),
        request.agent ?? null,
        request.startedAt ?? null,
        request.endedAt ?? null,
        at,
        json(pins.inputVersions),
        pins.codeVersion ?? null,
        pins.imageDigest ?? null,
        pins.deterministic ?? null,
        draft.pipeline,
        draft.step,
        draft.parentRunId,
      ],
    ],
  );
  await insertRows(tx, "ExecutionArtifact", ["runId", "artifactId", "direction", "role", "position"], [
    ...draft.inputs.map((i) => [draft.runId, i.id, "CONSUMED", i.role, i.index]),
    ...draft.outputs.map((o) => [draft.runId, o.id, "PRODUCED", o.role, o.index]),
  ]);
  await insertRows(
    tx,
    "ProvenanceEdge",
    ["sourceId", "targetId", "runId", "kind", "groupId", "stepBoundary", "sourceType", "targetType", "createdAt"],
    edges.map((e) => [e.sourceId, e.targetId, e.runId, e.kind, e.groupId, e.stepBoundary, e.sourceType, e.targetType, at]),
  );
  return created;
}

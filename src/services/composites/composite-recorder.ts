import { inChunks } from "../../db/chunked-lists";
import { LineageIntegrityError, ArtifactValidationError } from "../../../plugins/errors";
import { artifactReferencesIn } from "../../../plugins/lineage-inference";
import { CONFIG_INPUT_ROLE, type InputArtifact, type OutputDraft, type ProvgraphPlugin } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import { NotFoundError } from "../errors";
import { isIdOfKind, newRunId, type RunId } from "../ids";
import {
  checkIdempotencyKey,
  checkRequestShape,
  claimKey,
  type CommitPath,
  emptyPendingRecords,
  insertRows,
  type OperationRegistry,
  type PreparedExecution,
  prepareExecution,
  type RecordedExecution,
  recordedExecutionOf,
  type RecordExecutionRequest,
  requestHashOf,
  sameRequestOrRefuse,
  specIdOf,
  type StageableExecution,
  stageExecution,
  type StoredKey,
  storedKey,
  unpairedOf,
  observeRecording,
  type RecordingObserver,
} from "../recording";
import { type ArtifactRecord, type ExecutionLinkRecord, type OperationRecord, toArtifactRecord } from "../records";
import type { CompositeRegistry } from "./composite-registry";
import { type CompositeDefinition, exposedRoleOf, type IntermediatesMode } from "./definition";
import { compositeStatusOf, type CompositeStepRunRequest, flagValuesOf, type PlannedStep, planSteps } from "./run-plan";
import { composeShortcuts } from "./shortcut-edges";
import { inStep } from "./step-errors";

/** One run of a composite as the pipeline reports it (GraphQL RecordCompositeExecutionInput). */
export interface RecordCompositeRequest {
  composite: string;
  compositeVersion: string;
  params?: unknown;
  /** A JSON object of booleans: the value of each declared flag in this run (absent = false). */
  flags?: unknown;
  inputs: { role: string; artifactIds: readonly string[] }[];
  /** In the order they ran. */
  steps: CompositeStepRunRequest[];
  pipeline?: string | null;
  step?: number | null;
  agent?: string | null;
  pins?: RecordExecutionRequest["pins"];
  /** Default: the earliest startedAt / latest endedAt of its steps. */
  startedAt?: Date | null;
  endedAt?: Date | null;
  /** A retry with the same key and input is answered with the first run recorded (src/services/recording/idempotency.ts). */
  idempotencyKey?: string | null;
}

/** A retry answered from the run its idempotency key recorded first. */
export interface ReplayedComposite {
  replayOf: RunId;
  steps: { step: string; runId: RunId }[];
  shortcutEdgeCount: number;
  edgeCount: number;
  unpaired: (ExecutionLinkRecord & { step: string })[];
}

export interface RecordedComposite {
  /** The composite's own execution: its inputs, its outputs, its shortcut edges. */
  execution: RecordedExecution;
  /** Each step's execution (parent: the composite's), in the order they ran, as persisted. */
  steps: { step: string; recorded: RecordedExecution }[];
  flags: Record<string, boolean>;
  intermediates: IntermediatesMode;
}

/**
 * Records a composite run as ONE unit on the commit path: the composite's execution, each step as a
 * normal execution (parent = the composite's run) prepared by the same plugins as any execution, and
 * the shortcut edges composed from the steps' lineage, all staged per the composite's intermediates
 * mode. A step that fails validation rejects the whole unit, its error naming the step; nothing is
 * written. Events: EXECUTION_RECORDED for the composite, then for each step.
 */
export class CompositeRecorder {
  constructor(
    private readonly commits: CommitPath,
    private readonly composites: CompositeRegistry,
    private readonly operations: OperationRegistry,
    private readonly plugins: readonly ProvgraphPlugin[],
    private readonly observer?: RecordingObserver,
  ) {}

  record(reported: RecordCompositeRequest): Promise<RecordedComposite | ReplayedComposite> {
    return observeRecording(this.observer, "composite", this.recordUnobserved(reported));
  }

  private async recordUnobserved(reported: RecordCompositeRequest): Promise<RecordedComposite | ReplayedComposite> {
    const key = checkIdempotencyKey("idempotencyKey", reported.idempotencyKey);
    const requestHash = key === null ? "" : requestHashOf("RECORD_COMPOSITE_EXECUTION", reported);
    const where = `${reported.composite}@${reported.compositeVersion}`;
    const definition = await this.composites.find(reported.composite, reported.compositeVersion);
    const operation = definition && (await this.operations.find(definition.name, definition.version));
    if (!definition || !operation) throw new NotFoundError("composite", where, "composite");
    const flags = flagValuesOf(definition, reported.flags);
    const planned = planSteps(definition, flags, reported.steps);
    const stepOperations = new Map<string, OperationRecord>();
    for (const step of definition.steps) stepOperations.set(step.name, (await this.operations.find(step.operation, step.operationVersion))!);
    const request = checkRequestShape({
      operation: definition.name,
      operationVersion: definition.version,
      params: reported.params,
      inputs: reported.inputs,
      outputs: [],
      pipeline: reported.pipeline,
      step: reported.step,
      agent: reported.agent,
      pins: reported.pins,
      startedAt: reported.startedAt,
      endedAt: reported.endedAt,
    });
    const runId = newRunId();
    // The specId covers what decides the run: params, every flag's value and the inputs by role.
    const specId = specIdOf(operation, { params: { params: reported.params ?? null, flags }, inputs: request.inputs });
    const recordedAt = new Date();

    return this.commits.run(async (tx, scope): Promise<RecordedComposite | ReplayedComposite> => {
      // A key already used: the first run's answer (or IDEMPOTENCY_KEY_REUSED), nothing recorded again.
      const replay = (stored: StoredKey): ReplayedComposite => ({ replayOf: stored.runId, ...(sameRequestOrRefuse(key!, stored, "RECORD_COMPOSITE_EXECUTION", requestHash).answer as Omit<ReplayedComposite, "replayOf">) });
      const known = key === null ? null : await storedKey(tx, key);
      if (known) return replay(known);
      const inputs = await compositeInputsOf(tx, definition, request);
      const pending = emptyPendingRecords();
      pending.runIds.add(runId);
      const prepared: { step: PlannedStep; execution: PreparedExecution }[] = [];
      const producedBy = (step: string, role: string) => prepared.find((p) => p.step.definition.name === step)?.execution.draft.outputs.filter((o) => o.role === role) ?? [];

      for (const step of planned) {
        const stepOperation = stepOperations.get(step.definition.name)!;
        const stepInputs = step.definition.inputs.flatMap(({ role }) => {
          const ids = new Set<string>();
          for (const wire of definition.wires) {
            if (wire.target.kind !== "step" || wire.target.step !== step.definition.name || wire.target.role !== role) continue;
            if (wire.source.kind === "input") for (const input of inputs.artifacts.filter((a) => a.role === wire.source.role)) ids.add(input.id);
            else for (const output of producedBy(wire.source.step, wire.source.role)) ids.add(output.id);
          }
          return ids.size === 0 ? [] : [{ role, artifactIds: [...ids] }];
        });
        try {
          const stepRequest = checkRequestShape({
            operation: stepOperation.name,
            operationVersion: stepOperation.version,
            params: step.run.params,
            inputs: stepInputs,
            outputs: step.run.outputs,
            lineage: step.run.lineage,
            status: step.run.status,
            startedAt: step.run.startedAt,
            endedAt: step.run.endedAt,
            pins: step.run.pins,
            agent: request.agent,
            parentRunId: runId,
          });
          const ids = { runId: newRunId(), specId: specIdOf(stepOperation, stepRequest), recordedAt };
          const execution = await prepareExecution(tx, this.plugins, stepOperation, stepRequest, ids, pending);
          prepared.push({ step, execution });
          pending.runIds.add(ids.runId);
          pending.edges.push(...execution.edges);
          for (const output of execution.draft.outputs) if (!pending.artifacts.has(output.id)) pending.artifacts.set(output.id, artifactOf(output, recordedAt));
        } catch (error) {
          throw inStep(error, step.definition.name, step.index);
        }
      }

      // What the composite produced: its output roles, fed by the steps wired to them.
      const outputs: OutputDraft[] = [];
      for (const role of definition.outputs) {
        const ids = new Set<string>();
        for (const wire of definition.wires) {
          if (wire.target.kind !== "output" || wire.target.role !== role.role || wire.source.kind !== "step") continue;
          for (const output of producedBy(wire.source.step, wire.source.role)) {
            if (ids.has(output.id)) continue;
            ids.add(output.id);
            outputs.push({ ...output, role: role.role, index: ids.size - 1 });
          }
        }
      }
      const kept = new Set([...inputs.artifacts.map((a) => a.id), ...outputs.map((o) => o.id)]);
      const intermediates = new Set(prepared.flatMap((p) => p.execution.draft.outputs.map((o) => o.id)).filter((id) => !kept.has(id)));
      const mode = definition.intermediates;
      if (mode === "EXPOSE") {
        // Each intermediate in the role `<step>.<output role>` of the step that produced it (distinct within a role: DUPLICATE_OUTPUT).
        for (const { step, execution } of prepared) {
          for (const role of step.definition.outputs) {
            const exposed = execution.draft.outputs.filter((o) => o.role === role.role && intermediates.has(o.id));
            exposed.forEach((o, index) => outputs.push({ ...o, role: exposedRoleOf(step.definition.name, role.role), index }));
          }
        }
      }

      const internalEdges = prepared.flatMap((p) => p.execution.edges);
      const artifactTypes = new Map<string, string>([...inputs.artifacts.map((a) => [a.id, a.artifactType] as const), ...[...pending.artifacts.values()].map((a) => [a.id as string, a.artifactType] as const)]);
      const generative = new Set(
        prepared.flatMap(({ step, execution }) => execution.draft.outputs.filter((o) => step.definition.outputs.find((r) => r.role === o.role)?.generative).map((o) => o.id)),
      );
      const shortcuts = composeShortcuts({
        runId,
        compositeInputs: new Set(inputs.artifacts.map((a) => a.id)),
        targets: [...new Set(outputs.map((o) => o.id))],
        internalEdges,
        generative,
        intermediates,
        artifactTypes,
      });

      const steps = prepared.map((p) => p.execution);
      const composite: StageableExecution = {
        operation,
        request: { ...request, status: compositeStatusOf(definition, flags, planned), startedAt: request.startedAt ?? earliest(steps), endedAt: request.endedAt ?? latest(steps) },
        draft: { runId, specId, params: reported.params ?? null, inputs: inputs.artifacts, configInputs: inputs.configInputs, outputs, pipeline: request.pipeline ?? null, step: request.step ?? null, parentRunId: null, pairing: null },
        inputs: inputs.records,
        edges: shortcuts,
        recordedAt,
      };
      const stagedSteps = prepared.map(({ step, execution }) => ({ step: step.definition.name, staged: mode === "DISCARD" ? withoutIntermediates(execution, intermediates) : execution }));
      if (key !== null) {
        const answer: Omit<ReplayedComposite, "replayOf"> = {
          steps: stagedSteps.map(({ step, staged }) => ({ step, runId: staged.draft.runId as RunId })),
          shortcutEdgeCount: shortcuts.length,
          edgeCount: shortcuts.length + stagedSteps.reduce((n, s) => n + s.staged.edges.length, 0),
          unpaired: stagedSteps.flatMap(({ step, staged }) => unpairedOf(staged).map((link) => ({ ...link, step }))),
        };
        const holder = await claimKey(tx, key, { kind: "RECORD_COMPOSITE_EXECUTION", requestHash, runId, answer }, recordedAt);
        if (holder) return replay(holder);
      }
      const recorded = recordedExecutionOf(composite, await stageExecution(tx, composite));
      await insertRows(tx, "CompositeRun", ["runId", "compositeId", "flags", "intermediates"], [[runId, definition.id, canonicalJson(flags), mode]]);
      await insertRows(
        tx,
        "CompositeStepRun",
        ["runId", "compositeRunId", "step", "position"],
        prepared.map((p, position) => [p.execution.draft.runId, runId, p.step.definition.name, position]),
      );
      const recordedSteps: RecordedComposite["steps"] = [];
      for (const { step, staged } of stagedSteps) recordedSteps.push({ step, recorded: recordedExecutionOf(staged, await stageExecution(tx, staged)) });

      scope.emit({ type: "EXECUTION_RECORDED", execution: recorded.execution, edges: recorded.edges });
      for (const { recorded: step } of recordedSteps) scope.emit({ type: "EXECUTION_RECORDED", execution: step.execution, edges: step.edges });
      return { execution: recorded, steps: recordedSteps, flags, intermediates: mode };
    });
  }
}

/**
 * DISCARD: a step execution is kept as the record of what ran, but nothing that needs a discarded
 * intermediate to be stored: its links to intermediates (ExecutionArtifact references Artifact) and its
 * internal edges are dropped; its links to the composite's inputs and outputs stay. Its specId still
 * covers every input it had.
 */
function withoutIntermediates(prepared: PreparedExecution, intermediates: ReadonlySet<string>): PreparedExecution {
  const keep = (a: { id: string }) => !intermediates.has(a.id);
  const draft = { ...prepared.draft, inputs: prepared.draft.inputs.filter(keep), configInputs: prepared.draft.configInputs.filter(keep), outputs: prepared.draft.outputs.filter(keep) };
  return { ...prepared, draft, edges: [] };
}

/** The composite's inputs read and checked against its input roles, and the artifacts its params reference. */
async function compositeInputsOf(
  tx: DbTx,
  definition: CompositeDefinition,
  request: RecordExecutionRequest,
): Promise<{ artifacts: InputArtifact[]; configInputs: InputArtifact[]; records: ArtifactRecord[] }> {
  const references = artifactReferencesIn(request.params);
  const wanted = [...new Set([...request.inputs.flatMap((i) => i.artifactIds), ...references.filter((id) => isIdOfKind(id, "artifact"))])];
  const stored = new Map((wanted.length === 0 ? [] : await inChunks(wanted, (chunk) => tx.artifact.findMany({ where: { id: { in: chunk } } }))).map((row) => [row.id, toArtifactRecord(row)]));
  request.inputs.forEach(({ artifactIds }, i) =>
    artifactIds.forEach((id, j) => {
      if (!stored.has(id)) throw new NotFoundError("artifact", id, `inputs[${i}].artifactIds[${j}]`);
    }),
  );
  for (const id of references) {
    if (!stored.has(id)) throw new LineageIntegrityError(`params reference ${isIdOfKind(id, "artifact") ? `artifact ${id}, which does not exist` : `'${id}', which is not an artifact id (art_…)`}`, { rule: "UNKNOWN_CONFIG_REFERENCE", role: CONFIG_INPUT_ROLE, candidates: [id] });
  }
  const positions = new Map<string, number>();
  const inputAt = (id: string, role: string): InputArtifact => {
    const index = positions.get(role) ?? 0;
    positions.set(role, index + 1);
    return { id, role, index, artifactType: stored.get(id)!.artifactType, originalName: stored.get(id)!.originalName };
  };
  const artifacts = request.inputs.flatMap(({ role, artifactIds }) => artifactIds.map((id) => inputAt(id, role)));
  const declared = new Map(definition.inputs.map((r) => [r.role, r]));
  const composite = `composite ${definition.name}@${definition.version}`;
  for (const input of artifacts) {
    const role = declared.get(input.role);
    if (!role) throw new ArtifactValidationError(`input role '${input.role}' is not declared by ${composite}`, { rule: "UNDECLARED_INPUT_ROLE", role: input.role, candidates: [...declared.keys()] });
    if (input.artifactType !== role.artifactType) {
      throw new ArtifactValidationError(`input ${input.id} ('${input.originalName}') in role '${role.role}' is of type '${input.artifactType}', the role declares '${role.artifactType}'`, {
        rule: "ARTIFACT_TYPE_MISMATCH",
        role: role.role,
        candidates: [input.id],
      });
    }
  }
  for (const role of definition.inputs) {
    const ids = artifacts.filter((a) => a.role === role.role).map((a) => a.id);
    if (role.required && ids.length === 0) throw new ArtifactValidationError(`required input role '${role.role}' of ${composite} has no artifacts`, { rule: "REQUIRED_ROLE_MISSING", role: role.role });
    const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
    if (repeated) throw new ArtifactValidationError(`input ${repeated} appears twice in role '${role.role}'`, { rule: "DUPLICATE_INPUT", role: role.role, candidates: [repeated] });
  }
  const configInputs = references.map((id, index) => ({ id, role: CONFIG_INPUT_ROLE, index, artifactType: stored.get(id)!.artifactType, originalName: stored.get(id)!.originalName }));
  const records = [...new Set([...artifacts, ...configInputs].map((a) => a.id))].map((id) => stored.get(id)!);
  return { artifacts, configInputs, records };
}

function artifactOf(output: OutputDraft, at: Date): ArtifactRecord {
  return { id: output.id as ArtifactRecord["id"], artifactType: output.artifactType!, contentHash: output.contentHash, originalName: output.originalName, metadata: output.metadata, dataset: null, createdAt: at };
}

const earliest = (steps: PreparedExecution[]) => minMax(steps.map((s) => s.request.startedAt), (a, b) => a < b);
const latest = (steps: PreparedExecution[]) => minMax(steps.map((s) => s.request.endedAt), (a, b) => a > b);
function minMax(dates: (Date | null | undefined)[], better: (a: Date, b: Date) => boolean): Date | null {
  let best: Date | null = null;
  for (const date of dates) if (date && (best === null || better(date, best))) best = date;
  return best;
}


import { inChunks } from "../../db/chunked-lists";
import { LineageIntegrityError } from "../../../plugins/errors";
import { artifactReferencesIn } from "../../../plugins/lineage-inference/config-references";
import { pairInputs } from "../../../plugins/pairing";
import { CONFIG_INPUT_ROLE, type DraftExecution, type InputArtifact, type OutputDraft, type ReadPort } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { NotFoundError } from "../errors";
import { artifactIdFor, isIdOfKind, type RunId, type SpecId } from "../ids";
import type { ArtifactRecord, OperationRecord } from "../records";
import { declarationOf } from "./operation-registry";
import type { PendingRecords } from "./pending-records";
import type { RecordExecutionRequest } from "./request-shape";
import { storedArtifacts } from "./stored-artifacts";
import { yieldToEventLoop } from "./yield";

const OUTPUTS_PER_TURN = 1_000;

/**
 * What drafts need from the store: the artifacts their requests use (inputs, params references) and
 * whether the parent executions they name exist. Read for many requests at once (one statement
 * each); `pending` names artifacts and executions the same unit is about to stage, which count as
 * stored (a batch whose later runs use what its earlier ones produce).
 */
export interface DraftContext {
  artifacts: Map<string, ArtifactRecord>;
  executions: Set<string>;
}

export async function loadDraftContext(tx: DbTx, requests: readonly RecordExecutionRequest[], pending?: PendingRecords): Promise<DraftContext> {
  const artifacts = new Map<string, ArtifactRecord>(pending?.artifacts ?? []);
  const executions = new Set<string>(pending?.runIds ?? []);
  const wanted = new Set<string>();
  for (const request of requests) {
    for (const input of request.inputs) for (const id of input.artifactIds) wanted.add(id);
    for (const id of artifactReferencesIn(request.params)) if (isIdOfKind(id, "artifact")) wanted.add(id);
  }
  const unknown = [...wanted].filter((id) => !artifacts.has(id));
  for (const artifact of await storedArtifacts(tx, unknown)) artifacts.set(artifact.id, artifact);
  const parents = [...new Set(requests.flatMap((r) => (r.parentRunId != null && !executions.has(r.parentRunId) ? [r.parentRunId] : [])))];
  if (parents.length > 0) for (const row of await inChunks(parents, (chunk) => tx.execution.findMany({ where: { runId: { in: chunk } }, select: { runId: true } }))) executions.add(row.runId);
  return { artifacts, executions };
}

/**
 * The request as plugins see it: inputs and the artifacts params reference, from the store (or the
 * unit's pending records), output ids content-addressed, inputs paired when the operation groups them
 * (pairing may read ancestry through `port`). A role listed twice is one role (positions continue), so
 * ZIP pairs by the position an artifact has in its role, whatever the request's grouping.
 */
export async function buildDraft(
  context: DraftContext,
  operation: OperationRecord,
  request: RecordExecutionRequest,
  runId: RunId,
  specId: SpecId,
  port: ReadPort,
): Promise<{ draft: DraftExecution; inputs: ArtifactRecord[] }> {
  const references = artifactReferencesIn(request.params);
  const stored = context.artifacts;
  request.inputs.forEach(({ artifactIds }, i) =>
    artifactIds.forEach((id, j) => {
      if (!stored.has(id)) throw new NotFoundError("artifact", id, `inputs[${i}].artifactIds[${j}]`);
    }),
  );
  for (const id of references) {
    if (!stored.has(id)) {
      const why = isIdOfKind(id, "artifact") ? `artifact ${id}, which does not exist` : `'${id}', which is not an artifact id (art_…)`;
      throw new LineageIntegrityError(`params reference ${why}`, { rule: "UNKNOWN_CONFIG_REFERENCE", role: CONFIG_INPUT_ROLE, candidates: [id] });
    }
  }
  if (request.parentRunId != null && !context.executions.has(request.parentRunId)) throw new NotFoundError("execution", request.parentRunId, "parentRunId");

  const inputAt = (id: string, role: string, index: number): InputArtifact => ({ id, role, index, artifactType: stored.get(id)!.artifactType, originalName: stored.get(id)!.originalName });
  const inputPositions = new Map<string, number>();
  const inputs = request.inputs.flatMap(({ role, artifactIds }) => artifactIds.map((id) => inputAt(id, role, next(inputPositions, role))));
  const outputTypes = new Map(operation.outputs.map((role) => [role.role, role.artifactType]));
  const outputPositions = new Map<string, number>();
  const outputs: OutputDraft[] = [];
  for (const { role, artifacts } of request.outputs) {
    const artifactType = outputTypes.get(role) ?? null;
    for (const artifact of artifacts) {
      // Hashing ids is the costly part of a big execution: let other work run every few thousand.
      if (outputs.length > 0 && outputs.length % OUTPUTS_PER_TURN === 0) await yieldToEventLoop();
      outputs.push({
        // An undeclared role gets no id of its own; artifact validation refuses it before anything is staged.
        id: artifactType === null ? "" : artifactIdFor(artifactType, artifact.contentHash),
        role,
        index: next(outputPositions, role),
        originalName: artifact.originalName,
        contentHash: artifact.contentHash,
        artifactType,
        metadata: artifact.metadata ?? null,
        dataset: artifact.dataset ? { namespace: artifact.dataset.namespace, name: artifact.dataset.name, version: artifact.dataset.version ?? null } : null,
      });
    }
  }
  const declaration = declarationOf(operation);
  const draft: DraftExecution = {
    runId,
    specId,
    operation: declaration,
    status: request.status ?? "COMPLETED",
    params: request.params ?? null,
    inputs,
    configInputs: references.map((id, index) => inputAt(id, CONFIG_INPUT_ROLE, index)),
    outputs,
    explicitLineage: (request.lineage ?? []).map((entry) => ({ output: entry.output, sources: [...entry.sources], kind: entry.kind ?? "JOINT" })),
    pipeline: request.pipeline ?? null,
    step: request.step ?? null,
    parentRunId: request.parentRunId ?? null,
    pairing: await pairInputs(declaration, inputs, port),
  };
  const inputRecords = [...new Set([...inputs, ...draft.configInputs].map((i) => i.id))].map((id) => stored.get(id)!);
  return { draft, inputs: inputRecords };
}

/** The next position in a role (0, 1, …). */
function next(positions: Map<string, number>, role: string): number {
  const position = positions.get(role) ?? 0;
  positions.set(role, position + 1);
  return position;
}

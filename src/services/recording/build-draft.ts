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
 * The request as plugins see it: inputs and the artifacts params reference read from the store,
 * output ids content-addressed, inputs paired when the operation groups them. A role listed twice is
 * one role (positions continue), so ZIP pairs by the position an artifact has in its role, whatever
 * the request's grouping. What the unit has prepared but not staged (`pending`) counts as stored.
 */
export async function buildDraft(
  tx: DbTx,
  operation: OperationRecord,
  request: RecordExecutionRequest,
  runId: RunId,
  specId: SpecId,
  context: { port: ReadPort; pending?: PendingRecords },
): Promise<{ draft: DraftExecution; inputs: ArtifactRecord[] }> {
  const pending = context.pending;
  const references = artifactReferencesIn(request.params);
  const wanted = [...new Set([...request.inputs.flatMap((i) => i.artifactIds), ...references.filter((id) => isIdOfKind(id, "artifact"))])];
  const found = await storedArtifacts(tx, wanted);
  const stored = new Map(found.map((a) => [a.id as string, a]));
  for (const id of wanted) if (!stored.has(id) && pending?.artifacts.has(id)) stored.set(id, pending.artifacts.get(id)!);
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
  if (request.parentRunId != null && !pending?.runIds.has(request.parentRunId) && !(await tx.execution.findUnique({ where: { runId: request.parentRunId }, select: { runId: true } }))) {
    throw new NotFoundError("execution", request.parentRunId, "parentRunId");
  }

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
    pairing: await pairInputs(declaration, inputs, context.port),
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

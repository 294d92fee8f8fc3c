import { LineageIntegrityError } from "../../../plugins/errors";
import { artifactReferencesIn } from "../../../plugins/lineage-inference/config-references";
import { CONFIG_INPUT_ROLE, type DraftExecution, type InputArtifact, type OutputDraft } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { NotFoundError } from "../errors";
import { artifactIdFor, isIdOfKind, type RunId, type SpecId } from "../ids";
import { type ArtifactRecord, type OperationRecord, toArtifactRecord } from "../records";
import { declarationOf } from "./operation-registry";
import type { RecordExecutionRequest } from "./request-shape";

/**
 * The request as plugins see it: inputs and the artifacts params reference read from the store,
 * output ids content-addressed. A role listed twice is one role (positions continue), so ZIP pairs
 * by the position an artifact has in its role, whatever the request's grouping.
 */
export async function buildDraft(
  tx: DbTx,
  operation: OperationRecord,
  request: RecordExecutionRequest,
  runId: RunId,
  specId: SpecId,
): Promise<{ draft: DraftExecution; inputs: ArtifactRecord[] }> {
  const references = artifactReferencesIn(request.params);
  const wanted = [...new Set([...request.inputs.flatMap((i) => i.artifactIds), ...references.filter((id) => isIdOfKind(id, "artifact"))])];
  const found = wanted.length === 0 ? [] : (await tx.artifact.findMany({ where: { id: { in: wanted } } })).map(toArtifactRecord);
  const stored = new Map(found.map((a) => [a.id as string, a]));
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
  if (request.parentRunId != null && !(await tx.execution.findUnique({ where: { runId: request.parentRunId }, select: { runId: true } }))) {
    throw new NotFoundError("execution", request.parentRunId, "parentRunId");
  }

  const inputAt = (id: string, role: string, index: number): InputArtifact => ({ id, role, index, artifactType: stored.get(id)!.artifactType, originalName: stored.get(id)!.originalName });
  const inputPositions = new Map<string, number>();
  const inputs = request.inputs.flatMap(({ role, artifactIds }) => artifactIds.map((id) => inputAt(id, role, next(inputPositions, role))));
  const outputTypes = new Map(operation.outputs.map((role) => [role.role, role.artifactType]));
  const outputPositions = new Map<string, number>();
  const outputs = request.outputs.flatMap(({ role, artifacts }) =>
    artifacts.map((artifact): OutputDraft => {
      const artifactType = outputTypes.get(role) ?? null;
      return {
        // An undeclared role gets no id of its own; artifact validation refuses it before anything is staged.
        id: artifactType === null ? "" : artifactIdFor(artifactType, artifact.contentHash),
        role,
        index: next(outputPositions, role),
        originalName: artifact.originalName,
        contentHash: artifact.contentHash,
        artifactType,
        metadata: artifact.metadata ?? null,
        dataset: artifact.dataset ?? null,
      };
    }),
  );
  const draft: DraftExecution = {
    runId,
    specId,
    operation: declarationOf(operation),
    status: request.status ?? "COMPLETED",
    params: request.params ?? null,
    inputs,
    configInputs: references.map((id, index) => inputAt(id, CONFIG_INPUT_ROLE, index)),
    outputs,
    explicitLineage: (request.lineage ?? []).map((entry) => ({ output: entry.output, sources: [...entry.sources], kind: entry.kind ?? "JOINT" })),
    pipeline: request.pipeline ?? null,
    step: request.step ?? null,
    parentRunId: request.parentRunId ?? null,
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

import { ArtifactValidationError } from "../../../plugins/errors";
import type { DraftExecution } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { NotFoundError } from "../errors";
import { artifactIdFor, type RunId, type SpecId } from "../ids";
import { type ArtifactRecord, type OperationRecord, toArtifactRecord } from "../records";
import { declarationOf } from "./operation-registry";
import type { RecordExecutionRequest } from "./request-shape";

/** The request as plugins see it: inputs read from the store, output ids content-addressed. */
export async function buildDraft(
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

import type { DbTx } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import { insertRows } from "./bulk-insert";
import { recordPipelineStep } from "./pipeline-steps";
import type { StageableExecution } from "./prepared-execution";

const json = (value: unknown) => (value === null || value === undefined ? null : canonicalJson(value));

// Seed "staging-commit": the pipeline step (checked first: STEP_CONFLICT is the one expected failure
// left once the lineage pipeline passed), artifacts (existing content is kept as it is: provenance is
// immutable), then the execution, its links and its edges, all in the caller's transaction. Returns
// the ids of the artifacts it created.
export async function stageExecution(tx: DbTx, prepared: StageableExecution): Promise<string[]> {
  const { draft, operation, request, edges, recordedAt: at } = prepared;
  if (draft.pipeline !== null && draft.step !== null) await recordPipelineStep(tx, draft, operation, at);
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
    ...[...draft.inputs, ...draft.configInputs].map((i) => [draft.runId, i.id, "CONSUMED", i.role, i.index]),
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

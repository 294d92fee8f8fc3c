import type { DatasetVersionRef } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import { insertRows } from "./bulk-insert";
import { recordPipelineStep } from "./pipeline-steps";
import type { PreparedExecution } from "./prepared-execution";

const json = (value: unknown) => (value === null || value === undefined ? null : canonicalJson(value));

export const ARTIFACT_COLUMNS = ["id", "artifactType", "contentHash", "originalName", "metadata", "datasetNamespace", "datasetName", "datasetVersion", "createdAt"] as const;

/** An artifact about to be staged: an output draft, or a source (an artifact no execution produced). */
export interface StagedArtifact {
  id: string;
  artifactType: string | null;
  contentHash: string;
  originalName: string;
  metadata: unknown;
  dataset?: DatasetVersionRef | null;
}

export function artifactRow(artifact: StagedArtifact, at: Date): unknown[] {
  const dataset = artifact.dataset ?? null;
  return [artifact.id, artifact.artifactType, artifact.contentHash, artifact.originalName, json(artifact.metadata), dataset?.namespace ?? null, dataset?.name ?? null, dataset?.version ?? null, at];
}

// Seed "staging-commit": the pipeline step (checked first: STEP_CONFLICT is the one expected failure
// left once the lineage pipeline passed), artifacts (existing content is kept as it is: provenance is
// immutable), then the execution, its links and its edges, all in the caller's transaction. Returns
// the ids of the artifacts it created.
export async function stageExecution(tx: DbTx, prepared: PreparedExecution): Promise<string[]> {
  const { draft, operation, request, edges, recordedAt: at } = prepared;
  if (draft.pipeline !== null && draft.step !== null) await recordPipelineStep(tx, draft, operation, at);
  const created = await insertRows(tx, "Artifact", ARTIFACT_COLUMNS, draft.outputs.map((o) => artifactRow(o, at)), { ignoreConflicts: true, returning: "id" });
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
  await insertRows(tx, "ExecutionArtifact", LINK_COLUMNS, linkRows(prepared));
  await insertRows(tx, "ProvenanceEdge", EDGE_COLUMNS, edges.map((e) => edgeRow(e, at)));
  return created;
}

const LINK_COLUMNS = ["runId", "artifactId", "direction", "role", "position"];
const EDGE_COLUMNS = ["sourceId", "targetId", "runId", "kind", "groupId", "stepBoundary", "sourceType", "targetType", "createdAt"];

function linkRows({ draft }: PreparedExecution): unknown[][] {
  return [
    ...[...draft.inputs, ...draft.configInputs].map((i) => [draft.runId, i.id, "CONSUMED", i.role, i.index]),
    ...draft.outputs.map((o) => [draft.runId, o.id, "PRODUCED", o.role, o.index]),
  ];
}

function edgeRow(e: PreparedExecution["edges"][number], at: Date): unknown[] {
  return [e.sourceId, e.targetId, e.runId, e.kind, e.groupId, e.stepBoundary, e.sourceType, e.targetType, at];
}

/** What appending to a recorded execution wrote. */
export interface StagedAppend {
  /** Ids of the artifacts it created. */
  created: string[];
  /** The edges it added (those of the prepared execution not already recorded for the run). */
  edges: PreparedExecution["edges"];
}

/**
 * Appends to an execution recorded earlier (an OpenLineage run reporting in several events): the
 * prepared execution describes the run in full as it is now known, and everything already recorded
 * — artifacts, links, edges — is kept as it is; only what is new is added. The execution row's
 * derived columns (status, times, params, agent, pins, parent) take the prepared request's values:
 * they are a fold of the facts the run reported, which the caller recomputes from its stored
 * reports, never a correction of them. Identity (runId, specId, operation, recordedAt) is untouched.
 */
export async function stageAppend(tx: DbTx, prepared: PreparedExecution): Promise<StagedAppend> {
  const { draft, operation, request, edges, recordedAt: at } = prepared;
  if (draft.pipeline !== null && draft.step !== null) await recordPipelineStep(tx, draft, operation, at);
  const created = await insertRows(tx, "Artifact", ARTIFACT_COLUMNS, draft.outputs.map((o) => artifactRow(o, at)), { ignoreConflicts: true, returning: "id" });
  await insertRows(tx, "ExecutionArtifact", LINK_COLUMNS, linkRows(prepared), { ignoreConflicts: true });
  const stored = await tx.provenanceEdge.findMany({ where: { runId: draft.runId }, select: { sourceId: true, targetId: true, kind: true, groupId: true } });
  const key = (e: { sourceId: string; targetId: string; kind: string; groupId: string | null }) => `${e.sourceId}\u0000${e.targetId}\u0000${e.kind}\u0000${e.groupId}`;
  const known = new Set(stored.map(key));
  const added = edges.filter((e) => !known.has(key(e)));
  await insertRows(tx, "ProvenanceEdge", EDGE_COLUMNS, added.map((e) => edgeRow(e, at)));
  const pins = request.pins ?? {};
  await tx.execution.update({
    where: { runId: draft.runId },
    data: {
      status: request.status ?? "COMPLETED",
      params: json(draft.params),
      agent: request.agent ?? null,
      startedAt: request.startedAt ?? null,
      endedAt: request.endedAt ?? null,
      pinInputVersions: json(pins.inputVersions),
      pinCodeVersion: pins.codeVersion ?? null,
      pinImageDigest: pins.imageDigest ?? null,
      pinDeterministic: pins.deterministic ?? null,
      parentRunId: draft.parentRunId,
    },
  });
  return { created, edges: added };
}

/**
 * Artifacts that enter provenance without an execution producing them inside provgraph (an
 * OpenLineage input dataset version no recorded run made): written as they are, an existing one
 * kept unchanged. Returns the ids it created.
 */
export async function stageSourceArtifacts(tx: DbTx, artifacts: readonly StagedArtifact[], at: Date): Promise<string[]> {
  return insertRows(tx, "Artifact", ARTIFACT_COLUMNS, artifacts.map((a) => artifactRow(a, at)), { ignoreConflicts: true, returning: "id" });
}

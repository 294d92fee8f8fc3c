import { inChunks } from "../../db/chunked-lists";
import type { DatasetVersionRef } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import { artifactIdFor } from "../ids";
import { insertRows } from "./bulk-insert";
import { mapInTurns } from "./yield";
import { businessDateOf } from "./business-date";
import { recordPipelineStep } from "./pipeline-steps";
import type { PreparedExecution, StageableExecution } from "./prepared-execution";
import { noteUnitWrites, type SubjectDeclarationDraft } from "./unit-writes";

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
  /** When it is recorded (default: the staging call's instant). */
  createdAt?: Date;
}

export function artifactRow(artifact: StagedArtifact, at: Date): unknown[] {
  const dataset = artifact.dataset ?? null;
  return [artifact.id, artifact.artifactType, artifact.contentHash, artifact.originalName, json(artifact.metadata), dataset?.namespace ?? null, dataset?.name ?? null, dataset?.version ?? null, artifact.createdAt ?? at];
}

// Seed "staging-commit": the pipeline step (checked first: STEP_CONFLICT is the one expected failure
// left once the lineage pipeline passed), artifacts (existing content is kept as it is: provenance is
// immutable), then the execution, its links and its edges, all in the caller's transaction. Returns
// the ids of the artifacts it created.
export async function stageExecution(tx: DbTx, prepared: StageableExecution): Promise<string[]> {
  return (await stageExecutions(tx, [prepared]))[0];
}

/** `artifactsStaged`: the caller already staged every output artifact (stageSourceArtifacts), so they are not written again. */
export interface StageOptions {
  artifactsStaged?: boolean;
}

/**
 * stageExecution for many prepared executions at once: one multi-row statement per table for all of
 * them (what a batch costs is then a handful of statements, not a handful per execution). Returns,
 * for each, the ids of the artifacts it created (an artifact two of them produce is created by the first).
 */
export async function stageExecutions(tx: DbTx, prepared: readonly StageableExecution[], options: StageOptions = {}): Promise<string[][]> {
  if (prepared.length === 0) return [];
  for (const { draft, operation, recordedAt } of prepared) if (draft.pipeline !== null && draft.step !== null) await recordPipelineStep(tx, draft, operation, recordedAt);
  const created = options.artifactsStaged ? prepared.map(() => []) : await stageOutputArtifacts(tx, prepared);
  await insertRows(tx, "Execution", EXECUTION_COLUMNS, prepared.map(executionRow));
  await insertRows(tx, "ExecutionArtifact", LINK_COLUMNS, prepared.flatMap(linkRows));
  let edgeRows: unknown[][] = [];
  for (const p of prepared) edgeRows = edgeRows.concat(await mapInTurns(p.edges, (e) => edgeRow(e, p.recordedAt)));
  await insertRows(tx, "ProvenanceEdge", EDGE_COLUMNS, edgeRows);
  noteUnitWrites(tx, { artifactEdges: prepared.flatMap((p) => p.edges), subjects: prepared.flatMap(declaredSubjects) });
  return created;
}

/**
 * The data subjects a request declares on the outputs it stages (`subjectKeys`), for the unit's
 * finisher: it refuses suppressed subjects and records the others, hashed (src/services/compliance).
 */
function declaredSubjects({ request, operation, draft }: StageableExecution): SubjectDeclarationDraft[] {
  const staged = new Set(draft.outputs.map((o) => o.id));
  const types = new Map(operation.outputs.map((role) => [role.role, role.artifactType]));
  return request.outputs.flatMap(({ role, artifacts }, i) =>
    artifacts.flatMap((artifact, j) => {
      // Most outputs declare none: their ids (a hash each, 20,000 of them in a big run) are not worked out.
      if (!artifact.subjectKeys?.length) return [];
      const type = types.get(role);
      const id = type === undefined ? "" : artifactIdFor(type, artifact.contentHash);
      if (!staged.has(id)) return [];
      return artifact.subjectKeys.map((raw, k) => ({ artifactId: id, key: { raw }, at: { field: `outputs[${i}].artifacts[${j}].subjectKeys[${k}]` } }));
    }),
  );
}

const EXECUTION_COLUMNS = ["runId", "specId", "operationId", "status", "params", "agent", "startedAt", "endedAt", "recordedAt", "pinInputVersions", "pinCodeVersion", "pinImageDigest", "pinDeterministic", "businessDate", "pipeline", "step", "parentRunId"];
/** The columns of an execution that are a fold of what its producer reported (appends recompute them). */
const DERIVED_EXECUTION_COLUMNS = ["status", "params", "agent", "startedAt", "endedAt", "pinInputVersions", "pinCodeVersion", "pinImageDigest", "pinDeterministic", "businessDate", "parentRunId"];
const LINK_COLUMNS = ["runId", "artifactId", "direction", "role", "position"];
const EDGE_COLUMNS = ["sourceId", "targetId", "runId", "kind", "groupId", "stepBoundary", "sourceType", "targetType", "createdAt"];

function executionRow({ draft, operation, request, recordedAt }: StageableExecution): unknown[] {
  const pins = request.pins ?? {};
  return [
    draft.runId,
    draft.specId,
    operation.id,
    request.status ?? "COMPLETED",
    json(draft.params),
    request.agent ?? null,
    request.startedAt ?? null,
    request.endedAt ?? null,
    recordedAt,
    json(pins.inputVersions),
    pins.codeVersion ?? null,
    pins.imageDigest ?? null,
    pins.deterministic ?? null,
    businessDateOf(operation, draft.params),
    draft.pipeline,
    draft.step,
    draft.parentRunId,
  ];
}

function linkRows({ draft }: StageableExecution): unknown[][] {
  return [
    ...[...draft.inputs, ...draft.configInputs].map((i) => [draft.runId, i.id, "CONSUMED", i.role, i.index]),
    ...draft.outputs.map((o) => [draft.runId, o.id, "PRODUCED", o.role, o.index]),
  ];
}

function edgeRow(e: PreparedExecution["edges"][number], at: Date): unknown[] {
  return [e.sourceId, e.targetId, e.runId, e.kind, e.groupId, e.stepBoundary, e.sourceType, e.targetType, at];
}

/** The outputs' artifacts, once each; for each prepared execution, the ids it created. */
async function stageOutputArtifacts(tx: DbTx, prepared: readonly StageableExecution[]): Promise<string[][]> {
  const rows = new Map<string, unknown[]>();
  const byId = new Map<string, StagedArtifact>();
  // A big run's 20,000 outputs: rows built (metadata as canonical JSON) in turns, like the statements that insert them.
  for (const p of prepared) {
    await mapInTurns(p.draft.outputs, (o) => {
      if (!rows.has(o.id)) rows.set(o.id, artifactRow(o, p.recordedAt));
      byId.set(o.id, o);
    });
  }
  const inserted = await insertRows(tx, "Artifact", ARTIFACT_COLUMNS, [...rows.values()], { ignoreConflicts: true, returning: "id" });
  noteCreatedArtifacts(tx, inserted.map((id) => byId.get(id)!));
  const created = new Set(inserted);
  noteDatasetVersions(tx, created, rows);
  const createdBy: string[][] = [];
  for (const p of prepared) {
    const ids: string[] = [];
    // An id created once is the first execution's (a later one producing the same content created nothing).
    await mapInTurns(p.draft.outputs, (o) => {
      if (created.delete(o.id)) ids.push(o.id);
    });
    createdBy.push(ids);
  }
  return createdBy;
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
  return (await stageAppends(tx, [prepared]))[0];
}

/** stageAppend for many executions (each recorded earlier, each at most once here), a few statements for all. */
export async function stageAppends(tx: DbTx, prepared: readonly PreparedExecution[], options: StageOptions = {}): Promise<StagedAppend[]> {
  if (prepared.length === 0) return [];
  for (const { draft, operation, recordedAt } of prepared) if (draft.pipeline !== null && draft.step !== null) await recordPipelineStep(tx, draft, operation, recordedAt);
  const created = options.artifactsStaged ? prepared.map(() => []) : await stageOutputArtifacts(tx, prepared);
  await insertRows(tx, "ExecutionArtifact", LINK_COLUMNS, prepared.flatMap(linkRows), { ignoreConflicts: true });
  const stored = await inChunks(prepared.map((p) => p.draft.runId), (chunk) => tx.provenanceEdge.findMany({ where: { runId: { in: chunk } }, select: { runId: true, sourceId: true, targetId: true, kind: true, groupId: true } }));
  const key = (e: { runId: string; sourceId: string; targetId: string; kind: string; groupId: string | null }) => `${e.runId}\u0000${e.sourceId}\u0000${e.targetId}\u0000${e.kind}\u0000${e.groupId}`;
  const known = new Set(stored.map(key));
  const added = prepared.map((p) => p.edges.filter((e) => !known.has(key(e))));
  await insertRows(tx, "ProvenanceEdge", EDGE_COLUMNS, prepared.flatMap((p, i) => added[i].map((e) => edgeRow(e, p.recordedAt))));
  noteUnitWrites(tx, { artifactEdges: added.flat() });
  // The derived columns, for all of them in one upsert: each row exists, so only those columns change.
  await insertRows(tx, "Execution", EXECUTION_COLUMNS, prepared.map(executionRow), { update: { conflict: ["runId"], columns: DERIVED_EXECUTION_COLUMNS } });
  return prepared.map((_, i) => ({ created: created[i], edges: added[i] }));
}

/**
 * Artifacts that enter provenance without an execution producing them inside provgraph (an
 * OpenLineage input dataset version no recorded run made): written as they are, an existing one
 * kept unchanged. Returns the ids it created.
 */
export async function stageSourceArtifacts(tx: DbTx, artifacts: readonly StagedArtifact[], at: Date): Promise<string[]> {
  const rows = new Map(artifacts.map((a) => [a.id, artifactRow(a, at)]));
  const created = await insertRows(tx, "Artifact", ARTIFACT_COLUMNS, [...rows.values()], { ignoreConflicts: true, returning: "id" });
  const byId = new Map(artifacts.map((a) => [a.id, a]));
  noteCreatedArtifacts(tx, created.map((id) => byId.get(id)!));
  noteDatasetVersions(tx, new Set(created), rows);
  return created;
}

/** The artifacts a unit created, for the search index (one created before is indexed already). */
function noteCreatedArtifacts(tx: DbTx, artifacts: readonly StagedArtifact[]): void {
  noteUnitWrites(tx, {
    searchable: artifacts.map((a) => ({
      kind: "ARTIFACT",
      id: a.id,
      originalName: a.originalName,
      artifactType: a.artifactType ?? "",
      dataset: a.dataset ? { namespace: a.dataset.namespace, name: a.dataset.name } : null,
    })),
  });
}

/** The new artifacts that are versions of a dataset, for the unit's finisher (they take the tags their dataset's columns carry). */
function noteDatasetVersions(tx: DbTx, created: ReadonlySet<string>, rows: ReadonlyMap<string, unknown[]>): void {
  const versions: string[] = [];
  // Column 5 of an artifact row is its dataset's namespace.
  for (const id of created) if (rows.get(id)?.[5] != null) versions.push(id);
  if (versions.length > 0) noteUnitWrites(tx, { datasetVersions: versions });
}

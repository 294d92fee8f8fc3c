import type { ProvgraphPlugin } from "../../plugins/types";
import type { DbTx } from "../db/client";
import type { DatabaseProvider } from "../db/database-url";
import { canonicalJson } from "../services/canonical-json";
import { type ColumnEdgeDraft, type DatasetColumnRecord, stageColumnEdges, stageDatasetColumns } from "../services/columns";
import { type ArtifactId, type RunId, specIdFrom, type SpecId } from "../services/ids";
import {
  checkRequestShape,
  insertRows,
  type OperationRegistry,
  prepareExecution,
  type RecordExecutionRequest,
  recordedExecutionOf,
  stageAppend,
  stageExecution,
  stageSourceArtifacts,
  type UnitScope,
} from "../services/recording";
import { type ExecutionRecord, type ExecutionStatus, toExecutionRecord } from "../services/records";
import { datasetArtifactId, datasetContentHash, outputVersion, DATASET_ARTIFACT_TYPE } from "./dataset-identity";
import { InvalidEventError } from "./errors";
import { type DatasetMention, type DatasetName, type ParsedEvent } from "./event-facts";
import { INPUT_ROLE, jobOperationIn, OUTPUT_ROLE } from "./job-operation";
import { foldRun, type RunFold } from "./run-fold";

export interface RecordEventDeps {
  registry: OperationRegistry;
  plugins: readonly ProvgraphPlugin[];
  provider: DatabaseProvider;
}

export interface EventOutcome {
  status: "STORED" | "DUPLICATE";
  runId: RunId | null;
  /** The run's execution status after this event (RunEvents). */
  executionStatus: ExecutionStatus | null;
}

type RunEvent = Extract<ParsedEvent, { kind: "RUN" }>;

/**
 * Records one OpenLineage event as one recording unit: the raw event (once: a duplicate stops here),
 * the job's operation on first sight, and for a RunEvent the run's execution — recorded by its first
 * event, appended to by later ones (stageAppend), its derived state the fold of all its stored
 * events — with the dataset versions it used and produced, their lineage, columns and column edges.
 */
export async function recordEvent(tx: DbTx, scope: UnitScope, deps: RecordEventDeps, event: ParsedEvent, at: Date): Promise<EventOutcome> {
  if (event.kind === "RUN") return recordRunEvent(tx, scope, deps, event, at);
  if (!(await storeEvent(tx, event, at))) return { status: "DUPLICATE", runId: null, executionStatus: null };
  if (event.kind === "JOB") await jobOperationIn(tx, deps.registry, event.job);
  return { status: "STORED", runId: null, executionStatus: null };
}

async function recordRunEvent(tx: DbTx, scope: UnitScope, deps: RecordEventDeps, event: RunEvent, at: Date): Promise<EventOutcome> {
  const { runId } = event;
  // Events of one run (and a parent it names) are recorded one at a time, whatever the transport's concurrency.
  await lockRuns(tx, deps.provider, [runId, ...(event.facts.parent ? [event.facts.parent.runId] : [])]);
  if (!(await storeEvent(tx, event, at))) {
    const execution = await tx.execution.findUnique({ where: { runId }, select: { status: true } });
    return { status: "DUPLICATE", runId, executionStatus: (execution?.status as ExecutionStatus) ?? null };
  }
  const operation = await jobOperationIn(tx, deps.registry, event.job);
  const existingRow = await tx.execution.findUnique({ where: { runId } });
  const existing = existingRow ? toExecutionRecord(existingRow) : null;
  if (existing) await assertSameRun(tx, existing, operation.id, event);

  const stored = await tx.openLineageEvent.findMany({ where: { runId }, select: { eventKey: true, facts: true } });
  const fold = foldRun(stored.map((row) => ({ eventKey: row.eventKey, facts: JSON.parse(row.facts) })));
  const parentRunId = fold.parent ? await ensureParent(tx, scope, deps, fold.parent, at) : null;

  const inputs = await resolveInputs(tx, runId, fold, at);
  const outputs = fold.outputs.map((output) => {
    const ref = outputVersion(output, runId);
    return { ...output, ref, id: datasetArtifactId(ref), contentHash: datasetContentHash(ref) };
  });
  const outputIds = new Set(outputs.map((o) => o.id as string));
  const inputIds = [...new Set(inputs.map((i) => i.id))].filter((id) => !outputIds.has(id));
  const labels = outputLabels(outputs);
  const request: RecordExecutionRequest = {
    operation: operation.name,
    operationVersion: operation.version,
    params: Object.keys(fold.params).length > 0 ? fold.params : null,
    inputs: [{ role: INPUT_ROLE, artifactIds: inputIds }],
    outputs: [{ role: OUTPUT_ROLE, artifacts: outputs.map((o, i) => ({ originalName: labels[i], contentHash: o.contentHash, dataset: o.ref })) }],
    // Dataset-level lineage: each output derives jointly from the run's inputs — or, when its column
    // lineage names its sources, from those — minus itself (a job may read and write one version).
    lineage: outputs.flatMap((output, i) => {
      const sources = output.columnSources
        ? inputs.filter((input) => output.columnSources!.some((s) => s.namespace === input.namespace && s.name === input.name)).map((input) => input.id)
        : inputIds;
      const distinct = [...new Set(sources)].filter((id) => id !== output.id);
      return distinct.length === 0 ? [] : [{ output: labels[i], sources: distinct, kind: "JOINT" as const }];
    }),
    agent: fold.agent,
    parentRunId,
    status: fold.status,
    pins: { inputVersions: await inputVersionsOf(tx, runId), codeVersion: fold.codeVersion, imageDigest: fold.imageDigest, deterministic: null },
  };
  // The shape check (safe text, canonical hashes) without the times: a producer's clock may put a
  // COMPLETE before its START; both are kept as reported.
  const shaped = { ...checkRequestShape(request), startedAt: fold.startedAt, endedAt: fold.endedAt };
  const specId = existing?.specId ?? specIdOfRun(event.job, runId);
  const prepared = await prepareExecution(tx, deps.plugins, operation, shaped, { runId, specId, recordedAt: at });
  if (!existing) {
    const recorded = recordedExecutionOf(prepared, await stageExecution(tx, prepared));
    scope.emit({ type: "EXECUTION_RECORDED", execution: recorded.execution, edges: recorded.edges });
  } else {
    const appended = await stageAppend(tx, prepared);
    const execution: ExecutionRecord = { ...recordedExecutionOf(prepared, appended.created).execution, recordedAt: existing.recordedAt };
    if (existing.status !== execution.status) scope.emit({ type: "EXECUTION_STATUS_CHANGED", execution, previousStatus: existing.status });
    if (appended.edges.length > 0) scope.emit({ type: "LINEAGE_RECORDED", runId, edges: appended.edges });
  }
  await recordColumns(tx, event, inputs, at);
  await saveRunState(tx, runId, fold, at);
  return { status: "STORED", runId, executionStatus: fold.status };
}

const EVENT_COLUMNS = ["eventKey", "kind", "eventType", "eventTime", "runId", "jobNamespace", "jobName", "datasetNamespace", "datasetName", "producer", "body", "facts", "receivedAt"];

/** Inserts the raw event; false when it was stored before (the same event delivered again). */
async function storeEvent(tx: DbTx, event: ParsedEvent, at: Date): Promise<boolean> {
  const run = event.kind === "RUN" ? event : null;
  const job = event.kind === "DATASET" ? null : event.job;
  const dataset = event.kind === "DATASET" ? event.dataset : null;
  const row = [
    event.eventKey,
    event.kind,
    run?.reportedType ?? null,
    event.eventTime,
    run?.runId ?? null,
    job?.namespace ?? null,
    job?.name ?? null,
    dataset?.namespace ?? null,
    dataset?.name ?? null,
    event.producer,
    event.body,
    run ? canonicalJson(run.facts) : "{}",
    at,
  ];
  const inserted = await insertRows(tx, "OpenLineageEvent", EVENT_COLUMNS, [row], { ignoreConflicts: true, returning: "eventKey" });
  return inserted.length > 0;
}

/** PostgreSQL: a transaction-scoped advisory lock per run (in sorted order, so two units never wait on each other). SQLite has one writer. */
async function lockRuns(tx: DbTx, provider: DatabaseProvider, runIds: readonly RunId[]): Promise<void> {
  if (provider !== "postgres") return;
  for (const runId of [...new Set(runIds)].sort()) await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))::text AS locked`, runId);
}

/** A later event of a run must belong to the same OpenLineage run: same job, and an execution OpenLineage made. */
async function assertSameRun(tx: DbTx, existing: ExecutionRecord, operationId: string, event: RunEvent): Promise<void> {
  const run = await tx.openLineageRun.findUnique({ where: { runId: existing.runId } });
  if (!run) {
    throw new InvalidEventError("/run/runId", `names execution ${existing.runId}, which was recorded through recordExecution, not by OpenLineage events: its record cannot be appended to`);
  }
  if (existing.operationId !== operationId) {
    throw new InvalidEventError(
      "/job",
      `run ${existing.runId} is a run of job '${run.jobName}' in namespace '${run.jobNamespace}'; this event names job '${event.job.name}' in namespace '${event.job.namespace}'`,
    );
  }
}

/**
 * The parent execution a run names. One not recorded yet (its events may come later, or never) is
 * recorded now as a run of the parent job with no events of its own: STARTED, no times, nothing
 * used or produced — its own events, when they come, fold into it.
 */
async function ensureParent(tx: DbTx, scope: UnitScope, deps: RecordEventDeps, parent: NonNullable<RunFold["parent"]>, at: Date): Promise<RunId> {
  if (await tx.execution.findUnique({ where: { runId: parent.runId }, select: { runId: true } })) return parent.runId;
  const operation = await jobOperationIn(tx, deps.registry, parent.job);
  const request = checkRequestShape({ operation: operation.name, operationVersion: operation.version, inputs: [], outputs: [], status: "STARTED" });
  const prepared = await prepareExecution(tx, deps.plugins, operation, request, { runId: parent.runId, specId: specIdOfRun(parent.job, parent.runId), recordedAt: at });
  const recorded = recordedExecutionOf(prepared, await stageExecution(tx, prepared));
  await tx.openLineageRun.create({ data: { runId: parent.runId, jobNamespace: parent.job.namespace, jobName: parent.job.name, events: 0, updatedAt: at } });
  scope.emit({ type: "EXECUTION_RECORDED", execution: recorded.execution, edges: [] });
  return parent.runId;
}

/** An OpenLineage run's specId names the run itself: OpenLineage does not say what a run was asked to compute before it ends. */
function specIdOfRun(job: DatasetName, runId: RunId): SpecId {
  return specIdFrom(canonicalJson({ openlineage: { namespace: job.namespace, name: job.name }, runId }));
}

export interface ResolvedInput extends DatasetName {
  id: ArtifactId;
  version: string | null;
}

/**
 * Each input the run reported, as a dataset version: the one its `version` facet names (pinned);
 * without one, the version this run already resolved it to, or any version another of its events
 * names; else the newest version provgraph has recorded, not produced by this run (LATEST_KNOWN,
 * unpinned); else the dataset itself, unversioned (UNVERSIONED, unpinned). Versions no recorded run
 * produced become source artifacts. How each resolved is kept (DatasetVersionUse).
 */
async function resolveInputs(tx: DbTx, runId: RunId, fold: RunFold, at: Date): Promise<(ResolvedInput & { mention: DatasetMention })[]> {
  const uses = await tx.datasetVersionUse.findMany({ where: { runId } });
  const used = uses.length === 0 ? [] : await tx.artifact.findMany({ where: { id: { in: uses.map((u) => u.artifactId) } } });
  const outputIds = fold.outputs.map((o) => datasetArtifactId(outputVersion(o, runId)) as string);
  const resolved: (ResolvedInput & { mention: DatasetMention })[] = [];
  const newUses: unknown[][] = [];
  const sources: Parameters<typeof stageSourceArtifacts>[1][number][] = [];
  for (const mention of fold.inputs) {
    let version = mention.version;
    let how = "VERSION_FACET";
    if (version === null) {
      const named = fold.inputs.find((m) => m.version !== null && m.namespace === mention.namespace && m.name === mention.name);
      const earlier = used.find((a) => a.datasetNamespace === mention.namespace && a.datasetName === mention.name && uses.find((u) => u.artifactId === a.id)!.resolvedBy !== "VERSION_FACET");
      if (named) continue; // the versioned mention stands for it
      if (earlier) {
        resolved.push({ namespace: mention.namespace, name: mention.name, version: earlier.datasetVersion, id: earlier.id as ArtifactId, mention });
        continue;
      }
      const latest = await tx.artifact.findFirst({
        where: { datasetNamespace: mention.namespace, datasetName: mention.name, datasetVersion: { not: null }, id: { notIn: outputIds } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        select: { datasetVersion: true },
      });
      version = latest?.datasetVersion ?? null;
      how = latest ? "LATEST_KNOWN" : "UNVERSIONED";
    }
    const ref = { namespace: mention.namespace, name: mention.name, version };
    const id = datasetArtifactId(ref);
    if (how !== "LATEST_KNOWN") sources.push({ id, artifactType: DATASET_ARTIFACT_TYPE, contentHash: datasetContentHash(ref), originalName: ref.name, metadata: null, dataset: ref });
    newUses.push([runId, id, how === "VERSION_FACET", how, at]);
    resolved.push({ ...ref, id, mention });
  }
  await stageSourceArtifacts(tx, sources, at);
  await insertRows(tx, "DatasetVersionUse", ["runId", "artifactId", "pinned", "resolvedBy", "createdAt"], newUses, { ignoreConflicts: true });
  return resolved;
}

/** pins.inputVersions of an OpenLineage run: every dataset version it used, and whether the event pinned it. */
async function inputVersionsOf(tx: DbTx, runId: RunId): Promise<unknown> {
  const uses = await tx.datasetVersionUse.findMany({ where: { runId } });
  if (uses.length === 0) return null;
  const artifacts = new Map((await tx.artifact.findMany({ where: { id: { in: uses.map((u) => u.artifactId) } } })).map((a) => [a.id, a]));
  return uses
    .map((use) => {
      const artifact = artifacts.get(use.artifactId)!;
      return { namespace: artifact.datasetNamespace, name: artifact.datasetName, version: artifact.datasetVersion, artifactId: use.artifactId, pinned: use.pinned, resolvedBy: use.resolvedBy };
    })
    .sort((a, b) => canonicalJson([a.namespace, a.name, a.version]).localeCompare(canonicalJson([b.namespace, b.name, b.version])));
}

/** Draft names unique within the run: the dataset name, qualified by version (and namespace) only when two outputs share it. */
function outputLabels(outputs: readonly { ref: { namespace: string; name: string; version: string | null } }[]): string[] {
  const count = (key: (o: (typeof outputs)[number]) => string) => {
    const counts = new Map<string, number>();
    for (const o of outputs) counts.set(key(o), (counts.get(key(o)) ?? 0) + 1);
    return (o: (typeof outputs)[number]) => counts.get(key(o))!;
  };
  const byName = count((o) => o.ref.name);
  const byNameVersion = count((o) => `${o.ref.name}@${o.ref.version}`);
  return outputs.map((o) => (byName(o) === 1 ? o.ref.name : byNameVersion(o) === 1 ? `${o.ref.name}@${o.ref.version}` : `${o.ref.namespace}/${o.ref.name}@${o.ref.version}`));
}

/**
 * This event's column lineage as column edges (one per reported transformation; a `dataset` entry's
 * target field is null: the whole output), and its schema facets as the columns of the versions they
 * describe. Edges and columns already recorded for the run are not repeated.
 */
async function recordColumns(tx: DbTx, event: RunEvent, inputs: readonly (ResolvedInput & { mention: DatasetMention })[], at: Date): Promise<void> {
  const inputOf = (d: DatasetName & { version: string | null }): ArtifactId | undefined => {
    const exact = inputs.find((i) => i.namespace === d.namespace && i.name === d.name && i.mention.version === d.version);
    return (exact ?? inputs.find((i) => i.namespace === d.namespace && i.name === d.name))?.id;
  };
  const edges: ColumnEdgeDraft[] = [];
  const columns: DatasetColumnRecord[] = [];
  const versionInEvent = (d: DatasetName) => event.inputs.find((i) => i.namespace === d.namespace && i.name === d.name)?.version ?? null;
  for (const output of event.outputs) {
    const targetId = datasetArtifactId(outputVersion(output, event.runId));
    if (output.fields) output.fields.forEach((f, position) => columns.push({ artifactId: targetId, field: f.field, position, type: f.type, description: f.description }));
    if (!output.columnLineage) continue;
    const dependencies = [
      ...output.columnLineage.fields.flatMap(({ field, inputs: deps }) => deps.map((d) => ({ d, targetField: field as string | null }))),
      ...output.columnLineage.dataset.map((d) => ({ d, targetField: null })),
    ];
    for (const { d, targetField } of dependencies) {
      const sourceId = inputOf({ namespace: d.namespace, name: d.name, version: versionInEvent(d) });
      if (!sourceId) throw new Error(`column lineage source ${d.namespace}/${d.name} was not resolved as an input`);
      for (const t of d.transformations) {
        edges.push({ sourceId, sourceField: d.field, targetId, targetField, runId: event.runId, type: t.type, subtype: t.subtype, description: t.description, masking: t.masking });
      }
    }
  }
  for (const input of event.inputs) {
    if (!input.fields) continue;
    const id = inputOf(input);
    if (id) input.fields.forEach((f, position) => columns.push({ artifactId: id, field: f.field, position, type: f.type, description: f.description }));
  }
  await stageColumnEdges(tx, edges, at);
  await stageDatasetColumns(tx, dedupeColumns(columns));
}

function dedupeColumns(columns: DatasetColumnRecord[]): DatasetColumnRecord[] {
  const seen = new Map<string, DatasetColumnRecord>();
  for (const c of columns) if (!seen.has(`${c.artifactId}\u0000${c.field}`)) seen.set(`${c.artifactId}\u0000${c.field}`, c);
  return [...seen.values()];
}

/** The OpenLineage-only part of the run's derived state (the failure, the job, event counts): the fold again. */
async function saveRunState(tx: DbTx, runId: RunId, fold: RunFold, at: Date): Promise<void> {
  const state = {
    jobNamespace: fold.job.namespace,
    jobName: fold.job.name,
    events: fold.events,
    firstEventTime: fold.firstEventTime,
    lastEventTime: fold.lastEventTime,
    failureMessage: fold.failure?.message ?? null,
    failureLanguage: fold.failure?.programmingLanguage ?? null,
    failureStackTrace: fold.failure?.stackTrace ?? null,
    updatedAt: at,
  };
  await tx.openLineageRun.upsert({ where: { runId }, create: { runId, ...state }, update: state });
}

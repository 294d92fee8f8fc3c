import type { ProvenanceError } from "../../plugins/errors";
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
  type PreparedExecution,
  type PrepareItem,
  prepareExecutions,
  type RecordExecutionRequest,
  recordedExecutionOf,
  stageAppends,
  stageExecutions,
  type StagedArtifact,
  stageSourceArtifacts,
  type UnitScope,
} from "../services/recording";
import { type ArtifactRecord, type ExecutionRecord, type ExecutionStatus, type OperationRecord, toExecutionRecord } from "../services/records";
import { DATASET_ARTIFACT_TYPE, datasetArtifactId, datasetContentHash, outputVersion } from "./dataset-identity";
import { InvalidEventError } from "./errors";
import { type DatasetMention, type DatasetName, type ParsedEvent, type RunFacts } from "./event-facts";
import { INPUT_ROLE, jobDeclaration, OUTPUT_ROLE } from "./job-operation";
import { foldRun, type RunFold, type StoredRunFacts } from "./run-fold";

export interface RecordEventsDeps {
  registry: OperationRegistry;
  plugins: readonly ProvgraphPlugin[];
  provider: DatabaseProvider;
}

export interface EventOutcome {
  status: "STORED" | "DUPLICATE";
  runId: RunId | null;
  /** The run's execution status once this event is recorded (RunEvents). */
  executionStatus: ExecutionStatus | null;
}

/** An event of the chunk the store refuses (a job clash, a rule of the core): the unit must roll back. */
export class EventRefusal extends Error {
  constructor(
    readonly index: number,
    readonly error: ProvenanceError,
  ) {
    super(`event ${index} refused: ${error.message}`);
  }
}

type RunEvent = Extract<ParsedEvent, { kind: "RUN" }>;

/** A dataset version an input resolved to, and how (DatasetVersionUse.resolvedBy). */
interface ResolvedInput extends DatasetName {
  id: ArtifactId;
  version: string | null;
  mention: DatasetMention;
}

/** One run of the chunk: its events here, what was stored before, and what this chunk makes of it. */
interface RunPlan {
  runId: RunId;
  events: { index: number; event: RunEvent }[];
  existing: ExecutionRecord | null;
  operation: OperationRecord;
  fold: RunFold;
  inputs: ResolvedInput[];
  newUses: { id: ArtifactId; how: string }[];
  sources: StagedArtifact[];
  outputs: { ref: { namespace: string; name: string; version: string | null }; id: ArtifactId; contentHash: string; columnSources: DatasetName[] | null }[];
  prepared?: PreparedExecution;
}

/**
 * Records a chunk of checked OpenLineage events in one recording unit, with a fixed number of
 * statements however many events it holds (each table read once, written once): the raw events
 * (those not stored before: a duplicate changes nothing), the jobs' operations on first sight, and
 * per run its execution — recorded by the run's first event, appended to by later ones — whose
 * derived state is the fold of all its stored events, with the dataset versions it used and
 * produced, their lineage, columns and column edges. Everything is checked before anything is
 * written: an event the store refuses throws an EventRefusal and the unit writes nothing (the
 * caller records the chunk's events one by one then, so only that event is refused). A chunk of one
 * event is the single-event path.
 */
export async function recordEvents(tx: DbTx, scope: UnitScope, deps: RecordEventsDeps, events: readonly ParsedEvent[], at: Date): Promise<EventOutcome[]> {
  const refuse = (index: number, error: ProvenanceError): never => {
    throw new EventRefusal(index, error);
  };
  const runEvents = events.flatMap((event, index) => (event.kind === "RUN" ? [{ index, event }] : []));
  await lockRuns(tx, deps.provider, runEvents.flatMap(({ event }) => [event.runId, ...(event.facts.parent ? [event.facts.parent.runId] : [])]));

  // Duplicates: stored before, or earlier in this chunk.
  const storedKeys = new Set((await tx.openLineageEvent.findMany({ where: { eventKey: { in: events.map((e) => e.eventKey) } }, select: { eventKey: true } })).map((e) => e.eventKey));
  const duplicate = events.map((event) => {
    if (storedKeys.has(event.eventKey)) return true;
    storedKeys.add(event.eventKey);
    return false;
  });

  // Jobs (and the jobs of parents runs name), planned in one read; created only once all is checked.
  const jobs = new Map<string, DatasetName>();
  const jobKey = (job: DatasetName) => JSON.stringify([job.namespace, job.name]);
  events.forEach((event, i) => {
    if (duplicate[i] || event.kind === "DATASET") return;
    jobs.set(jobKey(event.job), event.job);
    if (event.kind === "RUN" && event.facts.parent) jobs.set(jobKey(event.facts.parent.job), event.facts.parent.job);
  });
  const jobList = [...jobs.values()];
  const plan = await deps.registry.planIn(tx, jobList.map(jobDeclaration));
  const operationOf = new Map(jobList.map((job, i) => [jobKey(job), plan.operations[i]]));
  const jobOperation = (job: DatasetName, index: number): OperationRecord => {
    const operation = operationOf.get(jobKey(job))!;
    return "code" in operation ? refuse(index, operation) : operation;
  };
  events.forEach((event, i) => {
    if (!duplicate[i] && event.kind !== "DATASET") jobOperation(event.job, i);
  });

  // The runs: what was stored for them, then each one's fold with this chunk's events.
  const byRun = new Map<RunId, { index: number; event: RunEvent }[]>();
  for (const item of runEvents) if (!duplicate[item.index]) byRun.set(item.event.runId, [...(byRun.get(item.event.runId) ?? []), item]);
  const runIds = [...byRun.keys()];
  const parentIds = runEvents.flatMap(({ event }) => (event.facts.parent ? [event.facts.parent.runId] : []));
  const allRunIds = [...new Set([...runIds, ...parentIds, ...runEvents.map(({ event }) => event.runId)])];
  const [executionRows, olRuns, storedFacts, uses] = await Promise.all([
    tx.execution.findMany({ where: { runId: { in: allRunIds } } }),
    tx.openLineageRun.findMany({ where: { runId: { in: runIds } } }),
    tx.openLineageEvent.findMany({ where: { runId: { in: runIds } }, select: { runId: true, eventKey: true, facts: true } }),
    tx.datasetVersionUse.findMany({ where: { runId: { in: runIds } } }),
  ]);
  const executions = new Map(executionRows.map((row) => [row.runId, toExecutionRecord(row)]));
  const olRunOf = new Map(olRuns.map((r) => [r.runId, r]));
  const factsOf = new Map<string, StoredRunFacts[]>();
  for (const row of storedFacts) factsOf.set(row.runId!, [...(factsOf.get(row.runId!) ?? []), { eventKey: row.eventKey, facts: JSON.parse(row.facts) as RunFacts }]);
  const usedArtifacts = uses.length === 0 ? [] : await tx.artifact.findMany({ where: { id: { in: [...new Set(uses.map((u) => u.artifactId))] } } });
  const usedById = new Map(usedArtifacts.map((a) => [a.id, a]));

  const statusAfter = new Map<number, ExecutionStatus>();
  const runs: RunPlan[] = [];
  for (const [runId, items] of byRun) {
    const existing = executions.get(runId) ?? null;
    const first = items[0];
    const operation = jobOperation(first.event.job, first.index);
    if (existing) {
      const run = olRunOf.get(runId);
      if (!run) refuse(first.index, new InvalidEventError("/run/runId", `names execution ${runId}, which was recorded through recordExecution, not by OpenLineage events: its record cannot be appended to`));
      if (existing.operationId !== operation.id) refuse(first.index, jobClash(runId, run!, first.event.job));
    }
    for (const item of items.slice(1)) {
      if (jobKey(item.event.job) !== jobKey(first.event.job)) refuse(item.index, jobClash(runId, existing ? olRunOf.get(runId)! : first.event.job, item.event.job));
    }
    const stored = factsOf.get(runId) ?? [];
    items.forEach((item, i) => statusAfter.set(item.index, foldRun([...stored, ...items.slice(0, i + 1).map(({ event }) => ({ eventKey: event.eventKey, facts: event.facts }))]).status));
    const fold = foldRun([...stored, ...items.map(({ event }) => ({ eventKey: event.eventKey, facts: event.facts }))]);
    const outputs = fold.outputs.map((output) => {
      const ref = outputVersion(output, runId);
      return { ref, id: datasetArtifactId(ref), contentHash: datasetContentHash(ref), columnSources: output.columnSources };
    });
    runs.push({ runId, events: items, existing, operation, fold, inputs: [], newUses: [], sources: [], outputs });
  }

  // Parents not recorded yet: recorded now as runs of the parent job with no events of their own.
  const known = new Set([...executions.keys(), ...runIds]);
  const stubs: { runId: RunId; job: DatasetName; operation: OperationRecord; index: number }[] = [];
  for (const run of runs) {
    const parent = run.fold.parent;
    if (!parent || known.has(parent.runId)) continue;
    known.add(parent.runId);
    stubs.push({ runId: parent.runId, job: parent.job, operation: jobOperation(parent.job, run.events[0].index), index: run.events[0].index });
  }

  await resolveInputs(tx, runs, usedById, uses);

  // Prepare every execution of the chunk (new runs, parents, appended runs) in one pass over the pipeline.
  const pendingArtifacts: ArtifactRecord[] = [];
  for (const run of runs) {
    for (const s of run.sources) pendingArtifacts.push(artifactRecord(s, at));
    for (const o of run.outputs) pendingArtifacts.push(artifactRecord({ id: o.id, artifactType: DATASET_ARTIFACT_TYPE, contentHash: o.contentHash, originalName: o.ref.name, metadata: null, dataset: o.ref }, at));
  }
  const items: PrepareItem[] = [
    ...stubs.map((stub) => ({
      operation: stub.operation,
      request: checkRequestShape({ operation: stub.operation.name, operationVersion: stub.operation.version, inputs: [], outputs: [], status: "STARTED" }),
      ids: { runId: stub.runId, specId: specIdOfRun(stub.job, stub.runId), recordedAt: at },
    })),
    ...runs.map((run) => ({ operation: run.operation, request: requestOf(run), ids: { runId: run.runId, specId: run.existing?.specId ?? specIdOfRun(run.fold.job, run.runId), recordedAt: at } })),
  ];
  const prepared = await prepareExecutions(tx, deps.plugins, items, { artifacts: pendingArtifacts, runIds: [...stubs.map((s) => s.runId), ...runs.filter((r) => !r.existing).map((r) => r.runId)] });
  prepared.forEach((p, i) => {
    if ("code" in p) refuse(i < stubs.length ? stubs[i].index : runs[i - stubs.length].events[0].index, p);
  });
  const preparedStubs = prepared.slice(0, stubs.length) as PreparedExecution[];
  runs.forEach((run, i) => (run.prepared = prepared[stubs.length + i] as PreparedExecution));

  // Everything is checked: write. Operations, then every artifact the chunk names (so links of any run
  // may point at versions another run of the chunk produces), executions, appends, the rest.
  await deps.registry.createIn(tx, plan.toCreate);
  const artifacts = new Map<string, StagedArtifact>();
  for (const run of runs) {
    for (const s of run.sources) artifacts.set(s.id, s);
    for (const o of run.outputs) if (!artifacts.has(o.id)) artifacts.set(o.id, { id: o.id, artifactType: DATASET_ARTIFACT_TYPE, contentHash: o.contentHash, originalName: o.ref.name, metadata: null, dataset: o.ref });
  }
  await stageSourceArtifacts(tx, [...artifacts.values()], at);
  const fresh = runs.filter((run) => !run.existing);
  const appended = runs.filter((run) => run.existing);
  await stageExecutions(tx, [...preparedStubs, ...fresh.map((run) => run.prepared!)]);
  const appends = await stageAppends(tx, appended.map((run) => run.prepared!));
  await insertRows(
    tx,
    "DatasetVersionUse",
    ["runId", "artifactId", "pinned", "resolvedBy", "createdAt"],
    runs.flatMap((run) => run.newUses.map((u) => [run.runId, u.id, u.how === "VERSION_FACET", u.how, at])),
    { ignoreConflicts: true },
  );
  await insertRows(tx, "OpenLineageEvent", EVENT_COLUMNS, events.flatMap((event, i) => (duplicate[i] ? [] : [eventRow(event, at)])));
  await recordColumns(tx, runs, at);
  await insertRows(tx, "OpenLineageRun", RUN_STATE_COLUMNS, [...stubs.map((stub) => stubStateRow(stub, at)), ...runs.map((run) => runStateRow(run, at))], { update: { conflict: ["runId"], columns: RUN_STATE_COLUMNS.slice(1) } });

  // What the commit tells, in the chunk's order.
  preparedStubs.forEach((p) => scope.emit({ type: "EXECUTION_RECORDED", execution: recordedExecutionOf(p, []).execution, edges: [] }));
  for (const run of runs) {
    const execution = recordedExecutionOf(run.prepared!, []).execution;
    if (!run.existing) {
      scope.emit({ type: "EXECUTION_RECORDED", execution, edges: run.prepared!.edges });
      continue;
    }
    const staged = appends[appended.indexOf(run)];
    if (run.existing.status !== execution.status) scope.emit({ type: "EXECUTION_STATUS_CHANGED", execution: { ...execution, recordedAt: run.existing.recordedAt }, previousStatus: run.existing.status });
    if (staged.edges.length > 0) scope.emit({ type: "LINEAGE_RECORDED", runId: run.runId, edges: staged.edges });
  }

  const finalStatus = new Map<string, ExecutionStatus>([...executions.values()].map((e) => [e.runId, e.status]));
  for (const run of runs) finalStatus.set(run.runId, run.fold.status);
  return events.map((event, i) => {
    if (event.kind !== "RUN") return { status: duplicate[i] ? "DUPLICATE" : "STORED", runId: null, executionStatus: null };
    if (duplicate[i]) return { status: "DUPLICATE", runId: event.runId, executionStatus: finalStatus.get(event.runId) ?? null };
    return { status: "STORED", runId: event.runId, executionStatus: statusAfter.get(i)! };
  });
}

function jobClash(runId: RunId, recorded: { jobNamespace: string; jobName: string } | DatasetName, named: DatasetName): InvalidEventError {
  const job = "jobName" in recorded ? { namespace: recorded.jobNamespace, name: recorded.jobName } : recorded;
  return new InvalidEventError("/job", `run ${runId} is a run of job '${job.name}' in namespace '${job.namespace}'; this event names job '${named.name}' in namespace '${named.namespace}'`);
}

/** The run as a recording request: every input and output its events reported so far, and the derived state. */
function requestOf(run: RunPlan): RecordExecutionRequest {
  const { fold } = run;
  const outputIds = new Set(run.outputs.map((o) => o.id as string));
  const inputIds = [...new Set(run.inputs.map((i) => i.id as string))].filter((id) => !outputIds.has(id));
  const labels = outputLabels(run.outputs);
  const request: RecordExecutionRequest = {
    operation: run.operation.name,
    operationVersion: run.operation.version,
    params: Object.keys(fold.params).length > 0 ? fold.params : null,
    inputs: [{ role: INPUT_ROLE, artifactIds: inputIds }],
    outputs: [{ role: OUTPUT_ROLE, artifacts: run.outputs.map((o, i) => ({ originalName: labels[i], contentHash: o.contentHash, dataset: o.ref })) }],
    // Dataset-level lineage: each output derives jointly from the run's inputs — or, when its column
    // lineage names its sources, from those — minus itself (a job may read and write one version).
    lineage: run.outputs.flatMap((output, i) => {
      const sources = output.columnSources
        ? run.inputs.filter((input) => output.columnSources!.some((s) => s.namespace === input.namespace && s.name === input.name)).map((input) => input.id as string)
        : inputIds;
      const distinct = [...new Set(sources)].filter((id) => id !== output.id);
      return distinct.length === 0 ? [] : [{ output: labels[i], sources: distinct, kind: "JOINT" as const }];
    }),
    agent: fold.agent,
    parentRunId: fold.parent?.runId ?? null,
    status: fold.status,
    pins: { inputVersions: inputVersionsOf(run), codeVersion: fold.codeVersion, imageDigest: fold.imageDigest, deterministic: null },
  };
  // The shape check (safe text, canonical hashes) without the times: a producer's clock may put a
  // COMPLETE before its START; both are kept as reported.
  return { ...checkRequestShape(request), startedAt: fold.startedAt, endedAt: fold.endedAt };
}

/** PostgreSQL: a transaction-scoped advisory lock per run, taken in sorted order (two units never wait on each other). SQLite has one writer. */
async function lockRuns(tx: DbTx, provider: DatabaseProvider, runIds: readonly RunId[]): Promise<void> {
  if (provider !== "postgres") return;
  for (const runId of [...new Set(runIds)].sort()) await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))::text AS locked`, runId);
}

/** An OpenLineage run's specId names the run itself: OpenLineage does not say what a run was asked to compute before it ends. */
function specIdOfRun(job: DatasetName, runId: RunId): SpecId {
  return specIdFrom(canonicalJson({ openlineage: { namespace: job.namespace, name: job.name }, runId }));
}

/**
 * Each input a run reported, as a dataset version: the one its `version` facet names (pinned);
 * without one, the version this run already resolved it to, or any version another of its events
 * names; else the newest version known (LATEST_KNOWN, unpinned) — produced by an earlier run of this
 * chunk, else the newest provgraph has recorded — never one the run itself produces; else the
 * dataset itself, unversioned (UNVERSIONED, unpinned). Versions no recorded run produced become
 * source artifacts.
 */
async function resolveInputs(
  tx: DbTx,
  runs: RunPlan[],
  usedById: Map<string, { id: string; datasetNamespace: string | null; datasetName: string | null; datasetVersion: string | null }>,
  uses: readonly { runId: string; artifactId: string; resolvedBy: string }[],
): Promise<void> {
  const datasetKey = (d: DatasetName) => JSON.stringify([d.namespace, d.name]);
  const earlierUse = (run: RunPlan, mention: DatasetMention) => {
    for (const use of uses) {
      if (use.runId !== run.runId || use.resolvedBy === "VERSION_FACET") continue;
      const a = usedById.get(use.artifactId);
      if (a && a.datasetNamespace === mention.namespace && a.datasetName === mention.name) return a;
    }
    return undefined;
  };
  const needsLatest = (run: RunPlan, mention: DatasetMention) =>
    mention.version === null && !run.fold.inputs.some((m) => m.version !== null && m.namespace === mention.namespace && m.name === mention.name) && !earlierUse(run, mention);
  // The newest stored versions of every dataset some run must resolve (enough to skip a run's own outputs).
  const wanted = new Map<string, { d: DatasetName; limit: number }>();
  for (const run of runs) {
    for (const mention of run.fold.inputs) {
      if (!needsLatest(run, mention)) continue;
      const own = run.outputs.filter((o) => o.ref.namespace === mention.namespace && o.ref.name === mention.name).length;
      const key = datasetKey(mention);
      wanted.set(key, { d: mention, limit: Math.max(wanted.get(key)?.limit ?? 0, own + 1) });
    }
  }
  const stored = await newestVersions(tx, [...wanted.values()]);
  // Versions produced by the chunk's runs, newest (latest run) first, as they become known.
  const producedInChunk = new Map<string, { id: ArtifactId; version: string | null }[]>();
  for (const run of runs) {
    const own = new Set(run.outputs.map((o) => o.id as string));
    for (const mention of run.fold.inputs) {
      let version = mention.version;
      let how = "VERSION_FACET";
      if (mention.version === null) {
        if (run.fold.inputs.some((m) => m.version !== null && m.namespace === mention.namespace && m.name === mention.name)) continue; // the versioned mention stands for it
        const earlier = earlierUse(run, mention);
        if (earlier) {
          run.inputs.push({ namespace: mention.namespace, name: mention.name, version: earlier.datasetVersion, id: earlier.id as ArtifactId, mention });
          continue;
        }
        const candidates = [...(producedInChunk.get(datasetKey(mention)) ?? []), ...(stored.get(datasetKey(mention)) ?? [])];
        const latest = candidates.find((c) => !own.has(c.id));
        version = latest?.version ?? null;
        how = latest ? "LATEST_KNOWN" : "UNVERSIONED";
      }
      const ref = { namespace: mention.namespace, name: mention.name, version };
      const id = datasetArtifactId(ref);
      if (how !== "LATEST_KNOWN") run.sources.push({ id, artifactType: DATASET_ARTIFACT_TYPE, contentHash: datasetContentHash(ref), originalName: ref.name, metadata: null, dataset: ref });
      run.newUses.push({ id, how });
      run.inputs.push({ ...ref, id, mention });
    }
    for (const o of run.outputs) {
      if (o.ref.version === null) continue;
      producedInChunk.set(datasetKey(o.ref), [{ id: o.id, version: o.ref.version }, ...(producedInChunk.get(datasetKey(o.ref)) ?? [])]);
    }
  }
}

/** For each dataset, its `limit` newest stored versions (by recording time, then id), in one statement. */
async function newestVersions(tx: DbTx, wanted: readonly { d: DatasetName; limit: number }[]): Promise<Map<string, { id: ArtifactId; version: string | null }[]>> {
  const result = new Map<string, { id: ArtifactId; version: string | null }[]>();
  if (wanted.length === 0) return result;
  const rows = await tx.artifact.findMany({
    where: { OR: wanted.map(({ d }) => ({ datasetNamespace: d.namespace, datasetName: d.name })), datasetVersion: { not: null } },
    select: { id: true, datasetNamespace: true, datasetName: true, datasetVersion: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const limits = new Map(wanted.map(({ d, limit }) => [JSON.stringify([d.namespace, d.name]), limit]));
  for (const row of rows) {
    const key = JSON.stringify([row.datasetNamespace, row.datasetName]);
    const list = result.get(key) ?? [];
    if (list.length < (limits.get(key) ?? 0)) list.push({ id: row.id as ArtifactId, version: row.datasetVersion });
    result.set(key, list);
  }
  return result;
}

/** pins.inputVersions of an OpenLineage run: every dataset version it used, and whether the event pinned it. */
function inputVersionsOf(run: RunPlan): unknown {
  const byId = new Map<string, { namespace: string; name: string; version: string | null; artifactId: string; pinned: boolean; resolvedBy: string }>();
  const how = new Map(run.newUses.map((u) => [u.id as string, u.how]));
  for (const input of run.inputs) {
    const resolvedBy = how.get(input.id) ?? (input.mention.version !== null ? "VERSION_FACET" : input.version === null ? "UNVERSIONED" : "LATEST_KNOWN");
    if (!byId.has(input.id)) byId.set(input.id, { namespace: input.namespace, name: input.name, version: input.version, artifactId: input.id, pinned: resolvedBy === "VERSION_FACET", resolvedBy });
  }
  if (byId.size === 0) return null;
  return [...byId.values()].sort((a, b) => canonicalJson([a.namespace, a.name, a.version]).localeCompare(canonicalJson([b.namespace, b.name, b.version])));
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
 * The chunk's column lineage as column edges (one per reported transformation; a `dataset` entry's
 * target field is null: the whole output), and its schema facets as the columns of the versions they
 * describe. Edges and columns already recorded are not repeated.
 */
async function recordColumns(tx: DbTx, runs: readonly RunPlan[], at: Date): Promise<void> {
  const edges: ColumnEdgeDraft[] = [];
  const columns = new Map<string, DatasetColumnRecord>();
  const addColumns = (artifactId: ArtifactId, fields: { field: string; type: string | null; description: string | null }[]) =>
    fields.forEach((f, position) => {
      const key = `${artifactId}\u0000${f.field}`;
      if (!columns.has(key)) columns.set(key, { artifactId, field: f.field, position, type: f.type, description: f.description });
    });
  for (const run of runs) {
    const inputOf = (d: DatasetName & { version: string | null }): ArtifactId => {
      const exact = run.inputs.find((i) => i.namespace === d.namespace && i.name === d.name && i.mention.version === d.version);
      const any = exact ?? run.inputs.find((i) => i.namespace === d.namespace && i.name === d.name);
      if (!any) throw new Error(`column lineage source ${d.namespace}/${d.name} was not resolved as an input of ${run.runId}`);
      return any.id;
    };
    for (const { event } of run.events) {
      const versionInEvent = (d: DatasetName) => event.inputs.find((i) => i.namespace === d.namespace && i.name === d.name)?.version ?? null;
      for (const output of event.outputs) {
        const targetId = datasetArtifactId(outputVersion(output, run.runId));
        if (output.fields) addColumns(targetId, output.fields);
        if (!output.columnLineage) continue;
        const dependencies = [
          ...output.columnLineage.fields.flatMap(({ field, inputs }) => inputs.map((d) => ({ d, targetField: field as string | null }))),
          ...output.columnLineage.dataset.map((d) => ({ d, targetField: null })),
        ];
        for (const { d, targetField } of dependencies) {
          const sourceId = inputOf({ namespace: d.namespace, name: d.name, version: versionInEvent(d) });
          for (const t of d.transformations) edges.push({ sourceId, sourceField: d.field, targetId, targetField, runId: run.runId, type: t.type, subtype: t.subtype, description: t.description, masking: t.masking });
        }
      }
      for (const input of event.inputs) if (input.fields) addColumns(inputOf(input), input.fields);
    }
  }
  await stageColumnEdges(tx, edges, at);
  await stageDatasetColumns(tx, [...columns.values()]);
}

const EVENT_COLUMNS = ["eventKey", "kind", "eventType", "eventTime", "runId", "jobNamespace", "jobName", "datasetNamespace", "datasetName", "producer", "body", "facts", "receivedAt"];

function eventRow(event: ParsedEvent, at: Date): unknown[] {
  const run = event.kind === "RUN" ? event : null;
  const job = event.kind === "DATASET" ? null : event.job;
  const dataset = event.kind === "DATASET" ? event.dataset : null;
  return [
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
}

/** OpenLineageRun: the OpenLineage-only part of a run's derived state (its job, event counts, failure) — the fold again. */
const RUN_STATE_COLUMNS = ["runId", "jobNamespace", "jobName", "events", "firstEventTime", "lastEventTime", "failureMessage", "failureLanguage", "failureStackTrace", "updatedAt"];

function runStateRow(run: RunPlan, at: Date): unknown[] {
  const { fold } = run;
  return [run.runId, fold.job.namespace, fold.job.name, fold.events, fold.firstEventTime, fold.lastEventTime, fold.failure?.message ?? null, fold.failure?.programmingLanguage ?? null, fold.failure?.stackTrace ?? null, at];
}

function stubStateRow(stub: { runId: RunId; job: DatasetName }, at: Date): unknown[] {
  return [stub.runId, stub.job.namespace, stub.job.name, 0, null, null, null, null, null, at];
}

function artifactRecord(a: StagedArtifact, at: Date): ArtifactRecord {
  return { id: a.id as ArtifactId, artifactType: a.artifactType!, contentHash: a.contentHash, originalName: a.originalName, metadata: null, dataset: a.dataset ?? null, createdAt: at };
}

import type { ProvenanceError } from "../../plugins/errors";
import type { ProvgraphPlugin } from "../../plugins/types";
import type { DbTx } from "../db/client";
import type { DatabaseProvider } from "../db/database-url";
import { inChunks } from "../db/chunked-lists";
import { jsonItem, jsonListRows } from "../db/json-list";
import { canonicalJson } from "../services/canonical-json";
import { type ColumnEdgeDraft, type DatasetColumnRecord, stageColumnEdges, stageDatasetColumns } from "../services/columns";
import { type ColumnFacetRow, POLICY_TAG, type ReportedTag, stageColumnFacets, stageReportedTags, SubjectSuppressedError } from "../services/compliance";
import { type ArtifactId, type RunId, specIdFrom, type SpecId } from "../services/ids";
import {
  checkRequestShape,
  insertRows,
  noteUnitWrites,
  type SubjectDeclarationDraft,
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
  turnSlicer,
  type UnitScope,
  type PendingRecords,
  type RecordingActor,
} from "../services/recording";
import { type ArtifactRecord, type ExecutionRecord, type ExecutionStatus, type OperationRecord, toArtifactRecord, toExecutionRecord } from "../services/records";
import { DATASET_ARTIFACT_TYPE, datasetArtifactId, datasetContentHash, outputVersion } from "./dataset-identity";
import { InvalidEventError } from "./errors";
import { type DatasetMention, type DatasetName, type InputReport, type OutputReport, type ParsedEvent, PRIVACY_COST_FACET, PURPOSE_FACET, type RunFacts } from "./event-facts";
import { INPUT_ROLE, jobDeclaration, OUTPUT_ROLE } from "./job-operation";
import { foldRun, type RunFold, type StoredRunFacts } from "./run-fold";
import { appendTo } from "../services/grouping";

export interface RecordEventsDeps {
  registry: OperationRegistry;
  plugins: readonly ProvgraphPlugin[];
  provider: DatabaseProvider;
  /** Who sends the events (a release's ledger entries name them). */
  actor?: RecordingActor;
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

/** A dataset version an input resolved to, and the mention it resolved. */
interface ResolvedInput extends DatasetName {
  id: ArtifactId;
  version: string | null;
  mention: DatasetMention;
}

/** A dataset version a run's events report as an output. */
interface RunOutput {
  ref: { namespace: string; name: string; version: string | null };
  id: ArtifactId;
  contentHash: string;
  columnSources: DatasetName[] | null;
}

/**
 * What a run is after one of its events: the fold of its events up to that one, the inputs and
 * outputs that fold resolves to, and (once prepared) the execution it describes. Recording a chunk
 * stages these states one after another, exactly as if each event came alone.
 */
interface RunState {
  /** Index in the chunk of the event that leads to this state. */
  index: number;
  instant: Date;
  /** How many of the run's uses (input resolutions) existed at this state. */
  usesSoFar: number;
  fold: RunFold;
  inputs: ResolvedInput[];
  outputs: RunOutput[];
  prepared?: PreparedExecution;
}

/** One run of the chunk: its events here, what was stored before, and its states after each event. */
interface RunPlan {
  runId: RunId;
  events: { index: number; event: RunEvent }[];
  existing: ExecutionRecord | null;
  operation: OperationRecord;
  states: RunState[];
  /** How each input version was resolved (DatasetVersionUse), stored before and made by this chunk. */
  uses: { artifactId: string; resolvedBy: string; dataset: DatasetName & { version: string | null } }[];
  newUses: { id: ArtifactId; how: string; instant: Date }[];
  sources: StagedArtifact[];
}

/**
 * Records a chunk of checked OpenLineage events in one recording unit, with a number of statements
 * that does not grow with the events it holds (each table read once; written once per "round" —
 * the k-th event of every run in the chunk): the raw events (those not stored before: a duplicate
 * changes nothing), the jobs' operations on first sight, and per run its execution — recorded by the
 * run's first event, appended to by later ones — whose derived state is the fold of its stored
 * events, with the dataset versions it used and produced, their lineage, columns and column edges.
 * It records exactly what the same events recorded one by one would (each state of a run is
 * prepared and staged in turn; each event has its own recording instant). Everything is checked
 * before anything is written: an event the store refuses throws an EventRefusal and the unit writes
 * nothing (the caller then records the chunk's events one by one, so only that event is refused).
 * A chunk of one event is the single-event path.
 */
export async function recordEvents(tx: DbTx, scope: UnitScope, deps: RecordEventsDeps, events: readonly ParsedEvent[], instants: readonly Date[]): Promise<EventOutcome[]> {
  const refuse = (index: number, error: ProvenanceError): never => {
    throw new EventRefusal(index, error);
  };
  const at = instants[instants.length - 1];
  const runEvents = events.flatMap((event, index) => (event.kind === "RUN" ? [{ index, event }] : []));
  await lockRuns(tx, deps.provider, runEvents.flatMap(({ event }) => [event.runId, ...(event.facts.parent ? [event.facts.parent.runId] : [])]));

  // Duplicates: stored before, or earlier in this chunk.
  const storedKeys = new Set(
    (await inChunks(events.map((e) => e.eventKey), (chunk) => tx.openLineageEvent.findMany({ where: { eventKey: { in: chunk } }, select: { eventKey: true } }))).map((e) => e.eventKey),
  );
  const duplicate = events.map((event) => {
    if (storedKeys.has(event.eventKey)) return true;
    storedKeys.add(event.eventKey);
    return false;
  });
  // A duplicate writes nothing, yet it still declares its subjects: one erased since it was stored refuses it.
  const resentSubjects = events.flatMap((event, index) =>
    duplicate[index] && event.kind === "RUN" ? [...event.inputs, ...event.outputs].flatMap((d) => d.subjects.map((s) => ({ index, dataset: d, ...s }))) : [],
  );
  if (resentSubjects.length > 0) {
    const hashes = [...new Set(resentSubjects.map((s) => s.keyHash))];
    const suppressed = new Set((await inChunks(hashes, (chunk) => tx.subjectTombstone.findMany({ where: { keyHash: { in: chunk } }, select: { keyHash: true } }))).map((t) => t.keyHash));
    const refused = resentSubjects.find((s) => suppressed.has(s.keyHash));
    if (refused) refuse(refused.index, new SubjectSuppressedError({ pointer: refused.pointer }, `dataset '${refused.dataset.name}' in namespace '${refused.dataset.namespace}'`));
  }

  // The runs: what was stored for them.
  const byRun = new Map<RunId, { index: number; event: RunEvent }[]>();
  for (const item of runEvents) if (!duplicate[item.index]) appendTo(byRun, item.event.runId, item);
  const runIds = [...byRun.keys()];
  const parentIds = runEvents.flatMap(({ event }) => (event.facts.parent ? [event.facts.parent.runId] : []));
  const allRunIds = [...new Set([...runIds, ...parentIds, ...runEvents.map(({ event }) => event.runId)])];
  const executions = new Map((await inChunks(allRunIds, (chunk) => tx.execution.findMany({ where: { runId: { in: chunk } } }))).map((row) => [row.runId, toExecutionRecord(row)]));
  // A run no execution holds yet has nothing else stored either.
  const recorded = runIds.filter((runId) => executions.has(runId));
  const [olRuns, storedFacts, storedUses] =
    recorded.length === 0
      ? [[], [], []]
      : await Promise.all([
          inChunks(recorded, (chunk) => tx.openLineageRun.findMany({ where: { runId: { in: chunk } } })),
          inChunks(recorded, (chunk) => tx.openLineageEvent.findMany({ where: { runId: { in: chunk } }, select: { runId: true, eventKey: true, facts: true } })),
          inChunks(recorded, (chunk) => tx.datasetVersionUse.findMany({ where: { runId: { in: chunk } } })),
        ]);
  const olRunOf = new Map(olRuns.map((r) => [r.runId, r]));
  const factsOf = new Map<string, StoredRunFacts[]>();
  for (const row of storedFacts) appendTo(factsOf, row.runId!, { eventKey: row.eventKey, facts: JSON.parse(row.facts) as RunFacts });
  const usedArtifacts = storedUses.length === 0 ? [] : await inChunks(new Set(storedUses.map((u) => u.artifactId)), (chunk) => tx.artifact.findMany({ where: { id: { in: chunk } } }));
  const usedById = new Map(usedArtifacts.map((a) => [a.id, a]));
  const usesOf = new Map<string, typeof storedUses>();
  for (const use of storedUses) appendTo(usesOf, use.runId, use);
  // Parents only stored events name (a later event need not repeat the parent facet): their executions too.
  const storedParents = [...factsOf.values()].flatMap((facts) => facts.flatMap(({ facts: f }) => (f.parent ? [f.parent] : [])));
  const unread = [...new Set(storedParents.map((p) => p.runId))].filter((runId) => !executions.has(runId) && !byRun.has(runId as RunId));
  if (unread.length > 0) for (const row of await inChunks(unread, (chunk) => tx.execution.findMany({ where: { runId: { in: chunk } } }))) executions.set(row.runId, toExecutionRecord(row));

  // Jobs (and the jobs parent facets name, the stored events' included), planned in one read; created only once all is checked.
  const jobs = new Map<string, DatasetName>();
  const jobKey = (job: DatasetName) => JSON.stringify([job.namespace, job.name]);
  events.forEach((event, i) => {
    if (duplicate[i] || event.kind === "DATASET") return;
    jobs.set(jobKey(event.job), event.job);
    if (event.kind === "RUN" && event.facts.parent) jobs.set(jobKey(event.facts.parent.job), event.facts.parent.job);
  });
  for (const parent of storedParents) if (!executions.has(parent.runId)) jobs.set(jobKey(parent.job), parent.job);
  const jobList = [...jobs.values()];
  const plan = await deps.registry.planIn(tx, jobList.map(jobDeclaration));
  const operationOf = new Map(jobList.map((job, i) => [jobKey(job), plan.operations[i]]));
  const jobOperation = (job: DatasetName, index: number): OperationRecord => {
    const operation = operationOf.get(jobKey(job));
    if (operation === undefined) throw new Error(`job ${jobKey(job)} was not planned`);
    return "code" in operation ? refuse(index, operation) : operation;
  };
  events.forEach((event, i) => {
    if (!duplicate[i] && event.kind !== "DATASET") jobOperation(event.job, i);
  });

  const runs = new Map<RunId, RunPlan>();
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
    const uses = (usesOf.get(runId) ?? []).flatMap((u) => {
        const a = usedById.get(u.artifactId);
        return a ? [{ artifactId: u.artifactId, resolvedBy: u.resolvedBy, dataset: { namespace: a.datasetNamespace!, name: a.datasetName!, version: a.datasetVersion } }] : [];
      });
    runs.set(runId, { runId, events: items, existing, operation, states: [], uses, newUses: [], sources: [] });
  }

  // Each run's state after each of its events, in the chunk's order: so an input resolves to the
  // newest version known when its event comes (stored, or produced by an earlier event of the chunk).
  const newest = await newestVersions(tx, deps.provider, [...runs.values()], factsOf);
  const producedInChunk = new Map<string, { id: ArtifactId; version: string }[]>();
  // A chunk of hundreds of events is folded, and its requests made, a slice at a time between other requests' turns.
  const slice = turnSlicer();
  for (const { index, event } of runEvents) {
    await slice();
    if (duplicate[index]) continue;
    const run = runs.get(event.runId)!;
    const done = run.events.findIndex((e) => e.index === index) + 1;
    const fold = foldRun([...(factsOf.get(run.runId) ?? []), ...run.events.slice(0, done).map(({ event: e }) => ({ eventKey: e.eventKey, facts: e.facts }))]);
    const outputs: RunOutput[] = fold.outputs.map((output) => {
      const ref = outputVersion(output, run.runId);
      return { ref, id: datasetArtifactId(ref), contentHash: datasetContentHash(ref), columnSources: output.columnSources };
    });
    const inputs = resolveInputs(run, fold, outputs, newest, producedInChunk, instants[index]);
    run.states.push({ index, instant: instants[index], usesSoFar: run.uses.length, fold, inputs, outputs });
    for (const output of event.outputs) {
      const ref = outputVersion(output, run.runId);
      const key = JSON.stringify([ref.namespace, ref.name]);
      producedInChunk.set(key, [{ id: datasetArtifactId(ref), version: ref.version! }, ...(producedInChunk.get(key) ?? [])]);
    }
  }

  // Parents not recorded yet: recorded now as runs of the parent job with no events of their own.
  const known = new Set([...executions.keys(), ...runIds]);
  const stubs: { runId: RunId; job: DatasetName; operation: OperationRecord; index: number }[] = [];
  for (const run of runs.values()) {
    for (const state of run.states) {
      const parent = state.fold.parent;
      if (!parent || known.has(parent.runId)) continue;
      known.add(parent.runId);
      stubs.push({ runId: parent.runId, job: parent.job, operation: jobOperation(parent.job, state.index), index: state.index });
    }
  }

  // Prepare every state of every run (and the parents) in one pass over the pipeline.
  const artifacts = new Map<string, StagedArtifact>();
  for (const run of runs.values()) {
    for (const s of run.sources) if (!artifacts.has(s.id)) artifacts.set(s.id, s);
    for (const state of run.states) {
      for (const o of state.outputs) {
        if (!artifacts.has(o.id)) artifacts.set(o.id, { id: o.id, artifactType: DATASET_ARTIFACT_TYPE, contentHash: o.contentHash, originalName: o.ref.name, metadata: null, dataset: o.ref, createdAt: state.instant });
      }
    }
  }
  const states = [...runs.values()].flatMap((run) => run.states.map((state) => ({ run, state })));
  const items: PrepareItem[] = stubs.map((stub) => ({
    operation: stub.operation,
    request: checkRequestShape({ operation: stub.operation.name, operationVersion: stub.operation.version, inputs: [], outputs: [], status: "STARTED" }),
    ids: { runId: stub.runId, specId: specIdOfRun(stub.job, stub.runId), recordedAt: instants[stub.index] },
  }));
  for (const { run, state } of states) {
    await slice();
    items.push({ operation: run.operation, request: requestOf(run, state), ids: { runId: run.runId, specId: run.existing?.specId ?? specIdOfRun(state.fold.job, run.runId), recordedAt: state.instant } });
  }
  // What the drafts use: the artifacts the chunk stages, and the stored ones the runs used before (read above).
  const pendingArtifacts = [...[...artifacts.values()].map((a) => artifactRecord(a, at)), ...usedArtifacts.filter((a) => !artifacts.has(a.id)).map(toArtifactRecord)];
  const pending: PendingRecords = {
    artifacts: new Map(pendingArtifacts.map((a) => [a.id as string, a])),
    runIds: new Set<string>([...stubs.map((s) => s.runId), ...[...runs.values()].filter((r) => !r.existing).map((r) => r.runId)]),
    edges: [],
  };
  const prepared = await prepareExecutions(tx, deps.plugins, items, pending);
  prepared.forEach((p, i) => {
    if ("code" in p) refuse(i < stubs.length ? stubs[i].index : states[i - stubs.length].state.index, p);
  });
  const preparedStubs = prepared.slice(0, stubs.length) as PreparedExecution[];
  states.forEach(({ state }, i) => (state.prepared = prepared[stubs.length + i] as PreparedExecution));

  // Everything is checked: write. Operations, then every artifact the chunk names (so links of any run
  // may point at versions another run of the chunk produces), then the runs' states in rounds (the
  // k-th state of every run), then the rest.
  await deps.registry.createIn(tx, plan.toCreate);
  await stageSourceArtifacts(tx, [...artifacts.values()], at);
  preparedStubs.forEach((p) => scope.emit({ type: "EXECUTION_RECORDED", execution: recordedExecutionOf(p, []).execution, edges: [] }));
  const previous = new Map<RunId, ExecutionRecord | null>([...runs.values()].map((run) => [run.runId, run.existing]));
  const rounds = Math.max(0, ...[...runs.values()].map((run) => run.states.length));
  for (let k = 0; k < rounds; k++) {
    const round = [...runs.values()].filter((run) => run.states.length > k);
    const fresh = round.filter((run) => previous.get(run.runId) === null);
    const appended = round.filter((run) => previous.get(run.runId) !== null);
    await stageExecutions(tx, [...(k === 0 ? preparedStubs : []), ...fresh.map((run) => run.states[k].prepared!)], { artifactsStaged: true });
    const appends = await stageAppends(tx, appended.map((run) => run.states[k].prepared!), { artifactsStaged: true });
    for (const run of round) {
      const state = run.states[k];
      const before = previous.get(run.runId)!;
      const execution = { ...recordedExecutionOf(state.prepared!, []).execution, ...(before ? { recordedAt: before.recordedAt } : {}) };
      previous.set(run.runId, execution);
      if (!before) {
        scope.emit({ type: "EXECUTION_RECORDED", execution, edges: state.prepared!.edges });
        continue;
      }
      const staged = appends[appended.indexOf(run)];
      if (before.status !== execution.status) scope.emit({ type: "EXECUTION_STATUS_CHANGED", execution, previousStatus: before.status });
      if (staged.edges.length > 0) scope.emit({ type: "LINEAGE_RECORDED", runId: run.runId, edges: staged.edges });
    }
  }
  await insertRows(
    tx,
    "DatasetVersionUse",
    ["runId", "artifactId", "pinned", "resolvedBy", "createdAt"],
    [...runs.values()].flatMap((run) => run.newUses.map((u) => [run.runId, u.id, u.how === "VERSION_FACET", u.how, u.instant])),
    { ignoreConflicts: true },
  );
  // ON CONFLICT: a JobEvent or DatasetEvent (no run lock) delivered twice at once is stored once. In the order received: the ids are that order.
  await insertRows(tx, "OpenLineageEvent", EVENT_COLUMNS, events.flatMap((event, i) => (duplicate[i] ? [] : [eventRow(event, instants[i])])), { ignoreConflicts: true, inGivenOrder: true });
  await recordColumns(tx, events, [...runs.values()], at, new Set([...runs.values()].filter((run) => !run.existing).map((run) => run.runId as string)));
  await insertRows(tx, "OpenLineageRun", RUN_STATE_COLUMNS, [...stubs.map((stub) => stubStateRow(stub, at)), ...[...runs.values()].map((run) => runStateRow(run, at))], {
    update: { conflict: ["runId"], columns: RUN_STATE_COLUMNS.slice(1) },
  });
  noteReleases(tx, [...runs.values()], deps.actor ?? { name: "unknown", tokenId: null });
  noteRunPurposes(tx, [...runs.values()], deps.actor ?? { name: "unknown", tokenId: null });

  const statusAfter = new Map<number, ExecutionStatus>();
  for (const run of runs.values()) for (const state of run.states) statusAfter.set(state.index, state.fold.status);
  const finalStatus = new Map<string, ExecutionStatus>([...executions.values()].map((e) => [e.runId, e.status]));
  for (const run of runs.values()) finalStatus.set(run.runId, run.states[run.states.length - 1].fold.status);
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

/** A state of the run as a recording request: every input and output its events reported up to it, and the derived state. */
function requestOf(run: RunPlan, state: RunState): RecordExecutionRequest {
  const { fold } = state;
  const outputIds = new Set(state.outputs.map((o) => o.id as string));
  const inputIds = [...new Set(state.inputs.map((i) => i.id as string))].filter((id) => !outputIds.has(id));
  const labels = outputLabels(state.outputs);
  const request: RecordExecutionRequest = {
    operation: run.operation.name,
    operationVersion: run.operation.version,
    params: Object.keys(fold.params).length > 0 ? fold.params : null,
    inputs: [{ role: INPUT_ROLE, artifactIds: inputIds }],
    outputs: [{ role: OUTPUT_ROLE, artifacts: state.outputs.map((o, i) => ({ originalName: labels[i], contentHash: o.contentHash, dataset: o.ref })) }],
    // Dataset-level lineage: each output derives jointly from the run's inputs — or, when its column
    // lineage names its sources, from those — minus itself (a job may read and write one version).
    lineage: state.outputs.flatMap((output, i) => {
      const sources = output.columnSources
        ? state.inputs.filter((input) => output.columnSources!.some((s) => s.namespace === input.namespace && s.name === input.name)).map((input) => input.id as string)
        : inputIds;
      const distinct = [...new Set(sources)].filter((id) => id !== output.id);
      return distinct.length === 0 ? [] : [{ output: labels[i], sources: distinct, kind: "JOINT" as const }];
    }),
    agent: fold.agent,
    parentRunId: fold.parent?.runId ?? null,
    status: fold.status,
    pins: { inputVersions: inputVersionsOf(run.uses.slice(0, state.usesSoFar)), codeVersion: fold.codeVersion, imageDigest: fold.imageDigest, deterministic: fold.deterministic },
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
 * Each input a state of a run reports, as a dataset version: the one its `version` facet names
 * (pinned); without one, the version this run resolved it to before, or any version another of its
 * events names; else the newest version known (LATEST_KNOWN, unpinned) — produced by an earlier
 * event of the chunk, else the newest provgraph has recorded — never one the run itself produces;
 * else the dataset itself, unversioned (UNVERSIONED, unpinned). Versions no recorded run produced
 * become source artifacts. New resolutions are added to the run's uses.
 */
function resolveInputs(
  run: RunPlan,
  fold: RunFold,
  outputs: readonly RunOutput[],
  newest: Map<string, { id: ArtifactId; version: string }[]>,
  producedInChunk: Map<string, { id: ArtifactId; version: string }[]>,
  instant: Date,
): ResolvedInput[] {
  const key = (d: DatasetName) => JSON.stringify([d.namespace, d.name]);
  const own = new Set(outputs.map((o) => o.id as string));
  // Indexes over the run's uses (kept up to date as uses are added): a 100,000-input event stays linear.
  const versioned = new Set(fold.inputs.filter((m) => m.version !== null).map(key));
  const earlierOf = new Map<string, RunPlan["uses"][number]>();
  const noteUse = (u: RunPlan["uses"][number]) => {
    if (u.resolvedBy !== "VERSION_FACET" && !earlierOf.has(key(u.dataset))) earlierOf.set(key(u.dataset), u);
  };
  run.uses.forEach(noteUse);
  const used = new Set(run.uses.map((u) => u.artifactId));
  const resolved: ResolvedInput[] = [];
  for (const mention of fold.inputs) {
    let version = mention.version;
    let how = "VERSION_FACET";
    if (mention.version === null) {
      if (versioned.has(key(mention))) continue; // the versioned mention stands for it
      const earlier = earlierOf.get(key(mention));
      if (earlier) {
        resolved.push({ namespace: mention.namespace, name: mention.name, version: earlier.dataset.version, id: earlier.artifactId as ArtifactId, mention });
        continue;
      }
      const latest = [...(producedInChunk.get(key(mention)) ?? []), ...(newest.get(key(mention)) ?? [])].find((c) => !own.has(c.id));
      version = latest?.version ?? null;
      how = latest ? "LATEST_KNOWN" : "UNVERSIONED";
    }
    const ref = { namespace: mention.namespace, name: mention.name, version };
    const id = datasetArtifactId(ref);
    if (!used.has(id)) {
      if (how !== "LATEST_KNOWN") run.sources.push({ id, artifactType: DATASET_ARTIFACT_TYPE, contentHash: datasetContentHash(ref), originalName: ref.name, metadata: null, dataset: ref, createdAt: instant });
      run.newUses.push({ id, how, instant });
      const use = { artifactId: id, resolvedBy: how, dataset: ref };
      run.uses.push(use);
      used.add(id);
      noteUse(use);
    }
    resolved.push({ ...ref, id, mention });
  }
  return resolved;
}

/**
 * For each dataset a run of the chunk may resolve as its newest version, enough of its newest stored
 * versions (by recording instant, then id) to skip the ones the run itself produces: one statement,
 * the datasets bound as one JSON list (an event may name 100,000).
 */
async function newestVersions(tx: DbTx, provider: DatabaseProvider, runs: readonly RunPlan[], factsOf: Map<string, StoredRunFacts[]>): Promise<Map<string, { id: ArtifactId; version: string }[]>> {
  const limits = new Map<string, { d: DatasetName; limit: number }>();
  for (const run of runs) {
    const facts = [...(factsOf.get(run.runId) ?? []).map((f) => f.facts), ...run.events.map(({ event }) => event.facts)];
    const produced = new Map<string, number>();
    for (const o of facts.flatMap((f) => f.outputs)) produced.set(JSON.stringify([o.namespace, o.name]), (produced.get(JSON.stringify([o.namespace, o.name])) ?? 0) + 1);
    const resolvedBefore = new Set(run.uses.filter((u) => u.resolvedBy !== "VERSION_FACET").map((u) => JSON.stringify([u.dataset.namespace, u.dataset.name])));
    for (const mention of facts.flatMap((f) => f.inputs)) {
      const key = JSON.stringify([mention.namespace, mention.name]);
      // Resolved before (a stored use), or standing for a versioned mention: no newest version needed.
      if (mention.version !== null || resolvedBefore.has(key)) continue;
      limits.set(key, { d: mention, limit: Math.max(limits.get(key)?.limit ?? 0, (produced.get(key) ?? 0) + 1) });
    }
  }
  const result = new Map<string, { id: ArtifactId; version: string }[]>();
  if (limits.size === 0) return result;
  const wanted = JSON.stringify([...limits.values()].map(({ d, limit }) => [d.namespace, d.name, limit]));
  const item = (index: number) => jsonItem(provider, "j", index);
  const rows = await tx.$queryRawUnsafe<{ id: string; namespace: string; name: string; version: string }[]>(
    `SELECT id, namespace, name, version FROM (` +
      `SELECT a.id AS id, a."datasetNamespace" AS namespace, a."datasetName" AS name, a."datasetVersion" AS version, ${item(2)} AS "limit", ` +
      `ROW_NUMBER() OVER (PARTITION BY a."datasetNamespace", a."datasetName" ORDER BY a."createdAt" DESC, a.id DESC) AS n ` +
      `FROM ${jsonListRows(provider, provider === "sqlite" ? "?" : "$1")} j JOIN "Artifact" a ON a."datasetNamespace" = ${item(0)} AND a."datasetName" = ${item(1)} ` +
      `WHERE a."datasetVersion" IS NOT NULL) v WHERE n <= CAST("limit" AS INTEGER) ORDER BY n`,
    wanted,
  );
  for (const row of rows) {
    const key = JSON.stringify([row.namespace, row.name]);
    appendTo(result, key, { id: row.id as ArtifactId, version: row.version });
  }
  return result;
}

/** pins.inputVersions of an OpenLineage run: every dataset version it used so far, and whether the event pinned it. */
export function inputVersionsOf(uses: readonly { artifactId: string; resolvedBy: string; dataset: DatasetName & { version: string | null } }[]): unknown {
  if (uses.length === 0) return null;
  return uses
    .map((u) => ({ namespace: u.dataset.namespace, name: u.dataset.name, version: u.dataset.version, artifactId: u.artifactId, pinned: u.resolvedBy === "VERSION_FACET", resolvedBy: u.resolvedBy }))
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
 * The chunk's column lineage as column edges (one per reported transformation; a `dataset` entry's
 * target field is null: the whole output), and its schema facets as the columns of the versions they
 * describe, each recorded at its event's instant. Edges and columns already recorded are not repeated.
 * What the datasets' facets say about policy and subjects goes to the compliance room: their tags
 * (TagsDatasetFacet: of the version, or of one `field`) become policy tags with their source, the
 * per-column facets are kept for the columns they describe, and declared data subjects are settled
 * (checked against the suppression list, recorded) when the unit ends.
 */
async function recordColumns(tx: DbTx, events: readonly ParsedEvent[], runs: readonly RunPlan[], at: Date, newRuns: ReadonlySet<string>): Promise<void> {
  const edges: (ColumnEdgeDraft & { createdAt: Date })[] = [];
  const columns = new Map<string, DatasetColumnRecord>();
  const facets: ColumnFacetRow[] = [];
  const tags: ReportedTag[] = [];
  const subjects: SubjectDeclarationDraft[] = [];
  const details = (artifactId: ArtifactId, report: InputReport | OutputReport, event: RunEvent, runId: RunId, instant: Date) => {
    for (const f of report.columnFacets) facets.push({ artifactId, field: f.field, facet: f.facet, value: f.value, createdAt: instant });
    for (const t of report.tags) {
      // A tag whose value says it does not apply ("false", "no", "0", "") is no policy tag; nor is a key no clearance can name.
      if (!POLICY_TAG.test(t.key) || NOT_APPLYING.has(t.value.trim().toLowerCase())) continue;
      tags.push({ target: t.field === null ? { kind: "ARTIFACT", artifactId } : { kind: "COLUMN", artifactId, field: t.field }, tag: t.key, value: t.value, reportedSource: t.source, producer: event.producer, runId, at: instant });
    }
    for (const s of report.subjects) subjects.push({ artifactId, key: { hash: s.keyHash, legacy: s.legacy }, at: { pointer: s.pointer } });
  };
  const addColumns = (artifactId: ArtifactId, fields: { field: string; type: string | null; description: string | null }[]) =>
    fields.forEach((f, position) => {
      const key = `${artifactId}\u0000${f.field}`;
      if (!columns.has(key)) columns.set(key, { artifactId, field: f.field, position, type: f.type, description: f.description });
    });
  const states = runs.flatMap((run) => run.states.map((state) => ({ run, state }))).sort((a, b) => a.state.index - b.state.index);
  // A wide column-lineage facet (tens of thousands of fields) is mapped to edges in turns.
  const slice = turnSlicer();
  for (const { run, state } of states) {
    const event = events[state.index] as RunEvent;
    // The state's inputs by (dataset, version mentioned) and by dataset (the first), and the versions this event names.
    const exactInput = new Map<string, ArtifactId>();
    const anyInput = new Map<string, ArtifactId>();
    for (const i of state.inputs) {
      const k = JSON.stringify([i.namespace, i.name, i.mention.version]);
      if (!exactInput.has(k)) exactInput.set(k, i.id);
      if (!anyInput.has(JSON.stringify([i.namespace, i.name]))) anyInput.set(JSON.stringify([i.namespace, i.name]), i.id);
    }
    const eventVersion = new Map<string, string | null>();
    for (const i of event.inputs) if (!eventVersion.has(JSON.stringify([i.namespace, i.name]))) eventVersion.set(JSON.stringify([i.namespace, i.name]), i.version);
    const inputOf = (d: DatasetName & { version: string | null }): ArtifactId => {
      const id = exactInput.get(JSON.stringify([d.namespace, d.name, d.version])) ?? anyInput.get(JSON.stringify([d.namespace, d.name]));
      if (!id) throw new Error(`column lineage source ${d.namespace}/${d.name} was not resolved as an input of ${run.runId}`);
      return id;
    };
    const versionInEvent = (d: DatasetName) => eventVersion.get(JSON.stringify([d.namespace, d.name])) ?? null;
    for (const output of event.outputs) {
      const targetId = datasetArtifactId(outputVersion(output, run.runId));
      if (output.fields) addColumns(targetId, output.fields);
      details(targetId, output, event, run.runId, state.instant);
      if (!output.columnLineage) continue;
      const dependencies = [
        ...output.columnLineage.fields.flatMap(({ field, inputs }) => inputs.map((d) => ({ d, targetField: field as string | null }))),
        ...output.columnLineage.dataset.map((d) => ({ d, targetField: null })),
      ];
      for (const { d, targetField } of dependencies) {
        await slice();
        const sourceId = inputOf({ namespace: d.namespace, name: d.name, version: versionInEvent(d) });
        for (const t of d.transformations) {
          edges.push({ sourceId, sourceField: d.field, targetId, targetField, runId: run.runId, type: t.type, subtype: t.subtype, description: t.description, masking: t.masking, createdAt: state.instant });
        }
      }
    }
    for (const input of event.inputs) {
      if (input.fields) addColumns(inputOf(input), input.fields);
      details(inputOf(input), input, event, run.runId, state.instant);
    }
  }
  await stageColumnEdges(tx, edges, at, { newRuns });
  await stageDatasetColumns(tx, [...columns.values()]);
  await stageColumnFacets(tx, facets);
  await stageReportedTags(tx, tags);
  noteUnitWrites(tx, { subjects });
}

/**
 * A run whose events declared a privacy cost (provgraph_privacyCost) is a release: the unit's
 * finisher debits the budgets of the protected datasets it reads (src/services/privacy), from every
 * input its events reported so far — those a later event adds are debited then.
 */
function noteReleases(tx: DbTx, runs: readonly RunPlan[], actor: RecordingActor): void {
  const releases = runs.flatMap((run) => {
    const last = run.states[run.states.length - 1];
    const cost = last.fold.privacyCost;
    if (!cost) return [];
    const outputs = new Set(last.outputs.map((o) => o.id as string));
    return [{ runId: run.runId as string, cost, inputIds: [...new Set(last.inputs.map((i) => i.id as string))].filter((id) => !outputs.has(id)), principal: actor, at: { pointer: `/run/facets/${PRIVACY_COST_FACET}` } }];
  });
  if (releases.length > 0) noteUnitWrites(tx, { privacyReleases: releases });
}

/**
 * A run whose job declared a purpose (provgraph_purpose) is checked, at the end of the unit, against
 * the tags on every input its events reported so far (src/services/compliance refuses it whole).
 */
function noteRunPurposes(tx: DbTx, runs: readonly RunPlan[], actor: RecordingActor): void {
  const declared = runs.flatMap((run) => {
    const last = run.states[run.states.length - 1];
    const outputs = new Set(last.outputs.map((o) => o.id as string));
    // Every purpose its events declared: a second one is refused as a change (PURPOSE_CHANGED), whatever order the events fold in.
    return last.fold.purposes.map((purpose) => ({ runId: run.runId as string, purpose, inputIds: [...new Set(last.inputs.map((i) => i.id as string))].filter((id) => !outputs.has(id)), principal: actor, at: { pointer: `/job/facets/${PURPOSE_FACET}/purpose` } }));
  });
  if (declared.length > 0) noteUnitWrites(tx, { runPurposes: declared });
}

/** Tag values that say the tag does not apply (dbt meta `contains_pii: false` arrives as value "false"). */
const NOT_APPLYING = new Set(["false", "no", "0", "", "none", "null"]);

const EVENT_COLUMNS = ["eventKey", "kind", "eventType", "eventTime", "runId", "jobNamespace", "jobName", "datasetNamespace", "datasetName", "producer", "body", "facts", "warnings", "receivedAt"];

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
    event.warnings.length > 0 ? JSON.stringify(event.warnings) : null,
    at,
  ];
}

/** OpenLineageRun: the OpenLineage-only part of a run's derived state (its job, event counts, failure) — the fold again. */
const RUN_STATE_COLUMNS = ["runId", "jobNamespace", "jobName", "events", "firstEventTime", "lastEventTime", "failureMessage", "failureLanguage", "failureStackTrace", "updatedAt"];

function runStateRow(run: RunPlan, at: Date): unknown[] {
  const { fold } = run.states[run.states.length - 1];
  return [run.runId, fold.job.namespace, fold.job.name, fold.events, fold.firstEventTime, fold.lastEventTime, fold.failure?.message ?? null, fold.failure?.programmingLanguage ?? null, fold.failure?.stackTrace ?? null, at];
}

function stubStateRow(stub: { runId: RunId; job: DatasetName }, at: Date): unknown[] {
  return [stub.runId, stub.job.namespace, stub.job.name, 0, null, null, null, null, null, at];
}

function artifactRecord(a: StagedArtifact, at: Date): ArtifactRecord {
  return { id: a.id as ArtifactId, artifactType: a.artifactType!, contentHash: a.contentHash, originalName: a.originalName, metadata: null, dataset: a.dataset ?? null, createdAt: at };
}

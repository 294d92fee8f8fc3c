import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import { type EventResult, OPENLINEAGE_LIMITS, type OpenLineageRunRecord, type StoredEventRecord, type StoredEventSelector } from "../openlineage";
import { DatabaseOutageError, InvalidArgumentError } from "../services/errors";
import type { RunId } from "../services/ids";
import { redactedFields, redactionsOf } from "../auth/pothos";
import { builder } from "./builder";
import { RedactionObject } from "./redactions";
import { resolveKeysetConnection } from "./connection-page";
import type { GraphQLContext } from "./context";
import { ExecutionRef, ExecutionStatusEnum } from "./execution";
import { runIdArg } from "./id-args";
import { runSubject } from "./policy-subjects";

/**
 * OpenLineage on the GraphQL side: the ingestOpenLineageEvents mutation (the same ingestion as
 * POST /api/v1/lineage), the stored events (openLineageEvents), and the OpenLineage state of a
 * run's execution (Execution.openLineage, Execution.failure).
 */

const EventStatusEnum = builder.enumType("OpenLineageEventStatus", {
  description: "What became of an ingested event.",
  values: {
    STORED: { description: "Stored, and recorded into its run's execution." },
    DUPLICATE: { description: "The same event was stored before: nothing changed." },
    REFUSED: { description: "Not stored; `error` says why. Nothing of it was written." },
  },
});

const EventKindEnum = builder.enumType("OpenLineageEventKind", {
  description: "The kind of an OpenLineage event: the one its schemaURL names, else what its shape says (a `run` or an `eventType`: RUN; a `dataset` without a `job`: DATASET; otherwise JOB).",
  values: { RUN: { description: "A RunEvent." }, JOB: { description: "A JobEvent." }, DATASET: { description: "A DatasetEvent." } },
});

const EventErrorObject = builder.objectRef<NonNullable<EventResult["error"]>>("OpenLineageEventError").implement({
  description: "Why an event was refused.",
  fields: (t) => ({
    code: t.exposeString("code", { description: "INVALID_EVENT, EVENT_TOO_LARGE, JSON_TOO_DEEP, OPERATION_DECLARATION, … (docs/errors.md)." }),
    message: t.exposeString("message", { description: "What is wrong, in words." }),
    pointer: t.exposeString("pointer", { nullable: true, description: "The JSON pointer (RFC 6901) of the offending place in the event; \"\" = the event itself." }),
    reason: t.exposeString("reason", { nullable: true, description: "What is wrong at `pointer`." }),
  }),
});

const EventWarningObject = builder.objectRef<EventResult["warnings"][number]>("OpenLineageEventWarning").implement({
  description: "Something an accepted event holds that the OpenLineage schema's letter refuses: kept as sent, noted here.",
  fields: (t) => ({
    code: t.exposeString("code", { description: "FORMAT: a value that does not match its `format` (a URI, a date-time, a UUID where provgraph does not read it)." }),
    pointer: t.exposeString("pointer", { description: "The JSON pointer (RFC 6901) of the value in the event." }),
    reason: t.exposeString("reason", { description: "What the schema expects there, e.g. `must match format \"uri\"`." }),
  }),
});

const EventResultObject = builder.objectRef<EventResult>("OpenLineageEventResult").implement({
  description: "What became of one event of the call.",
  fields: (t) => ({
    index: t.exposeInt("index", { description: "The event's position in `events`." }),
    status: t.field({ type: EventStatusEnum, description: "Stored, a duplicate, or refused.", resolve: (r) => r.status }),
    kind: t.field({ type: EventKindEnum, nullable: true, description: "The event's kind; null when it was refused before its kind was read.", resolve: (r) => r.kind }),
    runId: t.id({ nullable: true, description: "The run's execution id (run_ + the event's runId), for RunEvents.", resolve: (r) => r.runId }),
    execution: t.field({ type: ExecutionRef, nullable: true, description: "The run's execution once the event is recorded.", resolve: (r) => (r.status === "REFUSED" ? null : r.runId) }),
    executionStatus: t.field({
      type: ExecutionStatusEnum,
      nullable: true,
      description: "For a RunEvent stored or a duplicate: the run's execution status once the event is recorded; null for other kinds and for refused events.",
      resolve: (r) => r.executionStatus,
    }),
    error: t.field({ type: EventErrorObject, nullable: true, description: "Why it was refused; null unless REFUSED.", resolve: (r) => (r.error ? r.error : null) }),
    warnings: t.field({ type: [EventWarningObject], description: "What the event holds that the schema's letter refuses and provgraph accepted (stored with it); empty when refused.", resolve: (r) => r.warnings }),
  }),
});

const IngestPayload = builder.objectRef<EventResult[]>("IngestOpenLineageEventsPayload").implement({
  description: "What ingestOpenLineageEvents did: a result per event, and how many were stored, duplicates or refused.",
  fields: (t) => ({
    stored: t.int({ description: "Events stored now (STORED).", resolve: (results) => results.filter((r) => r.status === "STORED").length }),
    duplicates: t.int({ description: "Events stored before, left as they were (DUPLICATE).", resolve: (results) => results.filter((r) => r.status === "DUPLICATE").length }),
    refused: t.int({ description: "Events refused, nothing of them written (REFUSED).", resolve: (results) => results.filter((r) => r.status === "REFUSED").length }),
    results: t.field({ type: [EventResultObject], description: "One per event, in the order given.", resolve: (results) => results }),
  }),
});

builder.mutationField("ingestOpenLineageEvents", (t) =>
  t.field({
    type: IngestPayload,
    authScopes: { write: true },
    description:
      `OpenLineage events (RunEvent, JobEvent, DatasetEvent; spec 2-0-x), as POST /api/v1/lineage takes them: each is validated against the official schema and recorded atomically, ` +
      `independently of the others (one refused event does not stop the rest). At most ${OPENLINEAGE_LIMITS.maxMutationEvents} events per call.`,
    args: {
      events: t.arg({
        type: ["JSON"],
        required: true,
        description: `The events, each a JSON object as POST /api/v1/lineage takes it; at most ${OPENLINEAGE_LIMITS.maxMutationEvents} (more is INVALID_ARGUMENT, nothing ingested). A refused event is a REFUSED result, not an error.`,
      }),
    },
    resolve: async (_root, { events }, ctx) => {
      if (events.length > OPENLINEAGE_LIMITS.maxMutationEvents) {
        throw new InvalidArgumentError("events", `at most ${OPENLINEAGE_LIMITS.maxMutationEvents} events per call, got ${events.length} (send more through POST /api/v1/lineage/batch)`);
      }
      const results = await ctx.openLineage.ingestor.ingest(
        events.map((event) => ({ event })),
        ctx.requestId,
        { name: ctx.principal.name, tokenId: ctx.principal.tokenId },
      );
      // The request as a whole answers 503 + Retry-After; resending it is safe (events stored before the outage come back DUPLICATE).
      if (results.some((r) => r.error?.code === "DATABASE_UNAVAILABLE")) throw new DatabaseOutageError();
      return results;
    },
  }),
);

const StoredEventObject = builder.objectRef<StoredEventRecord>("OpenLineageEvent").implement({
  description: "An OpenLineage event as it was sent (stored once, however often delivered).",
  fields: (t) => ({
    eventKey: t.exposeString("eventKey", { description: "sha256 of the event's canonical JSON: its identity." }),
    kind: t.field({ type: EventKindEnum, description: "The event's kind.", resolve: (e) => e.kind }),
    eventType: t.exposeString("eventType", { nullable: true, description: "As sent (RunEvents)." }),
    eventTime: t.expose("eventTime", { type: "DateTime", description: "The event's eventTime, read as UTC when it carried no zone." }),
    receivedAt: t.expose("receivedAt", { type: "DateTime", description: "When provgraph stored it (its first delivery)." }),
    producer: t.exposeString("producer", { description: "The event's `producer`: the URI of what sent it, as sent." }),
    runId: t.id({ nullable: true, description: "A RunEvent's run, as its execution id (run_ + the event's runId); null for JobEvents and DatasetEvents.", resolve: (e) => e.runId }),
    event: t.expose("event", {
      type: "JSON",
      nullable: true,
      // Its facets may carry what policy tags protect (descriptions, samples): guarded by the tags of its run and of every dataset it names.
      redactBy: (e) => eventSubject(e),
      description:
        "The event exactly as it was sent (data-subject keys replaced by their keyed hashes). Null without the clearance for each policy tag held by its run's artifacts or by any version of a dataset it names (see `redacted`).",
    }),
    redacted: t.stringList({ description: "The fields of this event redacted for you (event).", resolve: (e, args, ctx) => redactedFields("OpenLineageEvent")(e, args, ctx) }),
    warnings: t.field({ type: [EventWarningObject], description: "What the event holds that the schema's letter refuses and provgraph accepted: format violations, noted when it was received.", resolve: (e) => e.warnings }),
    redactions: t.field({ type: [RedactionObject], description: "What `redacted` lists, each field with why: the tags that withhold it and, for each, the clearance or the purpose you lack.", resolve: (e, args, ctx) => redactionsOf("OpenLineageEvent")(e, args, ctx) }),
  }),
});

/** Every dataset an event names (inputs, outputs, a DatasetEvent's dataset) and its run. */
function eventSubject(e: StoredEventRecord): object {
  const body = (e.event ?? {}) as { inputs?: unknown; outputs?: unknown; dataset?: unknown };
  const named = [...(Array.isArray(body.inputs) ? body.inputs : []), ...(Array.isArray(body.outputs) ? body.outputs : []), ...(body.dataset ? [body.dataset] : [])] as { namespace?: unknown; name?: unknown }[];
  const datasets = named.filter((d) => typeof d?.namespace === "string" && typeof d?.name === "string").map((d) => ({ kind: "DATASET", namespace: d.namespace as string, name: d.name as string }));
  return { kind: "ANY", of: [...(e.runId ? [{ kind: "RUN", runId: e.runId }] : []), ...datasets] };
}

export const NameInput = builder.inputType("OpenLineageNameInput", {
  description: "An OpenLineage job or dataset: namespace and name.",
  fields: (t) => ({
    namespace: t.string({ required: true, description: "The namespace, exactly as the events carry it." }),
    name: t.string({ required: true, description: "The name within the namespace, exactly as the events carry it." }),
  }),
});

builder.queryField("openLineageEvents", (t) =>
  t.connection({
    type: StoredEventObject,
    description: "The stored events of one run (runId: run_… or the OpenLineage UUID), one job or one dataset — exactly one of the three — in the order they were stored.",
    args: {
      runId: t.arg.id({ description: "A run's events: run_… or the bare OpenLineage run UUID (anything else is INVALID_ID)." }),
      job: t.arg({ type: NameInput, description: "A job's events: its RunEvents and JobEvents." }),
      dataset: t.arg({ type: NameInput, description: "A dataset's DatasetEvents (RunEvents naming it are listed under their run and job)." }),
    },
    resolve: (_root, args, ctx) => {
      const given = [args.runId != null, args.job != null, args.dataset != null].filter(Boolean).length;
      if (given !== 1) throw new InvalidArgumentError(args.runId != null ? "runId" : args.job != null ? "job" : "runId", "give exactly one of runId, job and dataset");
      const selector: StoredEventSelector = args.runId != null ? { runId: runIdArg("runId", args.runId) } : args.job ? { job: args.job } : { dataset: args.dataset! };
      return resolveKeysetConnection<StoredEventRecord, number>(
        args,
        { connection: "openLineageEvents", keyOf: (e) => String(e.id), parseKey: (k) => (/^\d+$/.test(k) ? Number(k) : undefined) },
        (page) => ctx.openLineage.reader.events(selector, page),
      );
    },
  }),
);

const runLoader = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, OpenLineageRunRecord | null>((runIds) => ctx.openLineage.reader.runs(runIds)));

const FailureObject = builder.objectRef<NonNullable<OpenLineageRunRecord["failure"]>>("ExecutionFailure").implement({
  description: "Why an execution failed, as its producer reported it (OpenLineage errorMessage facet).",
  fields: (t) => ({
    message: t.exposeString("message", { description: "The error message, as reported." }),
    programmingLanguage: t.exposeString("programmingLanguage", { nullable: true, description: "The programming language of the code that failed, as reported; null when not reported." }),
    stackTrace: t.exposeString("stackTrace", { nullable: true, description: "The stack trace, as reported; null when not reported." }),
  }),
});

export const JobObject = builder.objectRef<{ namespace: string; name: string }>("OpenLineageJob").implement({
  description: "An OpenLineage job: namespace and name.",
  fields: (t) => ({
    namespace: t.exposeString("namespace", { description: "The job's namespace, as its events carry it." }),
    name: t.exposeString("name", { description: "The job's name within its namespace, as its events carry it." }),
  }),
});

const OpenLineageRunObject = builder.objectRef<OpenLineageRunRecord>("OpenLineageRun").implement({
  description: "The OpenLineage side of an execution recorded from OpenLineage events.",
  fields: (t) => ({
    job: t.field({ type: JobObject, description: "The job it is a run of.", resolve: (run) => run.job }),
    eventCount: t.int({ description: "Events stored for the run (0: known only as another run's parent).", resolve: (run) => run.events }),
    firstEventTime: t.expose("firstEventTime", { type: "DateTime", nullable: true, description: "The earliest eventTime of its stored events; null when it has none." }),
    lastEventTime: t.expose("lastEventTime", { type: "DateTime", nullable: true, description: "The latest eventTime of its stored events; null when it has none." }),
  }),
});

builder.objectFields(ExecutionRef, (t) => ({
  openLineage: t.field({
    type: OpenLineageRunObject,
    nullable: true,
    description: "For an execution recorded from OpenLineage events: its job and events (null otherwise).",
    resolve: (execution, _args, ctx) => runLoader(ctx).load(execution.runId),
  }),
  failure: t.field({
    type: FailureObject,
    nullable: true,
    // The error message and stack trace quote the failing statement and its data: guarded as the run's params are.
    redactBy: (execution) => runSubject(execution),
    description:
      "Why it failed (FAILED or ABORTED), as its producer reported it; null when nothing was reported, or without the clearance for each policy tag held by what the run used or produced (see `redacted`).",
    resolve: async (execution, _args, ctx) => (await runLoader(ctx).load(execution.runId))?.failure ?? null,
  }),
}));

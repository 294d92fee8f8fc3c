import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import { builder } from "./builder";
import { RedactionObject } from "./redactions";
import { loadForArgument, loadOrNotFound, NodeInterface, registerNodeLoader } from "./node";
import type { ExecutionFilter, ExecutionOrder, ExecutionPosition } from "../services/execution-reader";
import { isIdOfKind, type RunId } from "../services/ids";
import { EXECUTION_STATUSES, type ExecutionLinkRecord, type ExecutionRecord, type LinkDirection, type ReplayPins } from "../services/records";
import type { GraphQLContext } from "./context";
import { ArtifactRef } from "./artifact";
import { MAX_COUNTED_LISTED } from "../services/pagination";
import { counted, resolveKeysetConnection, totalCount } from "./connection-page";
import { runIdArg, specIdArg } from "./id-args";
import { OperationRef } from "./operation";
import { listInTurns } from "./list-in-turns";
import { runSubject } from "./policy-subjects";
import { redactedFields, redactionsOf } from "../auth/pothos";

export const ExecutionStatusEnum = builder.enumType("ExecutionStatus", {
  description:
    "Where an execution stands. A recorded execution keeps the status it was recorded with; an OpenLineage run's follows its events (the terminal event with the latest eventTime decides).",
  values: {
    STARTED: { description: "Started, not finished (OpenLineage: no RUNNING or terminal event yet)." },
    RUNNING: { description: "Running, not finished (OpenLineage: a RUNNING event and no terminal one)." },
    COMPLETED: { description: "Finished successfully (OpenLineage: COMPLETE). The default when recording." },
    FAILED: { description: "Finished with a failure (OpenLineage: FAIL); `failure` says why when reported." },
    ABORTED: { description: "Stopped before it finished (OpenLineage: ABORT)." },
  } satisfies Record<(typeof EXECUTION_STATUSES)[number], { description: string }>,
});

export const ReplayPinsObject = builder.objectRef<ReplayPins>("ReplayPins").implement({
  description: "What a replay must pin to reproduce this execution exactly.",
  fields: (t) => ({
    inputVersions: t.expose("inputVersions", {
      type: "JSON",
      nullable: true,
      description: "The versions of what it read, as reported (for an OpenLineage run: each dataset version it used, with `pinned` and `resolvedBy`); null when none were reported.",
    }),
    codeVersion: t.exposeString("codeVersion", { nullable: true, description: "e.g. the git commit of the code that ran." }),
    imageDigest: t.exposeString("imageDigest", { nullable: true, description: "The digest of the container image it ran in (e.g. sha256:…), as reported; null when not reported." }),
    deterministic: t.exposeBoolean("deterministic", { nullable: true, description: "Whether the same inputs give the same outputs, as reported; null when not reported (evidence packages count that as not provable)." }),
  }),
});

const ExecutionArtifactLink = builder.objectRef<ExecutionLinkRecord>("ExecutionArtifactLink").implement({
  description: "An artifact an execution used or produced, in the role it played.",
  fields: (t) => ({
    role: t.exposeString("role", { description: "The role it played: one the operation declares (`input` or `output` for an OpenLineage run), or `$config` for an artifact its params reference." }),
    position: t.exposeInt("position", { description: "Index of the artifact within its role, as reported." }),
    artifact: t.field({ type: ArtifactRef, description: "The artifact used or produced.", resolve: (link) => link.artifactId }),
  }),
});

// One loader per request and direction (one statement however many executions a query reaches);
// the recording mutation primes them with what it just wrote.
const consumedLinks = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, ExecutionLinkRecord[]>((runIds) => ctx.services.executions.links(runIds, "CONSUMED")));
const producedLinks = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, ExecutionLinkRecord[]>((runIds) => ctx.services.executions.links(runIds, "PRODUCED")));

export function executionLinks(ctx: GraphQLContext, direction: LinkDirection): DataLoader<RunId, ExecutionLinkRecord[]> {
  return direction === "CONSUMED" ? consumedLinks(ctx) : producedLinks(ctx);
}

export const ExecutionRef = builder.loadableObjectRef<ExecutionRecord, string>("Execution", {
  load: (ids: string[], ctx) => loadOrNotFound("execution", (keys) => ctx.services.executions.byRunIds(keys as RunId[]))(ids),
});

registerNodeLoader("Execution", (context) => ExecutionRef.getDataloader(context));

ExecutionRef.implement({
  interfaces: [NodeInterface],
  description: "One attempt of an operation [prov:Activity]. Its id is its runId.",
  fields: (t) => ({
    runId: t.exposeID("runId", { description: "Unique per attempt: run_ + a UUIDv7 (time-ordered) for executions provgraph recorded, run_ + the producer's runId for OpenLineage runs." }),
    specId: t.exposeID("specId", { description: "Same request (operation, version, params, inputs) = same specId." }),
    operation: t.field({ type: OperationRef, description: "The operation it ran (an OpenLineage run: its job, as the operation versioned `openlineage:<namespace>`).", resolve: (execution) => execution.operationId }),
    status: t.expose("status", { type: ExecutionStatusEnum, description: "Its status now." }),
    params: t.expose("params", {
      type: "JSON",
      nullable: true,
      // What ran and how (an OpenLineage run's SQL among it) speaks of the data: guarded by the tags of what the run used or produced.
      redactBy: (execution) => runSubject(execution),
      description: "As reported (for an OpenLineage run: its SQL, source code and parameters facets). Null without the clearance for each policy tag held by what the run used or produced (see `redacted`).",
    }),
    agent: t.exposeString("agent", { nullable: true, description: "Who or what ran it [prov:wasAssociatedWith]." }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true, description: "When it started, as reported (an OpenLineage run: its earliest START event's eventTime); null when no start was reported." }),
    endedAt: t.expose("endedAt", {
      type: "DateTime",
      nullable: true,
      description: "When it ended, as reported (an OpenLineage run: the eventTime of the terminal event that decides its status); null while it runs or when no end was reported.",
    }),
    recordedAt: t.expose("recordedAt", { type: "DateTime", description: "When provgraph recorded it (an OpenLineage run: with its first event, or when a child first named it as its parent)." }),
    pins: t.expose("pins", { type: ReplayPinsObject, description: "What a replay must pin: input versions, code version, image digest, determinism." }),
    pipeline: t.exposeString("pipeline", { nullable: true, description: "The pipeline it ran in as a step; null when it reported none." }),
    step: t.exposeInt("step", { nullable: true, description: "Its step in `pipeline`, as reported; null when it reported none." }),
    parent: t.field({
      type: ExecutionRef,
      nullable: true,
      description: "The composite execution this one ran inside, if any.",
      resolve: (execution) => execution.parentRunId,
    }),
    inputs: t.field({
      type: [ExecutionArtifactLink],
      description: "Artifacts consumed [prov:used], by role.",
      resolve: async (execution, _args, ctx) => listInTurns(await executionLinks(ctx, "CONSUMED").load(execution.runId)),
    }),
    outputs: t.field({
      type: [ExecutionArtifactLink],
      description: "Artifacts produced [prov:wasGeneratedBy], by role.",
      resolve: async (execution, _args, ctx) => listInTurns(await executionLinks(ctx, "PRODUCED").load(execution.runId)),
    }),
    redacted: t.stringList({
      description: "The fields of this execution redacted for you (params, failure): what it used or produced holds a tag you have no clearance:<TAG> scope for, or one whose purposes your request does not state (see `redactions`).",
      resolve: (execution, args, ctx) => redactedFields("Execution")(execution, args, ctx),
    }),
    redactions: t.field({ type: [RedactionObject], description: "What `redacted` lists, each field with why: the tags that withhold it and, for each, the clearance or the purpose you lack.", resolve: (execution, args, ctx) => redactionsOf("Execution")(execution, args, ctx) }),
  }),
});


const ExecutionFilterInput = builder.inputType("ExecutionFilter", {
  description: "Which executions to list: every field given must match; none given, every execution.",
  fields: (t) => ({
    operation: t.string({ description: "Operation name (any version)." }),
    job: t.string({ description: "An OpenLineage job's name, or an operation's (any version): the same as `operation`." }),
    namespace: t.string({ description: "The OpenLineage namespace of the run's job." }),
    status: t.field({ type: ExecutionStatusEnum, description: "Its status now." }),
    specId: t.id({ description: "Attempts of this request (spec_…); a malformed one is INVALID_ID." }),
    pipeline: t.string({ description: "The pipeline it ran in (the exact name)." }),
    recordedAfter: t.field({ type: "DateTime", description: "Recorded at or after this instant." }),
    recordedBefore: t.field({ type: "DateTime", description: "Recorded before this instant." }),
    startedAfter: t.field({ type: "DateTime", description: "Started at or after this instant (executions that never reported a start are left out)." }),
    startedBefore: t.field({ type: "DateTime", description: "Started before this instant." }),
  }),
});

const ExecutionOrderEnum = builder.enumType("ExecutionOrder", {
  description: "The order executions are listed in.",
  values: {
    RECORDED_AT: { description: "By when provgraph recorded them (an OpenLineage run: its first event), newest first." },
    STARTED_AT: { description: "By when they started, newest first; those that never reported a start last." },
  },
});

/** An executions cursor's key: the runId (RECORDED_AT, as cursors always were), with the start the page saw (STARTED_AT). */
function executionCursor(order: ExecutionOrder) {
  if (order === "RECORDED_AT") return { connection: "executions", keyOf: (e: ExecutionRecord) => e.runId as string, parseKey: (k: string) => (isIdOfKind(k, "run") ? { runId: k as RunId } : undefined) };
  return {
    connection: "executions",
    keyOf: (e: ExecutionRecord) => `${e.runId}@${e.startedAt ? e.startedAt.toISOString() : "none"}`,
    parseKey: (k: string): ExecutionPosition | undefined => {
      const [runId, at, ...rest] = k.split("@");
      if (rest.length > 0 || !isIdOfKind(runId, "run")) return undefined;
      if (at === "none") return { runId: runId as RunId, startedAt: null };
      const startedAt = new Date(at);
      return Number.isNaN(startedAt.getTime()) || startedAt.toISOString() !== at ? undefined : { runId: runId as RunId, startedAt };
    },
  };
}

builder.queryFields((t) => ({
  execution: t.field({
    type: ExecutionRef,
    description: "One execution by its runId. Unknown runIds are a NOT_FOUND error.",
    args: { runId: t.arg.id({ required: true, description: "run_…, or the bare OpenLineage run UUID; anything else is INVALID_ID." }) },
    resolve: (_root, args, ctx) => loadForArgument("runId", ExecutionRef.getDataloader(ctx).load(runIdArg("runId", args.runId))),
  }),
  executions: t.connection({
    type: ExecutionRef,
    description:
      "Executions, newest first: by when provgraph recorded them (`orderBy: RECORDED_AT`, the default) or by when they started (`STARTED_AT`). A cursor is a place in one order (after that execution): a RECORDED_AT cursor is the one these executions always had. `first`/`last` may be at most 500.",
    args: {
      filter: t.arg({ type: ExecutionFilterInput, description: "Which executions to list; absent, every one." }),
      orderBy: t.arg({ type: ExecutionOrderEnum, defaultValue: "RECORDED_AT", description: "The order. A cursor handed out in one order is INVALID_CURSOR in the other." }),
    },
    resolve: async (_root, args, ctx) => {
      const f = args.filter;
      const filter: ExecutionFilter = {
        operation: f?.operation,
        job: f?.job,
        namespace: f?.namespace,
        status: f?.status,
        specId: f?.specId != null ? specIdArg("filter.specId", f.specId) : null,
        pipeline: f?.pipeline,
        recordedAfter: f?.recordedAfter,
        recordedBefore: f?.recordedBefore,
        startedAfter: f?.startedAfter,
        startedBefore: f?.startedBefore,
      };
      const order = args.orderBy ?? "RECORDED_AT";
      const page = await resolveKeysetConnection<ExecutionRecord, ExecutionPosition>(args, executionCursor(order), (p) => ctx.services.executions.list(filter, p, order));
      return counted(page, () => ctx.services.executions.count(filter, MAX_COUNTED_LISTED));
    },
  }, totalCount),
  executionsBySpec: t.field({
    type: [ExecutionRef],
    description: "Every attempt of one request, oldest first: the cache lookup.",
    args: { specId: t.arg.id({ required: true, description: "The request's specId (spec_…); a malformed one is INVALID_ID, an unknown one gives an empty list." }) },
    resolve: (_root, args, ctx) => ctx.services.executions.bySpec(specIdArg("specId", args.specId)),
  }),
}));

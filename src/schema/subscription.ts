import { contextCacheSymbol } from "@pothos/core";
import { InvalidArgumentError } from "../services/errors";
import type { FeedEvent, FeedItem, FeedSince, LineageAdded, RunRecorded, RunStatusChange } from "../services/feeds";
import type { ArtifactId } from "../services/ids";
import { ArtifactRef } from "./artifact";
import { builder } from "./builder";
import type { GraphQLContext } from "./context";
import { ExecutionRef, ExecutionStatusEnum } from "./execution";
import { artifactIdArg, runIdArg } from "./id-args";
import { LineageDirectionEnum, LineageEdgeRef } from "./lineage";

/**
 * Live feeds (services/feeds), over graphql-ws and GraphQL over SSE alike: each subscription
 * translates its arguments to a feed and each feed item to an event, nothing more.
 */

const FeedEventInterface = builder.interfaceRef<FeedEvent>("FeedEvent").implement({
  description: "Every feed event carries its place in the feed.",
  fields: (t) => ({
    sequence: t.field({
      type: "SafeInt",
      description: "Increases with commit order, the same on every instance. Pass the last one received as `since: { sequence }` to resume.",
      resolve: (event) => event.sequence,
    }),
    committedAt: t.field({ type: "DateTime", description: "When the event was committed (the time `since: { time }` compares with).", resolve: (event) => event.committedAt }),
  }),
});

const RunRecordedEventRef = builder.objectRef<RunRecorded>("RunRecordedEvent").implement({
  description: "A run was recorded (or ingested).",
  interfaces: [FeedEventInterface],
  fields: (t) => ({
    execution: t.field({ type: ExecutionRef, description: "The run, as it was recorded.", resolve: (event) => event.execution }),
  }),
});

const RunStatusChangedEventRef = builder.objectRef<RunStatusChange>("RunStatusChangedEvent").implement({
  description: "A run's status: the one it was recorded with (previousStatus null), then each change (e.g. OpenLineage START → RUNNING → COMPLETE).",
  interfaces: [FeedEventInterface],
  fields: (t) => ({
    runId: t.exposeID("runId", { description: "The run's id (run_…)." }),
    status: t.field({ type: ExecutionStatusEnum, description: "The run's status: the one it was recorded with, or the one it changed to.", resolve: (event) => event.status }),
    previousStatus: t.field({ type: ExecutionStatusEnum, nullable: true, description: "Null when the run was just recorded.", resolve: (event) => event.previousStatus }),
    execution: t.field({ type: ExecutionRef, description: "The run after the change.", resolve: (event) => event.execution }),
  }),
});

const LineageAddedEventRef = builder.objectRef<LineageAdded>("LineageAddedEvent").implement({
  description:
    "A run recorded edges inside the watched closure: for DOWNSTREAM, edges out of the artifact or one of its descendants (their targets are new descendants); for UPSTREAM, edges into the artifact or one of its ancestors.",
  interfaces: [FeedEventInterface],
  fields: (t) => ({
    artifactId: t.id({ description: "The watched artifact.", resolve: (event) => event.key.artifactId }),
    direction: t.field({ type: LineageDirectionEnum, description: "The direction watched, as subscribed.", resolve: (event) => event.key.direction }),
    run: t.field({ type: ExecutionRef, description: "The run that recorded the edges.", resolve: (event) => event.runId }),
    edges: t.field({
      type: [LineageEdgeRef],
      description: "The new edges inside the closure, in recording order.",
      resolve: (event) => event.edges.map((edge) => ({ edge: { id: edge.id, sourceId: edge.sourceId, targetId: edge.targetId, record: edge }, artifact: (id: ArtifactId) => id })),
    }),
    artifacts: t.field({
      type: [ArtifactRef],
      description: "The far ends of those edges, once each: the new descendants (DOWNSTREAM) or ancestors (UPSTREAM).",
      resolve: (event) => [...new Set(event.edges.map((edge) => (event.key.direction === "DOWNSTREAM" ? edge.targetId : edge.sourceId)))],
    }),
  }),
});

const RunFeedFilterInput = builder.inputType("RunFeedFilter", {
  description: "Every field given must match; none given: every run.",
  fields: (t) => ({
    operation: t.string({ description: "Operation name (any version)." }),
    pipeline: t.string({ description: "The pipeline the run is a step of (the exact name)." }),
    status: t.field({ type: ExecutionStatusEnum, description: "The status the run was recorded with." }),
    namespace: t.string({ description: "The dataset namespace (OpenLineage) of any artifact the run consumed or produced." }),
  }),
});

const FeedSinceInput = builder.inputType("FeedSince", {
  description:
    "Where a resuming subscriber left off; exactly one of the two. The events after it are replayed from the feed log (at most FEED_REPLAY_WINDOW sequences back), then the live feed follows, with no gap and no duplicate.",
  fields: (t) => ({
    sequence: t.field({ type: "SafeInt", description: "The last sequence received." }),
    time: t.field({ type: "DateTime", description: "Replay the events committed after this instant (by the log's clock; prefer sequence)." }),
  }),
});

function sinceArg(since: { sequence?: number | null; time?: Date | null } | null | undefined): FeedSince | null {
  if (!since) return null;
  const given = (since.sequence != null ? 1 : 0) + (since.time != null ? 1 : 0);
  if (given !== 1) throw new InvalidArgumentError("since", "give exactly one of sequence or time");
  return since.sequence != null ? { sequence: since.sequence } : { time: since.time as Date };
}

/**
 * An item of a feed as the subscription field's value: an event, or the error that ends the feed
 * (a field error on the last result, with its code). Each event runs like a request of its own:
 * the batch loaders start empty, so a long subscription keeps no cache of what it has sent.
 */
function eventOf<T>(item: FeedItem<T>, ctx: GraphQLContext): T {
  if ("error" in item) throw item.error;
  (ctx as unknown as Record<symbol, unknown>)[contextCacheSymbol] = {};
  return item.event;
}

builder.subscriptionType({ description: "Live feeds over graphql-ws (or server-sent events), each needing the `read` scope: what is recorded, as it commits, resumable from a sequence." });

builder.subscriptionFields((t) => ({
  runRecorded: t.field({
    type: RunRecordedEventRef,
    description: "Every run recorded (or ingested) that matches the filter, in commit order, once each.",
    args: {
      filter: t.arg({ type: RunFeedFilterInput, description: "Which runs; absent, every run." }),
      since: t.arg({ type: FeedSinceInput, description: "Resume after this place in the feed; absent, the feed starts with what commits after subscribing." }),
    },
    subscribe: (_root, args, ctx) =>
      ctx.services.feeds.runRecorded(
        { operation: args.filter?.operation, pipeline: args.filter?.pipeline, status: args.filter?.status, namespace: args.filter?.namespace },
        sinceArg(args.since),
      ),
    resolve: (item: FeedItem<RunRecorded>, _args, ctx) => eventOf(item, ctx),
  }),
  runStatusChanged: t.field({
    type: RunStatusChangedEventRef,
    description: "One run's status: when it is recorded, then each change. The run need not be recorded yet.",
    args: {
      runId: t.arg.id({ required: true, description: "The run: run_… or the bare OpenLineage run UUID (anything else is INVALID_ID)." }),
      since: t.arg({ type: FeedSinceInput, description: "Resume after this place in the feed; absent, the feed starts with what commits after subscribing." }),
    },
    subscribe: (_root, args, ctx) => ctx.services.feeds.runStatusChanged(runIdArg("runId", args.runId), sinceArg(args.since)),
    resolve: (item: FeedItem<RunStatusChange>, _args, ctx) => eventOf(item, ctx),
  }),
  lineageAdded: t.field({
    type: LineageAddedEventRef,
    description:
      "Each run that records edges inside the artifact's closure (its new descendants with DOWNSTREAM, ancestors with UPSTREAM), evaluated with the closure SQL after each commit. The artifact need not be recorded yet.",
    args: {
      artifactId: t.arg.id({ required: true, description: "The artifact to watch (art_…; INVALID_ID when malformed)." }),
      direction: t.arg({ type: LineageDirectionEnum, defaultValue: "DOWNSTREAM", description: "DOWNSTREAM (the default) for its new descendants, UPSTREAM for its new ancestors." }),
      since: t.arg({ type: FeedSinceInput, description: "Resume after this place in the feed; absent, the feed starts with what commits after subscribing." }),
    },
    subscribe: (_root, args, ctx) => ctx.services.feeds.lineageAdded(artifactIdArg("artifactId", args.artifactId), args.direction ?? "DOWNSTREAM", sinceArg(args.since)),
    resolve: (item: FeedItem<LineageAdded>, _args, ctx) => eventOf(item, ctx),
  }),
}));

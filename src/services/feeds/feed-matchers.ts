import type { RunId } from "../ids";
import type { ProvenanceEdgeRecord } from "../lineage";
import type { ExecutionRecord, ExecutionStatus } from "../records";
import type { FeedEntry } from "./feed-entry";
import { type FeedFacts, type FeedNeeds, NO_NEEDS } from "./feed-facts";
import { type LineageKey, lineageKeyOf } from "./lineage-reach";

/** Every event a subscriber receives carries its place in the feed. */
export interface FeedEvent {
  sequence: number;
  /** The feed log's time for the event (what `since: { time }` compares with). */
  committedAt: Date;
}

/** A run was recorded (or ingested); `execution` is as it was recorded. */
export interface RunRecorded extends FeedEvent {
  execution: ExecutionRecord;
}

/** A run's status: its first one when it is recorded (previousStatus null), then each change. */
export interface RunStatusChange extends FeedEvent {
  runId: RunId;
  status: ExecutionStatus;
  previousStatus: ExecutionStatus | null;
  /** The run after the change. */
  execution: ExecutionRecord;
}

/** A run recorded edges inside the watched closure: their far ends are new descendants (or ancestors). */
export interface LineageAdded extends FeedEvent {
  key: LineageKey;
  runId: RunId;
  edges: readonly ProvenanceEdgeRecord[];
}

/**
 * Decides, for one subscriber, what an entry means to it (undefined: nothing). The answer is the
 * same object for every subscriber it means the same to (one per entry and view), so whatever
 * runs per event above the feed (the GraphQL execution of one document) can be shared by them.
 */
export interface FeedMatcher<T> {
  needs: FeedNeeds;
  match(entry: FeedEntry, facts: FeedFacts): { event: T } | undefined;
}

const views = new WeakMap<FeedEntry, Map<string, { event: unknown }>>();

/** The entry's one `view` object, built on first use (entries are dropped once delivered, and their views with them). */
function viewOf<T>(entry: FeedEntry, view: string, build: () => T): { event: T } {
  let byView = views.get(entry);
  if (!byView) views.set(entry, (byView = new Map()));
  let item = byView.get(view) as { event: T } | undefined;
  if (!item) byView.set(view, (item = { event: build() }));
  return item;
}

/** runRecorded's filter: every given field must match (none given: every run). */
export interface RunFilter {
  /** Operation name, any version. */
  operation?: string | null;
  pipeline?: string | null;
  /** The status the run was recorded with. */
  status?: ExecutionStatus | null;
  /** The dataset namespace of any artifact the run consumed or produced. */
  namespace?: string | null;
}

export function runRecordedMatcher(filter: RunFilter): FeedMatcher<RunRecorded> {
  const { operation, pipeline, status, namespace } = filter;
  return {
    needs: { ...NO_NEEDS, operationNames: operation != null, namespaces: namespace != null },
    match(entry, facts) {
      const { event } = entry;
      if (event.type !== "EXECUTION_RECORDED") return undefined;
      const { execution } = event;
      if (pipeline != null && execution.pipeline !== pipeline) return undefined;
      if (status != null && execution.status !== status) return undefined;
      if (operation != null && facts.operationName(execution.operationId) !== operation) return undefined;
      if (namespace != null && !facts.namespacesOf(execution.runId).has(namespace)) return undefined;
      return viewOf(entry, "runRecorded", () => ({ sequence: entry.sequence, committedAt: entry.committedAt, execution }));
    },
  };
}

export function runStatusMatcher(runId: RunId): FeedMatcher<RunStatusChange> {
  return {
    needs: NO_NEEDS,
    match(entry) {
      const { event } = entry;
      if (event.type === "LINEAGE_RECORDED" || event.execution.runId !== runId) return undefined;
      const previousStatus = event.type === "EXECUTION_STATUS_CHANGED" ? event.previousStatus : null;
      return viewOf(entry, "runStatusChanged", () => ({ sequence: entry.sequence, committedAt: entry.committedAt, runId, status: event.execution.status, previousStatus, execution: event.execution }));
    },
  };
}

export function lineageAddedMatcher(key: LineageKey): FeedMatcher<LineageAdded> {
  return {
    needs: { ...NO_NEEDS, lineage: new Map([[lineageKeyOf(key), key]]) },
    match(entry, facts) {
      const { event } = entry;
      if (event.type === "EXECUTION_STATUS_CHANGED") return undefined;
      const edges = facts.lineageEdges(key, entry.sequence);
      if (!edges?.length) return undefined;
      const runId = event.type === "LINEAGE_RECORDED" ? event.runId : event.execution.runId;
      return viewOf(entry, `lineageAdded ${lineageKeyOf(key)}`, () => ({ sequence: entry.sequence, committedAt: entry.committedAt, key, runId, edges }));
    },
  };
}

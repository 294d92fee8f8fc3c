import type { ProvenanceEdgeDraft } from "../../../plugins/types";
import type { RunId } from "../ids";
import type { RecordingEvent } from "../recording";
import type { ExecutionRecord, ExecutionStatus } from "../records";

/**
 * One committed recording event with its place in the feed: `sequence` is assigned by the feed
 * log inside the commit (the same on every instance), `committedAt` is the log's time for it.
 * Built from the event itself on the instance that committed it, or from the log's row elsewhere
 * (another instance, a replay): both carry the same content.
 */
export interface FeedEntry {
  sequence: number;
  committedAt: Date;
  event: RecordingEvent;
}

export type RecordingEventType = RecordingEvent["type"];

export function runIdOfEvent(event: RecordingEvent): RunId {
  return event.type === "LINEAGE_RECORDED" ? event.runId : event.execution.runId;
}

/** The lineage edges an event recorded (none for a status change). */
export function edgesOfEvent(event: RecordingEvent): readonly ProvenanceEdgeDraft[] {
  return event.type === "EXECUTION_STATUS_CHANGED" ? [] : event.edges;
}

/**
 * What the log stores of an event: everything but its type (a column of its own). The execution
 * is kept as it was at the event (a status change's later events must not rewrite an earlier one).
 */
export function payloadOf(event: RecordingEvent): string {
  const { type: _type, ...rest } = event;
  return JSON.stringify(rest);
}

export function eventFromPayload(type: string, payload: string): RecordingEvent {
  const stored = JSON.parse(payload) as Record<string, unknown>;
  switch (type) {
    case "EXECUTION_RECORDED":
      return { type, execution: executionFromJson(stored.execution), edges: stored.edges as ProvenanceEdgeDraft[] };
    case "EXECUTION_STATUS_CHANGED":
      return { type, execution: executionFromJson(stored.execution), previousStatus: stored.previousStatus as ExecutionStatus };
    case "LINEAGE_RECORDED":
      return { type, runId: stored.runId as RunId, edges: stored.edges as ProvenanceEdgeDraft[] };
    default:
      throw new Error(`feed log: unknown event type '${type}'`);
  }
}

const dateOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : new Date(value as string));

function executionFromJson(value: unknown): ExecutionRecord {
  const record = value as ExecutionRecord & { startedAt: string | null; endedAt: string | null; recordedAt: string };
  return { ...record, startedAt: dateOrNull(record.startedAt), endedAt: dateOrNull(record.endedAt), recordedAt: new Date(record.recordedAt) };
}

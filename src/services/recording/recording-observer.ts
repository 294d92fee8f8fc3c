/**
 * Told the outcome of every recording request (recordExecution, each item of a batch, a composite
 * run), after its unit committed or was refused: what the operator's counters count. An observer
 * only counts; it never throws into a recording and cannot change its outcome.
 */
export interface RecordingObserver {
  /** `outcome`: RECORDED, REPLAYED (an idempotency key's earlier answer), or the refusal's code (LINEAGE_COMPLETENESS, NOT_FOUND, …). */
  recording(kind: RecordingKind, outcome: string): void;
}

export type RecordingKind = "execution" | "composite";

/** The outcome of a settled recording, as an observer is told it. */
export function recordingOutcomeOf(result: PromiseSettledResult<unknown>): string {
  // a replayed answer names the run it replays (ReplayedExecution, ReplayedComposite)
  if (result.status === "fulfilled") return (result.value as { replayOf?: unknown } | null)?.replayOf ? "REPLAYED" : "RECORDED";
  const code = (result.reason as { code?: unknown })?.code;
  return typeof code === "string" && /^[A-Z_]{1,64}$/.test(code) ? code : "INTERNAL_SERVER_ERROR";
}

/** Tells the observer (if any) how `recording` ended, and hands its outcome on unchanged. */
export async function observeRecording<T>(observer: RecordingObserver | undefined, kind: RecordingKind, recording: Promise<T>): Promise<T> {
  if (!observer) return recording;
  const [settled] = await Promise.allSettled([recording]);
  try {
    observer.recording(kind, recordingOutcomeOf(settled));
  } catch {
    // counting must never cost a recording its answer
  }
  if (settled.status === "rejected") throw settled.reason;
  return settled.value;
}

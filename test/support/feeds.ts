import type { ProvenanceEdgeDraft } from "../../plugins/types";
import { newRunId, operationIdFor, type RunId, type SpecId } from "../../src/services/ids";
import type { RecordingEvent } from "../../src/services/recording";
import type { ExecutionRecord, ExecutionStatus } from "../../src/services/records";

/** Reads a feed (any async iterator) in steps, keeping a pending read across steps. */
export class FeedReader<T> {
  private pending: Promise<IteratorResult<T>> | undefined;
  private ended = false;

  constructor(private readonly iterator: AsyncIterator<T>) {}

  /** Starts a read and leaves its result for the next take (a transport reads at once: that attaches a live subscriber). */
  start(): this {
    this.pending ??= this.iterator.next();
    return this;
  }

  /** The next `n` items; fails when they do not all come within `timeoutMs`. */
  async take(n: number, timeoutMs = 10_000): Promise<T[]> {
    const items: T[] = [];
    const deadline = Date.now() + timeoutMs;
    while (items.length < n) {
      const next = await this.nextWithin(deadline - Date.now());
      if (next === "timeout") throw new Error(`expected ${n} items, got ${items.length} within ${timeoutMs} ms: ${JSON.stringify(items).slice(0, 2000)}`);
      if (next.done) throw new Error(`the feed ended after ${items.length} of ${n} items: ${JSON.stringify(items).slice(0, 2000)}`);
      items.push(next.value);
    }
    return items;
  }

  /** What arrives within `ms` (a test expecting nothing asserts it is empty). */
  async idle(ms: number): Promise<T[]> {
    const items: T[] = [];
    const deadline = Date.now() + ms;
    for (;;) {
      const next = await this.nextWithin(deadline - Date.now());
      if (next === "timeout" || next.done) return items;
      items.push(next.value);
    }
  }

  /** Whether the feed has ended (read to its end within `ms`). */
  async ends(ms = 5_000): Promise<boolean> {
    const next = await this.nextWithin(ms);
    return next !== "timeout" && next.done === true;
  }

  get done(): boolean {
    return this.ended;
  }

  async close(): Promise<void> {
    await this.iterator.return?.();
  }

  private async nextWithin(ms: number): Promise<IteratorResult<T> | "timeout"> {
    this.pending ??= this.iterator.next();
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([this.pending, new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), Math.max(0, ms))))]);
    clearTimeout(timer);
    if (result !== "timeout") {
      this.pending = undefined;
      if (result.done) this.ended = true;
    }
    return result;
  }
}

/** An execution record for events written straight to the commit path (no Execution row behind it). */
export function executionRecord(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return {
    runId: newRunId(),
    specId: `spec_${"0".repeat(40)}` as SpecId,
    operationId: operationIdFor("synthetic", "1"),
    status: "COMPLETED",
    params: { n: 1 },
    agent: null,
    startedAt: new Date("2026-01-02T03:04:05.006Z"),
    endedAt: null,
    recordedAt: new Date("2026-01-02T03:04:06.007Z"),
    pins: { inputVersions: null, codeVersion: "abc", imageDigest: null, deterministic: true },
    pipeline: null,
    step: null,
    parentRunId: null,
    ...overrides,
  };
}

export const recorded = (execution: ExecutionRecord, edges: ProvenanceEdgeDraft[] = []): RecordingEvent => ({ type: "EXECUTION_RECORDED", execution, edges });
export const statusChanged = (execution: ExecutionRecord, previousStatus: ExecutionStatus): RecordingEvent => ({ type: "EXECUTION_STATUS_CHANGED", execution, previousStatus });
export const lineageRecorded = (runId: RunId, edges: ProvenanceEdgeDraft[]): RecordingEvent => ({ type: "LINEAGE_RECORDED", runId, edges });

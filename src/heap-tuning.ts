import os from "node:os";
import v8 from "node:v8";
import type { GcMarking } from "./config";

/** GC_MARKING=auto marks stepwise on a machine of this many cores or fewer... */
export const STEPWISE_MAX_CORES = 2;

/**
 * ...when the event loop's heap may grow to this many MB or more (V8 sets the limit from the machine's
 * memory: 4.3 GB on this 24 GB one). Near its limit a heap is collected in full again and again, and
 * marked stepwise that leaves the event loop too little time between collections: V8 then stops the
 * process ("Ineffective mark-compacts near heap limit"). So did the slow-consumer feed test, whose
 * server runs with --max-old-space-size=80 and 64 MB live, where concurrent marking gets by. A limit
 * set this low says the heap is expected to run close to it: auto keeps V8's concurrent marking.
 */
export const STEPWISE_MIN_HEAP_LIMIT_MB = 1024;

/**
 * Marking stepwise, the semi-spaces of a heavy-read thread's young generation, MB (V8's own: 16 on
 * a 64-bit machine): what keeps the peak memory where concurrent marking has it.
 */
export const STEPWISE_THREAD_SEMI_SPACE_MB = 8;

export interface HeapTuning {
  /** The growth cap set, percent; 0: V8's own growth. */
  heapGrowthPercent: number;
  gcMarking: Exclude<GcMarking, "auto">;
}

/**
 * Sets V8's flags for the process's heaps: the event loop's and each heavy-read thread's (V8's flags
 * are the process's). Called before anything is allocated in earnest and before any thread starts.
 *
 * The growth cap (HEAP_GROWTH_PERCENT): V8 lets a heap grow to several times what it holds before a
 * full collection, so an answer's garbage (a 20,000-node evidence package built in a heavy-read
 * thread, a big recording on the event loop) can double the process before it is collected. V8
 * reads it at every collection.
 *
 * Marking (GC_MARKING): V8 marks a heap for a full collection on background threads while JavaScript
 * runs, then finishes on the heap's own thread. On two cores the event loop and a heavy-read thread
 * already hold both: those threads wait for a core, and the event loop's finishing step waits for
 * them. The hub row's requests that met a full collection took some 30 ms more (p99 42–48 ms);
 * marked stepwise on the event loop, a few (p99 26–29 ms), for the same server CPU per request. V8
 * reads the flag at every marking. Stepwise marking lets a heap grow further while it marks (the
 * closure row's peak RSS 271–294 → 280–315 MB), so the heavy-read threads' young generations are
 * halved: V8 reads that size when a heap is made, so it holds for the threads (started later) and
 * not for the event loop's heap, made before this runs (peak RSS 265–290 MB). docs/performance.md,
 * "What sets the hub row's p99".
 */
export function tuneHeaps(
  settings: { heapGrowthPercent: number; gcMarking: GcMarking },
  machine: { cores: number; heapLimitMb: number } = { cores: os.availableParallelism(), heapLimitMb: v8.getHeapStatistics().heap_size_limit / 2 ** 20 },
  setFlags: (flags: string) => void = v8.setFlagsFromString,
): HeapTuning {
  if (settings.heapGrowthPercent > 0) setFlags(`--heap-growing-percent=${settings.heapGrowthPercent}`);
  const stepwise =
    settings.gcMarking === "auto" ? machine.cores <= STEPWISE_MAX_CORES && machine.heapLimitMb >= STEPWISE_MIN_HEAP_LIMIT_MB : settings.gcMarking === "stepwise";
  if (stepwise) {
    setFlags("--no-concurrent-marking");
    setFlags(`--max-semi-space-size=${STEPWISE_THREAD_SEMI_SPACE_MB}`);
  }
  return { heapGrowthPercent: settings.heapGrowthPercent, gcMarking: stepwise ? "stepwise" : "concurrent" };
}

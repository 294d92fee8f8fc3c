import v8 from "node:v8";

/**
 * V8 lets a heap grow to several times what it holds before a full collection, so an answer's
 * garbage (a 20,000-node evidence package built in a heavy-read thread, a big recording on the event
 * loop) can double the process before it is collected; each thread's heap grows so on its own.
 * HEAP_GROWTH_PERCENT caps the growth for every heap of the process, threads started later included
 * (V8's flags are the process's). Set before anything is allocated in earnest.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

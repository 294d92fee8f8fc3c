// The heavy-reads room's one door: the pool of worker threads that runs heavy reads off the event
// loop (HeavyReads), the contract a room writes its heavy reads to (HeavyReadJob, HeavyReadContext;
// registered in registered-reads.ts), and the time budget's error.
export { HeavyReads, type HeavyReadsOptions, type HeavyReadStats, RequestBudget } from "./heavy-reads";
export type { HeavyReadContext, HeavyReadJob, HeavyReadJobs } from "./heavy-read-job";
export type { HeavyReadArgs, HeavyReadName, HeavyReadResult } from "./registered-reads";
export { QueryTimeoutError } from "./errors";

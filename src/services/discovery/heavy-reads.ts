import type { HeavyReadJobs } from "../heavy-reads";
import { type EntryRow, type LaneRest, laneRestRows } from "./search";

/**
 * The discovery room's heavy reads: on SQLite, the rest of a search lane whose first candidates held
 * too few of its entries (search.ts INLINE_CANDIDATES), read in a heavy-read thread so that a
 * statement over hundreds of thousands of candidates does not hold the event loop.
 */
export const discoveryReads = {
  searchLaneRest: (rest: LaneRest, { database }): Promise<EntryRow[]> => laneRestRows(database, rest),
} satisfies HeavyReadJobs;

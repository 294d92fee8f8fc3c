/**
 * One turn of the event loop, for plugins working through a big execution (tens of thousands of
 * outputs) in several passes: other requests, and reads on the other connection, run in between.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Drafts with more artifacts than this are worked through in turns. */
export const LARGE_DRAFT_ARTIFACTS = 1_000;

/**
 * PostgreSQL, a WORD, SUBSTRING or WORDS lane read by windows of a kind's newest entries (search.ts
 * pgLaneRows): after a window that held some of the lane's entries but too few, whether to read on by
 * a wider window or by the kind's index, which keeps no order and so reads every candidate it finds
 * to keep the newest few.
 */

/** The entries of a kind a lane reads by windows at least before it turns to the index. */
export const PG_LANE_WINDOWS_MAX = 16_000;

/**
 * How many entries a window reads for the cost of one candidate the index yields: a window reads its
 * entries in the primary key's order and checks each, about 0.5 µs apiece on the benchmark's store;
 * the index reads each candidate's row where it lies and rechecks it, about 2.5 µs (words) to 10 µs
 * (trigrams) apiece, then sorts them all. Four is the cheaper of the two, so that windows go on only
 * where they cost less than the index would.
 */
export const WINDOW_ENTRIES_PER_CANDIDATE = 4;

export interface WindowRead {
  /** The lane's entries of the kind found so far, and how many are wanted. */
  found: number;
  limit: number;
  /** The kind's entries the windows have read. */
  scanned: number;
  /** The last window: its size, and the ids of its first (null: not asked, the lane counting no terms) and last entries. */
  window: number;
  start: number | null;
  end: number;
  /** The end of the kind's id range (exclusive). */
  high: number;
  /**
   * The share of the kind's entries (in the windows' samples) holding each term the index looks up
   * (a WORDS lane's words, a SUBSTRING lane's fragments); empty where unknown (a WORD lane).
   */
  termShares: readonly number[];
}

/** How the kind is read next: a window of this many entries, or its index. */
export type NextRead = { window: number } | "index";

/**
 * A window sized to the density seen so far (twice what it predicts), while the windows' entries stay
 * under PG_LANE_WINDOWS_MAX or under what the index would cost: the candidates it would read, taken as
 * the kind's entries left after the windows times the share holding every looked-up term (the terms
 * taken as independent, which underestimates terms that go together, and so leans to the index, as
 * before). No entry found yet: the index (nothing tells how far the next one is).
 */
export function nextRead(read: WindowRead): NextRead {
  const { found, limit, scanned, window, start, end, high, termShares } = read;
  if (found <= 0) return "index";
  const predicted = Math.ceil(((limit - found) * scanned) / found) * 2;
  // The kind's entries after the window: its ids left, by how densely the window's entries lay among them.
  const left = start === null ? high - 1 - end : ((high - 1 - end) * window) / Math.max(window, end - start + 1);
  const candidates = termShares.length === 0 ? 0 : left * termShares.reduce((product, share) => product * Math.min(1, Math.max(0, share)), 1);
  const budget = Math.max(PG_LANE_WINDOWS_MAX, scanned + WINDOW_ENTRIES_PER_CANDIDATE * candidates);
  return scanned + predicted <= budget ? { window: predicted } : "index";
}

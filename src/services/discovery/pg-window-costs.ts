/**
 * PostgreSQL, a WORD, SUBSTRING or WORDS lane read by windows of a kind's newest entries (search.ts
 * pgLaneRows): after a window that held too few of the lane's entries, or none, whether to read on by
 * a wider window or by the kind's index, which keeps no order and so reads every candidate it finds
 * to keep the newest few.
 */

/** The entries of a kind a lane reads by windows at least before it turns to the index. */
export const PG_LANE_WINDOWS_MAX = 16_000;

/**
 * How the kind's index would find the lane's candidates: by the trigram index, one LIKE pattern (a
 * SUBSTRING lane's); by the word index, lexemes' starts (a WORDS lane's rare words); or by the trigram
 * index, a pattern per word ANDed (a WORDS lane none of whose words is rare: ./search-lanes.ts
 * wordsLookup).
 */
export type IndexLookup = "pattern" | "lexemes" | "word patterns";

/**
 * How many entries a window reads for the cost of one candidate the index yields. A window reads its
 * entries in the primary key's order and checks each, about 0.5 µs apiece on the benchmark's store.
 * The index reads each candidate's row where it lies, rechecks it and sorts them all: about 2.5 µs
 * apiece by one lookup, four entries' worth (under the ratio, five). By a pattern per word it costs
 * more: each pattern's trigrams' posting lists are read through (the words are common, or one would be
 * looked up alone), and each candidate is rechecked against every pattern. `archive inventory snapshot
 * 2025`: 3,776 candidates, 37.5 ms of posting lists and 43 ms of rows (11.5 µs a candidate's row, 21.7 µs
 * with its share of the posting lists), where the window that replaced it read 16,543 entries in 10–13 ms
 * (0.6–0.8 µs apiece, its end found 31,500 entries on among them); sixteen entries' worth, a candidate's
 * row alone, about half of all it costs.
 */
export const WINDOW_ENTRIES_PER_CANDIDATE: Readonly<Record<IndexLookup, number>> = { pattern: 4, lexemes: 4, "word patterns": 16 };

export interface WindowRead {
  /** The lane's entries of the kind found so far, and how many are wanted. */
  found: number;
  limit: number;
  /** The kind's entries the windows have read. */
  scanned: number;
  /** The last window: its size, and the ids of its first (null: not asked, by a WORD lane) and last entries. */
  window: number;
  start: number | null;
  end: number;
  /** The end of the kind's id range (exclusive). */
  high: number;
  /**
   * The share of the kind's entries the index would yield as candidates, as the windows estimate it
   * (candidateShare); null where they do not (a WORD lane: the index past the floor, as before).
   */
  candidateShare: number | null;
  /** How the index would find them. */
  lookup: IndexLookup;
}

/** How the kind is read next: a window of this many entries, or its index. */
export type NextRead = { window: number } | "index";

/** A window that found none is followed by one this many times what the windows read, where the index looks dear (nextRead). */
const PROBE_GROWTH = 8;

/**
 * A window sized to the density seen so far (twice what it predicts), while the windows' entries stay
 * under PG_LANE_WINDOWS_MAX or under what the index would cost: the candidates it would read, the kind's
 * entries left after the windows times their share, each worth WINDOW_ENTRIES_PER_CANDIDATE entries by
 * how it looks them up.
 *
 * No entry found yet, nothing tells how far the next one is. Where the index's candidates would cost at
 * least twice what the windows read and one more PROBE_GROWTH times as large would (`raw cust`: 7,500
 * artifacts hold both words, none of the newest 250), that window; else the index. The windows grow so
 * past PG_LANE_WINDOWS_MAX only where the sample (spread over the kind) holds the lane's words together
 * often: where a store's names follow time, a query for an older year finds none among the newest
 * entries and half the store by the index (`part 2024`, every artifact named 2024 a candidate: 2.7 s),
 * where windows reach the older names in 0.3 s.
 */
export function nextRead(read: WindowRead): NextRead {
  const { found, limit, scanned, window, start, end, high, candidateShare, lookup } = read;
  // The kind's entries after the window: its ids left, by how densely the window's entries lay among them.
  const left = start === null ? high - 1 - end : ((high - 1 - end) * window) / Math.max(window, end - start + 1);
  // The index's candidates: the entries left times their share.
  const candidates = candidateShare === null ? 0 : left * candidateShare;
  if (found <= 0) {
    // Weighed as one lookup's, the least: with none found, their share may be only the one more a sample of none is taken to hold.
    const probe = scanned * PROBE_GROWTH;
    const dear = WINDOW_ENTRIES_PER_CANDIDATE.pattern * candidates >= 2 * (scanned + probe);
    return dear ? { window: probe } : "index";
  }
  const predicted = Math.ceil(((limit - found) * scanned) / found) * 2;
  const budget = Math.max(PG_LANE_WINDOWS_MAX, scanned + WINDOW_ENTRIES_PER_CANDIDATE[lookup] * candidates);
  return scanned + predicted <= budget ? { window: predicted } : "index";
}

/**
 * The share of a kind's entries a lane's index would yield as candidates, as its windows tell it: at
 * least the lane's own entries among those read (each is a candidate). For a WORDS lane, the sampled
 * entries holding every word of more than one character (`joint`), which its index looks up unless a
 * rarer word is, taken one more (words that no sampled entry holds together may still go together
 * elsewhere: `raw cust`, none of the newest 250 artifacts, 7,500 of all); and no more than the entries
 * holding any one word (`each`: its holders and the sample they were counted in), since a rare word is
 * looked up (`orders v`: a word starting with `v` in no sampled column, the index cheap).
 */
export function candidateShare(found: number, scanned: number, words?: { joint: Holders; each: readonly Holders[] }): number {
  const own = scanned > 0 ? found / scanned : 0;
  if (!words || words.joint.sampled === 0) return own;
  const joint = (words.joint.held + 1) / (words.joint.sampled + 1);
  return Math.max(own, Math.min(joint, ...words.each.map(({ held, sampled }) => (sampled > 0 ? held / sampled : 1))));
}

/** How many entries of a sample held something, and the sample's size. */
export interface Holders {
  held: number;
  sampled: number;
}

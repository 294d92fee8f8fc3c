import { candidateShare, type IndexLookup, nextRead, PG_LANE_WINDOWS_MAX, type WindowRead, WINDOW_ENTRIES_PER_CANDIDATE } from "../../src/services/discovery/pg-window-costs";

/**
 * PostgreSQL search: after a window of a kind's newest entries that held too few of a lane's entries,
 * whether the lane reads on by a wider window or by the kind's index
 * (src/services/discovery/pg-window-costs.ts nextRead), and the index's candidates as the windows tell
 * them (candidateShare).
 */
describe("reading on after a window", () => {
  // A kind of 970,000 entries with dense ids (the benchmark's artifacts): windows read from its newest.
  const high = 2_000_000;
  const first = high - 970_000;
  const after = (found: number, share: number | null, scanned = 1_000, lookup: IndexLookup = "pattern"): WindowRead => ({
    found,
    limit: 64,
    scanned,
    window: 1_000,
    start: first + scanned - 1_000,
    end: first + scanned - 1,
    high,
    candidateShare: share,
    lookup,
  });

  test("a window sized at twice what the density seen predicts, while under the floor", () => {
    // 8 of 1,000: 56 more would take 7,000 entries; twice that.
    expect(nextRead(after(8, null))).toEqual({ window: 14_000 });
    expect(nextRead(after(8, 0.9))).toEqual({ window: 14_000 });
  });

  test("without an estimate of the candidates (a WORD lane), the index past the floor, and when none was found", () => {
    // 2 of 1,000: 62 more would take 31,000 entries, twice that 62,000.
    expect(nextRead(after(2, null))).toBe("index");
    expect(nextRead(after(0, null, 250))).toBe("index");
  });

  test("past the floor while the windows cost less than the index's candidates", () => {
    // `inventory a`: `inventory` in 6% of the kind, 60,000 candidates for the index, each worth four entries of a window.
    expect(nextRead(after(2, 0.062))).toEqual({ window: 62_000 });
    // 0.5%: 4,800 candidates, about 19,000 entries' worth: the index.
    expect(nextRead(after(2, 0.005))).toBe("index");
  });

  test("a candidate found by a pattern per word weighs more than one found by one lookup", () => {
    // `archive inventory snapshot 2025`: one of the newest 250 holds all four words, a share of 2 in 251 (one more than seen).
    const archive = { ...after(1, 2 / 251, 250), window: 250, start: first };
    // 7,700 candidates: 31,000 entries' worth by one lookup, under the 31,750 a window at that density would reach.
    expect(nextRead(archive)).toBe("index");
    expect(nextRead({ ...archive, lookup: "lexemes" })).toBe("index");
    // By a pattern per word (its words all common), 124,000 entries' worth: the window.
    expect(nextRead({ ...archive, lookup: "word patterns" })).toEqual({ window: 31_500 });
    // None found: the share is only a guess (one more than none in the sample), weighed as one lookup's whatever the lookup.
    const none = { ...after(0, 1 / 2_000, 250), window: 250, start: first };
    expect(nextRead({ ...none, lookup: "word patterns" })).toBe("index");
  });

  test("the entries left are those the ids left hold at the window's density (one sequence hands ids to every kind)", () => {
    const dense = after(2, 0.062);
    // The same window spread over ten times as many ids: a kind holding one id in ten, a tenth of the entries left.
    const sparse = { ...dense, start: dense.end - 9_999 };
    expect(nextRead(dense)).not.toBe("index");
    expect(nextRead(sparse)).toBe("index");
    // About 6,000 candidates left there, 24,000 entries' worth: a window of 23,600 more is still cheaper, one of 30,000 is not.
    expect(nextRead({ ...sparse, found: 5 })).toEqual({ window: 23_600 });
    expect(nextRead({ ...sparse, found: 4 })).toBe("index");
    // Not asked (a WORD lane): the ids left, as though dense.
    expect(nextRead({ ...sparse, start: null })).toEqual({ window: 62_000 });
  });

  test("none found: one window eight times what was read, where the index's candidates would cost twice that or more", () => {
    // `raw cust`: none of the newest 250 hold both words, so a share under 1 in 251: 3,900 candidates, 15,500 entries' worth.
    expect(nextRead(after(0, candidateShare(0, 250, { joint: { held: 0, sampled: 250 }, each: [{ held: 31, sampled: 250 }, { held: 16, sampled: 250 }] }), 250))).toEqual({ window: 2_000 });
    // After it, or past the floor, or where the windows say the candidates are few: the index.
    expect(nextRead(after(0, candidateShare(0, 2_250, { joint: { held: 0, sampled: 506 }, each: [] }), 2_250))).toBe("index");
    expect(nextRead(after(0, candidateShare(0, 1_000), 1_000))).toBe("index");
  });

  test("none found yet, the windows grow past the floor while the index's candidates cost more than twice theirs", () => {
    // `part 2024` where names follow time: half the kind's sample holds both words, the newest 20,250 entries none.
    expect(nextRead(after(0, 0.5, 20_250, "word patterns"))).toEqual({ window: 162_000 });
    // Not past half the index's cost: 394,000 candidates left, 1.6M entries' worth, and the next window would make 1.64M.
    expect(nextRead(after(0, 0.5, 182_250, "word patterns"))).toBe("index");
    // A share that makes the index cheaper: the index.
    expect(nextRead(after(0, 0.02, 20_250, "word patterns"))).toBe("index");
  });

  test("the window never reads past what the index would cost, and never under the floor", () => {
    for (const lookup of ["pattern", "lexemes", "word patterns"] as const) {
      for (const found of [0, 1, 2, 5, 20, 63]) {
        for (const share of [null, 0.001, 0.06, 0.25, 1]) {
          for (const scanned of [250, 1_000, 20_000, 200_000]) {
            const read = after(found, share, scanned, lookup);
            const next = nextRead(read);
            if (next === "index") continue;
            const candidates = (high - 1 - read.end) * (share ?? 0);
            expect(scanned + next.window).toBeLessThanOrEqual(Math.max(PG_LANE_WINDOWS_MAX, scanned + WINDOW_ENTRIES_PER_CANDIDATE[lookup] * candidates));
            expect(next.window).toBeGreaterThan(0);
          }
        }
      }
    }
  });
});

describe("the index's candidates as the windows tell them", () => {
  test("at least the lane's own entries among those read, each a candidate; none for a lane that counts no words", () => {
    expect(candidateShare(10, 1_000)).toBeCloseTo(0.01);
    expect(candidateShare(0, 250)).toBe(0);
  });

  test("a WORDS lane: the sampled entries holding every word its index looks up, where they are more", () => {
    // `inventory a`: `inventory` in 6% of the sample, the lane's own entries (both words) in under 1%; `a` is not looked up.
    const inventoryA = { joint: { held: 30, sampled: 506 }, each: [{ held: 30, sampled: 506 }, { held: 150, sampled: 506 }] };
    expect(candidateShare(15, 1_884, inventoryA)).toBeCloseTo(31 / 507);
    // `2024 2025`: each word in half the artifacts, together in one of 2,250 read: not the 25% that independent words would be.
    expect(candidateShare(1, 2_250, { joint: { held: 0, sampled: 506 }, each: [{ held: 250, sampled: 506 }, { held: 260, sampled: 506 }] })).toBeCloseTo(1 / 507);
    // `raw cust`: each word common, none of the sample holding both: under one in the sample, not none.
    expect(candidateShare(0, 250, { joint: { held: 0, sampled: 250 }, each: [{ held: 31, sampled: 250 }, { held: 16, sampled: 250 }] })).toBeCloseTo(1 / 251);
    // `orders v` among artifacts: `orders` in some, a word starting with `v` in none, which the index then looks up alone.
    expect(candidateShare(0, 250, { joint: { held: 20, sampled: 250 }, each: [{ held: 20, sampled: 250 }, { held: 0, sampled: 250 }] })).toBe(0);
    // Nothing sampled: the lane's own.
    expect(candidateShare(3, 1_000, { joint: { held: 0, sampled: 0 }, each: [] })).toBeCloseTo(0.003);
  });
});

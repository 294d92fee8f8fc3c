import { nextRead, PG_LANE_WINDOWS_MAX, type WindowRead, WINDOW_ENTRIES_PER_CANDIDATE } from "../../src/services/discovery/pg-window-costs";

/**
 * PostgreSQL search: after a window of a kind's newest entries that held some of a lane's entries but
 * too few, whether the lane reads on by a wider window or by the kind's index
 * (src/services/discovery/pg-window-costs.ts nextRead).
 */
describe("reading on after a window", () => {
  // A kind of 970,000 entries with dense ids (the benchmark's artifacts): a window of 1,000 read from its newest.
  const high = 2_000_000;
  const first = high - 970_000;
  const after = (found: number, termShares: number[], scanned = 1_000): WindowRead => ({ found, limit: 64, scanned, window: 1_000, start: first + scanned - 1_000, end: first + scanned - 1, high, termShares });

  test("none found: the index, whatever the windows would cost", () => {
    expect(nextRead(after(0, [0.06]))).toBe("index");
    expect(nextRead(after(0, []))).toBe("index");
  });

  test("a window sized at twice what the density seen predicts, while under the floor", () => {
    // 8 of 1,000: 56 more would take 7,000 entries; twice that.
    expect(nextRead(after(8, []))).toEqual({ window: 14_000 });
    expect(nextRead(after(8, [0.9]))).toEqual({ window: 14_000 });
  });

  test("without the terms' shares (a WORD lane), the index past the floor", () => {
    // 2 of 1,000: 62 more would take 31,000 entries, twice that 62,000.
    expect(nextRead(after(2, []))).toBe("index");
  });

  test("past the floor while the windows cost less than the index's candidates", () => {
    // `inventory a`: `inventory` in 6% of the kind, 60,000 candidates for the index, each worth four entries of a window.
    expect(nextRead(after(2, [0.062]))).toEqual({ window: 62_000 });
    // A term in 0.5%: 4,800 candidates, about 19,000 entries' worth: the index.
    expect(nextRead(after(2, [0.005]))).toBe("index");
    // Terms taken as independent: two in 6% each are 0.36% together.
    expect(nextRead(after(2, [0.06, 0.06]))).toBe("index");
  });

  test("the entries left are those the ids left hold at the window's density (one sequence hands ids to every kind)", () => {
    const dense = after(2, [0.062]);
    // The same window spread over ten times as many ids: a kind holding one id in ten, a tenth of the entries left.
    const sparse = { ...dense, start: dense.end - 9_999 };
    expect(nextRead(dense)).not.toBe("index");
    expect(nextRead(sparse)).toBe("index");
    // About 6,000 candidates left there, 24,000 entries' worth: a window predicted at 14,000 is still read.
    expect(nextRead({ ...sparse, found: 8 })).toEqual({ window: 14_000 });
    expect(nextRead({ ...sparse, found: 5 })).toEqual({ window: 23_600 });
    expect(nextRead({ ...sparse, found: 4 })).toBe("index");
  });

  test("the window never reads past what the index would cost, and never under the floor", () => {
    for (const found of [1, 2, 5, 20, 63]) {
      for (const shares of [[], [0.001], [0.06], [0.5, 0.5], [1]]) {
        for (const scanned of [1_000, 20_000, 200_000]) {
          const read = after(found, shares, scanned);
          const next = nextRead(read);
          if (next === "index") continue;
          const left = high - 1 - read.end;
          const candidates = shares.length === 0 ? 0 : left * shares.reduce((p, s) => p * s, 1);
          expect(scanned + next.window).toBeLessThanOrEqual(Math.max(PG_LANE_WINDOWS_MAX, scanned + WINDOW_ENTRIES_PER_CANDIDATE * candidates));
          expect(next.window).toBeGreaterThan(0);
        }
      }
    }
  });
});

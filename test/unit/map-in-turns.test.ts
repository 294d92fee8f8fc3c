import { STATEMENT_SLICE_MS } from "../../src/db/statement-turns";
import { mapInTurns } from "../../src/services/recording/yield";
import { turnsWhile } from "../support/event-loop-turns";

/**
 * A big write's O(n) steps (rows, search documents, keys for 20,000 artifacts) map their items in
 * turns: once the current task has run a slice, the loop turns before the next item, so waiting
 * requests are answered between slices rather than after the whole step.
 */
describe("mapInTurns", () => {
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  test("maps every item in order, with its index", async () => {
    expect(await mapInTurns(["a", "b", "c"], (item, i) => `${i}:${item}`)).toEqual(["0:a", "1:b", "2:c"]);
    expect(await mapInTurns(new Set([3, 1, 2]), (n) => n * 2)).toEqual([6, 2, 4]);
  });

  test("work of many slices takes turns between them (none in a plain map)", async () => {
    const items = Array.from({ length: 60 }, (_, i) => i);
    // 60 items of 2 ms: 120 ms of work, about eight slices of STATEMENT_SLICE_MS.
    const { turns, result } = await turnsWhile(() => mapInTurns(items, (n) => (busy(2), n)));
    expect(result).toEqual(items);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(120 / (STATEMENT_SLICE_MS + 2) / 2));
    const plain = await turnsWhile(async () => items.map((n) => (busy(2), n)));
    expect(plain.turns).toBe(0);
  });
});

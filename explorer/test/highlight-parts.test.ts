import { fitParts, highlightParts, type LabelPart } from "../src/components/highlight-parts";

/** A suggestion's label shortened to its box so that every match shows (the box cuts a label at its end). */
describe("a highlighted label fitted to its box", () => {
  const shown = (parts: readonly LabelPart[]) => parts.map((part) => (part.hit ? `[${part.text}]` : part.text)).join("");
  const rangesOf = (label: string, ...words: string[]) => words.map((word) => ({ start: label.indexOf(word), end: label.indexOf(word) + word.length }));

  test("the parts: matches and the text between, in order, whatever order the ranges come in; ranges past the end clamped", () => {
    expect(shown(highlightParts("raw/customer_orders.csv", rangesOf("raw/customer_orders.csv", "orders", "customer")))).toBe("raw/[customer]_[orders].csv");
    expect(shown(highlightParts("abc", [{ start: 1, end: 10 }]))).toBe("a[bc]");
    expect(shown(highlightParts("abc", []))).toBe("abc");
  });

  test("a label that fits, or whose matches show, is left whole", () => {
    const label = "warehouse.analytics.model_13.out_3";
    const parts = highlightParts(label, rangesOf(label, "out_3", "model_13"));
    expect(fitParts(parts, 60)).toEqual(parts);
    // Past the room only after its last match (plus a few characters): the box cuts the rest.
    const early = highlightParts(`orders${"x".repeat(80)}`, [{ start: 0, end: 6 }]);
    expect(fitParts(early, 20)).toEqual(early);
  });

  test("the text before the first match keeps its end, the text between two keeps its ends, the longest shortened first", () => {
    const label = "s3://analytics-prod/warehouse/analytics/model_13/partitions/2026/11/out_3.parquet";
    const parts = highlightParts(label, rangesOf(label, "model_13", "out_3"));
    const fitted = fitParts(parts, 48);
    expect(shown(fitted)).toBe("…analytics/[model_13]/partitions/2026/11/[out_3].parquet");
    expect(fitted.filter((part) => part.elided)).toHaveLength(1);
    // Tighter: the text between goes too, keeping its two ends.
    expect(shown(fitParts(parts, 30))).toBe("…ytics/[model_13]/par…/11/[out_3].parquet");
  });

  test("what is shown up to the last match fits the room where the plain text allows it, and no match is shortened", () => {
    const label = `${"segment/".repeat(12)}orders/${"part/".repeat(10)}2024-03-17/scores.csv`;
    const parts = highlightParts(label, rangesOf(label, "orders", "scores"));
    for (const room of [20, 30, 40, 60, 90]) {
      const fitted = fitParts(parts, room);
      expect(fitted.filter((part) => part.hit).map((part) => part.text)).toEqual(["orders", "scores"]);
      const lastHit = fitted.map((part) => part.hit).lastIndexOf(true);
      const upToLast = fitted.slice(0, lastHit + 1).reduce((sum, part) => sum + part.text.length, 0);
      // At the least: 6 characters kept before the first match, 8 between, an elision each.
      expect(upToLast + 4).toBeLessThanOrEqual(Math.max(room, 1 + 6 + 6 + 1 + 8 + 6 + 4));
    }
    // Characters outside the basic plane are never cut in half.
    const emoji = `${"🎉".repeat(30)}match`;
    const fitted = fitParts(highlightParts(emoji, rangesOf(emoji, "match")), 12);
    expect(shown(fitted)).toBe(`…${"🎉".repeat(6)}[match]`);
  });
});

import fs from "node:fs";
import path from "node:path";
import { renderPerformanceSummary, SUMMARY_MARKERS } from "../../bench/performance-summary";
import { blockIn, performanceIn, renderPerformance } from "../../bench/performance-table";

const ROOT = path.join(__dirname, "..", "..");
const results = () => JSON.parse(fs.readFileSync(path.join(ROOT, "bench", "results.json"), "utf8"));

/** The performance tables of docs/performance.md and the README are generated from bench/results.json, never typed by hand. */
describe("the performance tables", () => {
  test("docs/performance.md holds what npm run docs:performance renders from bench/results.json", () => {
    const page = fs.readFileSync(path.join(ROOT, "docs", "performance.md"), "utf8");
    expect(performanceIn(page)).toBe(renderPerformance(results()));
  });

  test("the README's summary is what npm run docs:performance renders from bench/results.json", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    expect(blockIn(readme, SUMMARY_MARKERS)).toBe(renderPerformanceSummary(results()));
  });

  test("the summary marks each figure ✓ only where it meets its own goal, and counts them", () => {
    const base = results();
    const summary = (search: unknown) => renderPerformanceSummary({ search } as never);
    const row = (text: string) => text.split("\n").find((line) => line.startsWith("| `search`"))!;
    const figures = (p99Ms: number, ratio: number) => ({ ...base.search, search: { ...base.search.search, p99Ms, ratio } });
    expect(row(summary(figures(12, 1.4)))).toContain("| p99 12 ms ✓, ×1.40 ✓ | not measured |");
    expect(row(summary(figures(25, 1.4)))).toContain("| p99 25 ms, ×1.40 ✓ | not measured |");
    expect(row(summary(figures(12, 1.6)))).toContain("| p99 12 ms ✓, ×1.60 | not measured |");
    // search's two figures, autocomplete's two and indexing's one, from the same result.
    const autocompleteMet = Number(base.search.autocomplete.p99Ms < 20) + Number(base.search.autocomplete.ratio <= 1.5) + Number(base.search.indexing.ratio <= 1.1);
    expect(summary(figures(12, 1.4))).toContain(`\n${2 + autocompleteMet} of 5 figures meet their goals (✓).`);
    expect(summary(figures(25, 1.6))).toContain(`\n${autocompleteMet} of 5 figures meet their goals (✓).`);
  });
});

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

  test("the summary marks a figure ✓ only where it meets its goal, and says how many do", () => {
    const base = results();
    const summary = (search: unknown) => renderPerformanceSummary({ search } as never);
    const row = (text: string) => text.split("\n").find((line) => line.startsWith("| `search`"))!;
    const met = { ...base.search, search: { ...base.search.search, p99Ms: 12, ratio: 1.4 } };
    const slow = { ...base.search, search: { ...base.search.search, p99Ms: 25, ratio: 1.4 } };
    const dear = { ...base.search, search: { ...base.search.search, p99Ms: 12, ratio: 1.6 } };
    expect(row(summary(met))).toContain("×1.40 ✓ | not measured |");
    expect(row(summary(slow))).not.toContain("✓");
    expect(row(summary(dear))).not.toContain("✓");
    expect(summary(met)).toContain("\n1 of 3 figures meet their goals (✓).");
  });
});

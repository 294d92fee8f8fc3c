import fs from "node:fs";
import path from "node:path";
import { performanceIn, renderPerformance } from "../../bench/performance-table";

/** The performance tables of docs/performance.md are generated from bench/results.json, never typed by hand. */
describe("docs/performance.md", () => {
  test("holds what npm run docs:performance renders from bench/results.json", () => {
    const page = fs.readFileSync(path.join(__dirname, "..", "..", "docs", "performance.md"), "utf8");
    const results = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "bench", "results.json"), "utf8"));
    expect(performanceIn(page)).toBe(renderPerformance(results));
  });
});

import fs from "node:fs";
import path from "node:path";
import { performanceIn, renderPerformance } from "../../bench/performance-table";

/** The README's performance tables are generated from bench/results.json, never typed by hand. */
describe("README performance tables", () => {
  test("are what npm run docs:performance renders from bench/results.json", () => {
    const readme = fs.readFileSync(path.join(__dirname, "..", "..", "README.md"), "utf8");
    const results = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "bench", "results.json"), "utf8"));
    expect(performanceIn(readme)).toBe(renderPerformance(results));
  });
});

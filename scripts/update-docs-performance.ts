// Rewrites the performance tables of docs/performance.md and the README's summary of them from
// bench/results.json (test/docs/performance-tables.test.ts fails when they drift). Run after `npm run bench`;
// review the diff before committing.
import fs from "node:fs";
import path from "node:path";
import { renderPerformanceSummary, SUMMARY_MARKERS } from "../bench/performance-summary";
import { renderPerformance, withBlock, withPerformance } from "../bench/performance-table";

const ROOT = path.join(__dirname, "..");
const PAGE = path.join(ROOT, "docs", "performance.md");
const README = path.join(ROOT, "README.md");
const RESULTS = path.join(ROOT, "bench", "results.json");

const results = JSON.parse(fs.readFileSync(RESULTS, "utf8"));
fs.writeFileSync(PAGE, withPerformance(fs.readFileSync(PAGE, "utf8"), renderPerformance(results)));
fs.writeFileSync(README, withBlock(fs.readFileSync(README, "utf8"), SUMMARY_MARKERS, renderPerformanceSummary(results)));
console.log("rewrote the performance tables in docs/performance.md and the README's summary from bench/results.json");

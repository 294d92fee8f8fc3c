// Rewrites the performance tables of docs/performance.md from bench/results.json
// (test/docs/performance-tables.test.ts fails when they drift). Run after `npm run bench`; review the diff before committing.
import fs from "node:fs";
import path from "node:path";
import { renderPerformance, withPerformance } from "../bench/performance-table";

const PAGE = path.join(__dirname, "..", "docs", "performance.md");
const RESULTS = path.join(__dirname, "..", "bench", "results.json");

const results = JSON.parse(fs.readFileSync(RESULTS, "utf8"));
fs.writeFileSync(PAGE, withPerformance(fs.readFileSync(PAGE, "utf8"), renderPerformance(results)));
console.log("rewrote the performance tables in docs/performance.md from bench/results.json");

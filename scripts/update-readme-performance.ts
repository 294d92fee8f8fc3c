// Rewrites the README's performance tables from bench/results.json (test/docs/readme-performance.test.ts
// fails when they drift). Run after a full `npm run bench`; review the diff before committing.
import fs from "node:fs";
import path from "node:path";
import { renderPerformance, withPerformance } from "../bench/performance-table";

const README = path.join(__dirname, "..", "README.md");
const RESULTS = path.join(__dirname, "..", "bench", "results.json");

const results = JSON.parse(fs.readFileSync(RESULTS, "utf8"));
fs.writeFileSync(README, withPerformance(fs.readFileSync(README, "utf8"), renderPerformance(results)));
console.log("rewrote the performance tables in README.md from bench/results.json");

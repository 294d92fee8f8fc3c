// npm run bench [-- --quick] [-- --only=<key>, e.g. explorer] [-- --pg <postgresql url>] [-- --scale] [-- --cpu-baseline]: runs the
// benchmarks, prints a table and writes bench/results.json (--quick: bench/results-quick.json). Each benchmark measures provgraph and a
// raw baseline in the same run, interleaved: read the ratios, not the absolute numbers (shared
// 2-core machines are noisy). `--pg` adds the PostgreSQL runs (databases created on that server and
// dropped after); `--scale` adds the 10M-edge store to the scaling table.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runAuthBench } from "./auth-bench";
import { runClosureBench } from "./closure-bench";
import { runHeavyReadsBench } from "./heavy-reads-bench";
import { runComplianceBench } from "./compliance-bench";
import { type BenchResults, renderPerformance } from "./performance-table";
import { runCompositeBench } from "./composite-bench";
import { runExplorerBench } from "./explorer-bench";
import { runConcurrencyBench } from "./concurrency-bench";
import { type CpuBudgetResult, runCpuBudgetBench } from "./cpu-budget-bench";
import { runFeedsBench } from "./feeds-bench";
import { runGraphBench } from "./graph-bench";
import { runIngestBench } from "./ingest-bench";
import { runOpenLineageBench } from "./openlineage-bench";
import { runPrivacyBench } from "./privacy-bench";
import { runReadsDuringWritesBench } from "./reads-during-writes-bench";
import { runScalingBench } from "./scaling-bench";
import { runStartupBench } from "./startup-bench";
import { runSearchBench } from "./search-bench";
import { ensureServerBuilt } from "./server-process";

function argument(name: string): string | undefined {
  const index = process.argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (index < 0) return undefined;
  const arg = process.argv[index];
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : process.argv[index + 1];
}

async function main() {
  const quick = process.argv.includes("--quick");
  const only = argument("only")?.split(",");
  const pgUrl = argument("pg");
  const scale = process.argv.includes("--scale");
  const dataDir = path.join(__dirname, ".data");
  const log = (line: string) => console.log(line);
  // A quick run prints the same table but keeps its figures apart: results.json holds a full run's.
  const resultsFile = path.join(__dirname, quick ? "results-quick.json" : "results.json");
  const previous = fs.existsSync(resultsFile) ? JSON.parse(fs.readFileSync(resultsFile, "utf8")) : {};
  const results: Record<string, unknown> = { ...previous };
  const wanted = (key: string) => !only || only.includes(key);
  const started = performance.now();
  // Each benchmark's wall time, so a reader sees where a run's minutes go.
  const timed = async <T>(key: string, run: () => Promise<T>): Promise<T> => {
    const from = performance.now();
    const result = await run();
    log(`(${key}: ${((performance.now() - from) / 1000).toFixed(1)} s)`);
    return result;
  };
  // The benchmarks measure the server as `npm start` runs it: compiled, in a process of its own.
  const building = performance.now();
  ensureServerBuilt(log);
  log(`(build: ${((performance.now() - building) / 1000).toFixed(1)} s)`);
  if (wanted("cpuBudget")) results.cpuBudget = await timed("cpuBudget", () => runCpuBudgetBench({ quick, log, dataDir, previous: previous.cpuBudget as CpuBudgetResult | undefined, rebaseline: process.argv.includes("--cpu-baseline") }));
  if (wanted("ingest")) results.ingest = await timed("ingest", () => runIngestBench({ quick, log, dataDir }));
  if (pgUrl && wanted("ingest")) results.ingestPg = await timed("ingestPg", () => runIngestBench({ quick, log, dataDir, pgUrl }));
  if (wanted("concurrency")) results.concurrency = await timed("concurrency", () => runConcurrencyBench({ quick, log, dataDir }));
  // The same with every commit fsynced (SQLITE_SYNCHRONOUS=FULL on all three sides): what group commit saves when a commit costs an fsync.
  if (wanted("concurrency")) results.concurrencyDurable = await timed("concurrencyDurable", () => runConcurrencyBench({ quick, log, dataDir, synchronous: "FULL" }));
  if (pgUrl && wanted("concurrency")) results.concurrencyPg = await timed("concurrencyPg", () => runConcurrencyBench({ quick, log, dataDir, pgUrl }));
  // WORKERS=1 and 2 on PostgreSQL: what a second server process adds on this machine (load generator included).
  if (pgUrl && wanted("workers")) results.workersPg = await timed("workersPg", async () => [await runConcurrencyBench({ quick, log, dataDir, pgUrl, workers: 1 }), await runConcurrencyBench({ quick, log, dataDir, pgUrl, workers: 2 })]);
  if (wanted("readsDuringWrites")) results.readsDuringWrites = await timed("readsDuringWrites", () => runReadsDuringWritesBench({ quick, log, dataDir }));
  if (pgUrl && wanted("readsDuringWrites")) results.readsDuringWritesPg = await timed("readsDuringWritesPg", () => runReadsDuringWritesBench({ quick, log, dataDir, pgUrl }));
  if (wanted("closure")) results.closure = await timed("closure", () => runClosureBench({ quick, log, dataDir }));
  if (pgUrl && wanted("closure")) results.closurePg = await timed("closurePg", () => runClosureBench({ quick, log, dataDir, pgUrl }));
  if (wanted("heavyReads")) results.heavyReads = await timed("heavyReads", () => runHeavyReadsBench({ quick, log, dataDir }));
  if (wanted("scaling")) results.scaling = await timed("scaling", () => runScalingBench({ quick, scale, log, dataDir }));
  if (wanted("composite")) results.composite = await timed("composite", () => runCompositeBench({ quick, log, dataDir }));
  if (wanted("auth")) results.auth = await timed("auth", () => runAuthBench({ quick, log, dataDir }));
  if (wanted("openlineage")) results.openlineage = await timed("openlineage", () => runOpenLineageBench({ quick, log, dataDir }));
  if (wanted("feeds")) results.feeds = await timed("feeds", () => runFeedsBench({ quick, log, dataDir }));
  if (wanted("compliance")) results.compliance = await timed("compliance", () => runComplianceBench({ quick, log, dataDir }));
  if (wanted("search")) results.search = await timed("search", () => runSearchBench({ quick, log, dataDir }));
  // --only=searchPg (and graphPg below): the PostgreSQL side alone (its 1M store takes long to make).
  if (pgUrl && (wanted("search") || wanted("searchPg"))) results.searchPg = await timed("searchPg", () => runSearchBench({ quick, log, dataDir, pgUrl }));
  if (wanted("privacy")) results.privacy = await timed("privacy", () => runPrivacyBench({ quick, log, dataDir }));
  if (wanted("graph")) results.graph = await timed("graph", () => runGraphBench({ quick, log, dataDir }));
  if (pgUrl && (wanted("graph") || wanted("graphPg"))) results.graphPg = await timed("graphPg", () => runGraphBench({ quick, log, dataDir, pgUrl }));
  if (wanted("startup")) results.startup = await timed("startup", () => runStartupBench({ quick, log, dataDir }));
  if (wanted("explorer")) results.explorer = await timed("explorer", () => runExplorerBench({ quick, log, dataDir }));
  // A run of some benchmarks (--only) keeps the full run's description; its own results say when and at what load they were measured where they can.
  if (only && previous.meta) results.meta = previous.meta;
  else results.meta = { at: new Date().toISOString(), quick, pg: Boolean(pgUrl), scale, seconds: Math.round((performance.now() - started) / 1000), node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) };
  fs.writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  console.log(renderPerformance(results as BenchResults));
  console.log(`wrote ${path.relative(process.cwd(), resultsFile)} in ${results.meta && (results.meta as { seconds: number }).seconds} s`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

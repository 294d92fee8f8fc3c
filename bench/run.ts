// npm run bench [-- --quick] [-- --only=<key>] [-- --pg <postgresql url>] [-- --scale]: runs the
// benchmarks, prints a table and writes bench/results.json (--quick: bench/results-quick.json). Each benchmark measures provgraph and a
// raw baseline in the same run, interleaved: read the ratios, not the absolute numbers (shared
// 2-core machines are noisy). `--pg` adds the PostgreSQL runs (databases created on that server and
// dropped after); `--scale` adds the 10M-edge store to the scaling table.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runAuthBench } from "./auth-bench";
import { runClosureBench } from "./closure-bench";
import { runComplianceBench } from "./compliance-bench";
import { type BenchResults, renderPerformance } from "./performance-table";
import { runCompositeBench } from "./composite-bench";
import { runConcurrencyBench } from "./concurrency-bench";
import { runFeedsBench } from "./feeds-bench";
import { runIngestBench } from "./ingest-bench";
import { runOpenLineageBench } from "./openlineage-bench";
import { runReadsDuringWritesBench } from "./reads-during-writes-bench";
import { runScalingBench } from "./scaling-bench";
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
  // The benchmarks measure the server as `npm start` runs it: compiled, in a process of its own.
  ensureServerBuilt(log);
  if (wanted("ingest")) results.ingest = await runIngestBench({ quick, log, dataDir });
  if (pgUrl && wanted("ingest")) results.ingestPg = await runIngestBench({ quick, log, dataDir, pgUrl });
  if (wanted("concurrency")) results.concurrency = await runConcurrencyBench({ quick, log, dataDir });
  // The same with every commit fsynced (SQLITE_SYNCHRONOUS=FULL on all three sides): what group commit saves when a commit costs an fsync.
  if (wanted("concurrency")) results.concurrencyDurable = await runConcurrencyBench({ quick, log, dataDir, synchronous: "FULL" });
  if (pgUrl && wanted("concurrency")) results.concurrencyPg = await runConcurrencyBench({ quick, log, dataDir, pgUrl });
  if (wanted("readsDuringWrites")) results.readsDuringWrites = await runReadsDuringWritesBench({ quick, log, dataDir });
  if (pgUrl && wanted("readsDuringWrites")) results.readsDuringWritesPg = await runReadsDuringWritesBench({ quick, log, dataDir, pgUrl });
  if (wanted("closure")) results.closure = await runClosureBench({ quick, log, dataDir });
  if (pgUrl && wanted("closure")) results.closurePg = await runClosureBench({ quick, log, dataDir, pgUrl });
  if (wanted("scaling")) results.scaling = await runScalingBench({ quick, scale, log, dataDir });
  if (wanted("composite")) results.composite = await runCompositeBench({ quick, log, dataDir });
  if (wanted("auth")) results.auth = await runAuthBench({ quick, log, dataDir });
  if (wanted("openlineage")) results.openlineage = await runOpenLineageBench({ quick, log, dataDir });
  if (wanted("feeds")) results.feeds = await runFeedsBench({ quick, log, dataDir });
  if (wanted("compliance")) results.compliance = await runComplianceBench({ quick, log, dataDir });
  results.meta = { at: new Date().toISOString(), quick, pg: Boolean(pgUrl), scale, seconds: Math.round((performance.now() - started) / 1000), node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) };
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

// npm run bench [-- --quick]: runs every benchmark, prints a table and writes bench/results.json.
// Each benchmark measures provgraph and a raw baseline in the same run: read the ratios, not the
// absolute numbers (shared 2-core machines are noisy).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runAuthBench } from "./auth-bench";
import { runClosureBench } from "./closure-bench";
import { runComplianceBench } from "./compliance-bench";
import { runCompositeBench } from "./composite-bench";
import { runFeedsBench } from "./feeds-bench";
import { runIngestBench } from "./ingest-bench";
import { runOpenLineageBench } from "./openlineage-bench";

async function main() {
  const quick = process.argv.includes("--quick");
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
  const dataDir = path.join(__dirname, ".data");
  const log = (line: string) => console.log(line);
  const resultsFile = path.join(__dirname, "results.json");
  const previous = fs.existsSync(resultsFile) ? JSON.parse(fs.readFileSync(resultsFile, "utf8")) : {};
  const results: Record<string, unknown> = { ...previous };
  if (!only || only === "ingest") results.ingest = await runIngestBench({ quick, log, dataDir });
  if (!only || only === "closure") results.closure = await runClosureBench({ quick, log, dataDir });
  if (!only || only === "composite") results.composite = await runCompositeBench({ quick, log, dataDir });
  if (!only || only === "auth") results.auth = await runAuthBench({ quick, log, dataDir });
  if (!only || only === "openlineage") results.openlineage = await runOpenLineageBench({ quick, log, dataDir });
  if (!only || only === "feeds") results.feeds = await runFeedsBench({ quick, log, dataDir });
  if (!only || only === "compliance") results.compliance = await runComplianceBench({ quick, log, dataDir });
  results.meta = { at: new Date().toISOString(), quick, node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model };
  fs.writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  console.table(Object.fromEntries(Object.entries(results).filter(([k]) => k !== "meta")));
  console.log(`wrote ${path.relative(process.cwd(), resultsFile)}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

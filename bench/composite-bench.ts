import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";

/**
 * Composite recording: a 10-step chain composite whose steps each take 50 inputs to 50 outputs
 * (stem-matched, one edge each), recorded with recordCompositeExecution in each intermediates mode,
 * against recording its ten steps as ten plain executions (recordExecution, one transaction each), all
 * over HTTP on one database. The sides run interleaved in alternating blocks (the disk's fsync cost
 * swings between minutes): each block records every side `runs` times, in an order rotated per block;
 * a mode's ratio is the median over blocks of (its time / the plain side's time in that block).
 */
export interface CompositeBenchResult {
  steps: number;
  fan: number;
  blocks: number;
  runsPerBlock: number;
  plainMsPerRun: number;
  discardMsPerRun: number;
  persistMsPerRun: number;
  exposeMsPerRun: number;
  /** Median per-block ratio composite / plain: below 1, the composite records faster. */
  discardRatio: number;
  persistRatio: number;
  exposeRatio: number;
}

const STEPS = 10;
const FAN = 50;
const POOL = 10;
const MODES = ["DISCARD", "PERSIST", "EXPOSE"] as const;
type Side = "PLAIN" | (typeof MODES)[number];

const hash = (name: string) => `sha256:${crypto.createHash("sha256").update(name).digest("hex")}`;
const inputName = (set: number, j: number) => `in_${set}_${j}.csv`;
/** Step k's j-th output extends step k-1's stem by one letter, so each step stem-matches the one before. */
const outputName = (label: string, set: number, j: number, k: number) => `in_${set}_${j}_${label}${"abcdefghij".slice(0, k)}.csv`;

const RECORD = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename ... on RecordExecutionPayload { execution { outputs { artifact { id } } } } ... on Error { code message } } }`;
const RECORD_COMPOSITE = `mutation($input: RecordCompositeExecutionInput!) { recordCompositeExecution(input: $input) { __typename ... on RecordCompositeExecutionPayload { execution { runId } edgeCount } ... on Error { code message } } }`;

export async function runCompositeBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<CompositeBenchResult> {
  const blocks = options.quick ? 3 : 8;
  const runs = options.quick ? 2 : 4;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, "composite.db");
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  const app = await buildApp(loadConfig({ DATABASE_URL: `file:${file}`, PORT: "0", LOG_LEVEL: "silent" }));
  const url = await app.start();
  const post = async (query: string, variables: unknown) => {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: any; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    const result = Object.values(body.data ?? {})[0] as { __typename: string };
    if (result.__typename.endsWith("Error")) throw new Error(JSON.stringify(result));
    return result as any;
  };
  try {
    const register = `mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }`;
    await post(register, { i: { name: "source", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] } });
    await post(register, { i: { name: "transform", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] } });
    const steps = Array.from({ length: STEPS }, (_, k) => `s${k + 1}`);
    for (const mode of MODES) {
      await post(`mutation($i: RegisterCompositeInput!) { registerComposite(input: $i) { __typename ... on Error { code message } } }`, {
        i: {
          name: `chain_${mode}`,
          version: "1",
          inputs: [{ role: "data", artifactType: "csv" }],
          outputs: [{ role: "result", artifactType: "csv" }],
          steps: steps.map((name) => ({ name, operation: "transform", operationVersion: "1" })),
          wires: [
            { from: "in.data", to: "s1.data" },
            ...steps.slice(1).map((name, k) => ({ from: `${steps[k]}.out`, to: `${name}.data` })),
            { from: `${steps[STEPS - 1]}.out`, to: "out.result" },
          ],
          intermediates: mode,
        },
      });
    }
    const inputSets: string[][] = [];
    for (let set = 0; set < POOL; set++) {
      const names = Array.from({ length: FAN }, (_, j) => inputName(set, j));
      const data = await post(RECORD, { input: { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: names.map((n) => ({ originalName: n, contentHash: hash(n) })) }] } });
      inputSets.push(data.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id));
    }

    const drafts = (label: string, set: number, k: number) => Array.from({ length: FAN }, (_, j) => ({ originalName: outputName(label, set, j, k), contentHash: hash(outputName(label, set, j, k)) }));
    let counter = 0;
    const recordOnce = async (side: Side) => {
      const label = `r${counter++}_`;
      const set = counter % POOL;
      if (side === "PLAIN") {
        let inputs = inputSets[set];
        for (let k = 1; k <= STEPS; k++) {
          const data = await post(RECORD, { input: { operation: "transform", operationVersion: "1", inputs: [{ role: "data", artifactIds: inputs }], outputs: [{ role: "out", artifacts: drafts(label, set, k) }] } });
          inputs = data.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id);
        }
        return;
      }
      const result = await post(RECORD_COMPOSITE, {
        input: { composite: `chain_${side}`, compositeVersion: "1", inputs: [{ role: "data", artifactIds: inputSets[set] }], steps: steps.map((step, k) => ({ step, outputs: [{ role: "out", artifacts: drafts(label, set, k + 1) }] })) },
      });
      const expected = side === "DISCARD" ? FAN : FAN * STEPS + FAN * (side === "EXPOSE" ? STEPS : 1);
      if (result.edgeCount !== expected) throw new Error(`${side}: expected ${expected} edges, recorded ${result.edgeCount}`);
    };

    const sides: Side[] = ["PLAIN", ...MODES];
    for (const side of sides) await recordOnce(side); // warm-up
    const times: Record<Side, number[]> = { PLAIN: [], DISCARD: [], PERSIST: [], EXPOSE: [] };
    for (let block = 0; block < blocks; block++) {
      const order = sides.map((_, i) => sides[(i + block) % sides.length]);
      for (const side of order) {
        const start = performance.now();
        for (let r = 0; r < runs; r++) await recordOnce(side);
        times[side].push((performance.now() - start) / runs);
      }
    }
    const perRun = (side: Side) => round(median(times[side]), 2);
    const ratio = (side: Side) => round(median(times[side].map((ms, block) => ms / times.PLAIN[block])), 3);
    const result: CompositeBenchResult = {
      steps: STEPS,
      fan: FAN,
      blocks,
      runsPerBlock: runs,
      plainMsPerRun: perRun("PLAIN"),
      discardMsPerRun: perRun("DISCARD"),
      persistMsPerRun: perRun("PERSIST"),
      exposeMsPerRun: perRun("EXPOSE"),
      discardRatio: ratio("DISCARD"),
      persistRatio: ratio("PERSIST"),
      exposeRatio: ratio("EXPOSE"),
    };
    options.log(
      `composite  ${STEPS} steps × ${FAN}→${FAN}, one recordCompositeExecution vs ${STEPS} recordExecution: ` +
        `plain ${result.plainMsPerRun} ms; DISCARD ${result.discardMsPerRun} ms (${result.discardRatio}), PERSIST ${result.persistMsPerRun} ms (${result.persistRatio}), EXPOSE ${result.exposeMsPerRun} ms (${result.exposeRatio})`,
    );
    return result;
  } finally {
    await app.stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { type App, buildApp } from "../src/app";
import { generateTokenSecret } from "../src/auth";
import { loadConfig } from "../src/config";

/**
 * What token checking costs on the ingest path: the ingest benchmark's executions (50 inputs →
 * 50 outputs, recordExecution over HTTP on loopback) sent to a server in open mode and to one that
 * requires a token (Bearer header, hash and cache lookup, the scope check, and the audit entry each
 * token write leaves). The two sides run interleaved in one process — the disk's fsync cost swings
 * from minute to minute, so they never run one after the other. Each block runs eight slots in the
 * Thue–Morse order open, token, token, open, token, open, open, token: a plain alternation (or
 * open-token-token-open) measurably favours whichever side holds the earlier slots, and this order
 * gives both sides the same positions on average. The result is the median of the per-block ratios
 * (token time / open time; 1.00 = free).
 */
export interface AuthBenchResult {
  /** Median over blocks of (ms per execution with a token) / (ms per execution in open mode). */
  ratio: number;
  blockRatios: number[];
  openMsPerExecution: number;
  tokenMsPerExecution: number;
  blocks: number;
  executionsPerBlock: number;
  inputsPerExecution: number;
  outputsPerExecution: number;
}

const FAN = 50;
const POOL = 20;
const RECORD = `mutation($input: RecordExecutionInput!) {
  recordExecution(input: $input) {
    __typename
    ... on RecordExecutionPayload { execution { runId specId status outputs { role artifact { id originalName } } } }
    ... on Error { code message }
  }
}`;

const hash = (name: string) => `sha256:${crypto.createHash("sha256").update(name).digest("hex")}`;

interface Side {
  name: "open" | "token";
  app: App;
  post: (query: string, variables: unknown) => Promise<any>;
  inputSets: string[][];
  next: number;
  ms: number;
}

export async function runAuthBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<AuthBenchResult> {
  const blocks = options.quick ? 4 : 20;
  const perSlot = options.quick ? 3 : 10;
  const perBlock = perSlot * 4; // executions per side and block
  fs.mkdirSync(options.dataDir, { recursive: true });
  const sides: Side[] = [];
  for (const name of ["open", "token"] as const) {
    const file = path.join(options.dataDir, `auth-${name}.db`);
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    const token = name === "token" ? generateTokenSecret() : undefined;
    const app = await buildApp(loadConfig({ DATABASE_URL: `file:${file}`, PORT: "0", LOG_LEVEL: "silent", ...(token ? { PROVGRAPH_BOOTSTRAP_TOKEN: token } : {}) }));
    if (app.authMode !== (name === "open" ? "open" : "tokens")) throw new Error(`${name} side runs in ${app.authMode} mode`);
    const url = await app.start();
    // The token side records with a write token, as a pipeline would; the admin token registers.
    const writeToken = token ? (await app.auth.tokens.create({ name: "bench", scopes: ["write"], createdBy: "bench" })).secret : undefined;
    const poster = (bearer: string | undefined) => async (query: string, variables: unknown) => {
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body: JSON.stringify({ query, variables }) });
      const body = (await response.json()) as { data?: any; errors?: unknown };
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      return body.data;
    };
    const admin = poster(token);
    await admin(`mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }`, {
      i: { name: "source", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] },
    });
    await admin(`mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }`, {
      i: { name: "transform", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] },
    });
    const inputSets: string[][] = [];
    for (let set = 0; set < POOL; set++) {
      const names = Array.from({ length: FAN }, (_, j) => `in_${set}_${j}.csv`);
      const data = await admin(RECORD, { input: { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: names.map((n) => ({ originalName: n, contentHash: hash(n) })) }] } });
      inputSets.push(data.recordExecution.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id));
    }
    sides.push({ name, app, post: poster(writeToken), inputSets, next: 0, ms: 0 });
  }

  const record = async (side: Side) => {
    const i = side.next++;
    const outputs = Array.from({ length: FAN }, (_, j) => `in_${i % POOL}_${j}_run${i}.csv`);
    const data = await side.post(RECORD, {
      input: { operation: "transform", operationVersion: "1", params: { run: i }, inputs: [{ role: "data", artifactIds: side.inputSets[i % POOL] }], outputs: [{ role: "out", artifacts: outputs.map((n) => ({ originalName: n, contentHash: hash(n) })) }] },
    });
    if (data.recordExecution.__typename !== "RecordExecutionPayload") throw new Error(JSON.stringify(data.recordExecution));
  };
  const runSlot = async (side: Side) => {
    const started = performance.now();
    for (let k = 0; k < perSlot; k++) await record(side);
    const ms = performance.now() - started;
    side.ms += ms;
    return ms;
  };

  try {
    for (const side of sides) for (let k = 0; k < 10; k++) await record(side); // warm-up
    const [open, token] = sides;
    const blockRatios: number[] = [];
    for (let block = 0; block < blocks; block++) {
      const times = new Map<Side, number>([
        [open, 0],
        [token, 0],
      ]);
      for (const side of [open, token, token, open, token, open, open, token]) times.set(side, times.get(side)! + (await runSlot(side)));
      blockRatios.push(round(times.get(token)! / times.get(open)!, 3));
    }
    const audited = await token.app.database.prisma.auditEvent.count({ where: { action: "recordExecution", outcome: "OK", actor: "bench" } });
    if (audited !== blocks * perBlock + 10) throw new Error(`expected ${blocks * perBlock + 10} audited recordings, found ${audited}`);
    const result: AuthBenchResult = {
      ratio: median(blockRatios),
      blockRatios,
      openMsPerExecution: round(open.ms / (blocks * perBlock), 3),
      tokenMsPerExecution: round(token.ms / (blocks * perBlock), 3),
      blocks,
      executionsPerBlock: perBlock,
      inputsPerExecution: FAN,
      outputsPerExecution: FAN,
    };
    options.log(
      `auth    ${blocks} blocks × ${perBlock} executions a side: open ${result.openMsPerExecution} ms, token ${result.tokenMsPerExecution} ms per execution; median block ratio ${result.ratio} (${blockRatios.join(", ")})`,
    );
    return result;
  } finally {
    for (const side of sides) await side.app.stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : round((sorted[middle - 1] + sorted[middle]) / 2, 3);
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { defaultPlugins } from "../plugins/registry";
import { openDatabase } from "../src/db/client";
import { migrateDatabase } from "../src/db/migrate";
import { FeedLog } from "../src/services/feeds";
import { ExecutionRecorder, GroupCommit, OperationRegistry } from "../src/services/recording";

/**
 * Fan-out: provgraph in a process of its own, SUBSCRIBERS graphql-ws clients on loopback (one
 * socket each, all subscribed to runRecorded), runs recorded through HTTP at a steady RATE.
 *
 * - Delivery latency: from the event's committedAt (the server's clock, the same machine) to its
 *   arrival at each subscriber; p50 / p99 over every delivery, while every subscriber checks it
 *   got every run exactly once, in order.
 * - Server RSS: with the sockets open and idle, and the peak while delivering.
 * - The cost of publishing: blocks of runs at the same steady rate, alternately with all
 *   subscribers subscribed and with none (the sockets stay open), interleaved (ABBA) so drift in
 *   the machine's speed hits both sides alike; per pair of blocks, the ratio of the server's CPU
 *   time per run, and of the recording client's latency per run; the medians of those ratios.
 * - The floor: after each pair, a block of the same runs published by a bare `ws` server in a
 *   process of its own (bench/socket-floor-server.ts: one encoding, then one socket write per
 *   subscriber, nothing else) to as many subscribers of its own; its CPU per run is what the
 *   socket writes alone cost, and the fan-out's cost (CPU with subscribers − without) is reported
 *   as a multiple of it.
 * - 10,000 subscribers: delivery latency and server CPU per run at 1 run/s (10,000 deliveries a
 *   second, what one client process on the other core receives and parses), provgraph and the floor.
 * - The feed log's cost on the write path: recordings of 50 inputs → 50 outputs (the ingest
 *   bench's shape) through the recorder in this process, with the feed log as the commit path's
 *   journal and without, in interleaved blocks on one SQLite file; the median ratio.
 */
export interface FeedsBenchResult {
  subscribers: number;
  runsPerSec: number;
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  serverRssIdleMb: number;
  serverRssPeakMb: number;
  /** Server CPU per run with every subscriber ÷ with none (median over block pairs). */
  publishCpuRatio: number;
  /** Recording latency (HTTP round trip of the mutation) with every subscriber ÷ with none. */
  publishLatencyRatio: number;
  cpuMsPerRunWith: number;
  cpuMsPerRunWithout: number;
  recordMsWith: number;
  recordMsWithout: number;
  /** The floor (bare `ws` server, same subscribers, same rate): CPU per run, and its delivery latency. */
  floorCpuMsPerRun: number;
  floorP50Ms: number;
  floorP99Ms: number;
  /** (server CPU per run with subscribers − without) ÷ the floor's CPU per run: the fan-out as a multiple of its socket writes. */
  fanOutToFloor: number;
  /** The same at 10,000 subscribers, 1 run/s. */
  big: { subscribers: number; runsPerSec: number; runs: number; deliveries: number; p50Ms: number; p99Ms: number; maxMs: number; cpuMsPerRun: number; floorP50Ms: number; floorP99Ms: number; floorMaxMs: number; floorCpuMsPerRun: number; serverRssPeakMb: number };
  /** Recording time with the feed log appended in each transaction ÷ without (median over block pairs). */
  feedLogRatio: number;
  recordMsWithFeedLog: number;
  recordMsWithoutFeedLog: number;
}

const ROOT = path.join(__dirname, "..");
const FEED = `subscription { runRecorded { sequence committedAt execution { runId status } } }`;
const RECORD = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename ... on RecordExecutionPayload { execution { runId } } } }`;

export async function runFeedsBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<FeedsBenchResult> {
  const subscribers = 1_000;
  const rate = Number(process.env.FEEDS_BENCH_RATE ?? 10);
  const latencySeconds = options.quick ? 3 : 30;
  const blockRuns = options.quick ? 20 : 100;
  const blockPairs = options.quick ? 1 : 5;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, "feeds.db");
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });

  const server = await startServer(["src/main.ts"], { DATABASE_URL: `file:${file}`, PORT: "0", LOG_LEVEL: "info", NODE_ENV: "production" }, /provgraph listening on (http:\/\/\S+?)"/);
  const floor = await startServer(["bench/socket-floor-server.ts"], {}, /listening on (http:\/\/\S+)/);
  const clients: Subscriber[] = [];
  const floorClients: Subscriber[] = [];
  const bigClients: Subscriber[] = [];
  try {
    const post = async (query: string, variables: unknown) => {
      const response = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
      const body = (await response.json()) as { data?: any; errors?: unknown };
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      return body.data;
    };
    await post(`mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }`, {
      i: { name: "emit", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] },
    });
    let counter = 0;
    const record = async () => {
      const i = counter++;
      const started = performance.now();
      const data = await post(RECORD, { input: { operation: "emit", operationVersion: "1", params: { i }, inputs: [], outputs: [{ role: "out", artifacts: [{ originalName: `run_${i}.csv`, contentHash: `sha256:${i.toString(16).padStart(64, "0")}` }] }] } });
      if (data.recordExecution.__typename !== "RecordExecutionPayload") throw new Error(JSON.stringify(data.recordExecution));
      return performance.now() - started;
    };
    /** A run published by the floor server: one encoding, a socket write per subscriber. */
    const publishFloor = async () => {
      const started = performance.now();
      await (await fetch(`${floor.url}/publish`, { method: "POST" })).text();
      return performance.now() - started;
    };
    /** `runs` publications at `perSec` (each starts on its slot, or at once when late); their latencies. */
    const steady = async (runs: number, publish: () => Promise<number> = record, perSec = rate) => {
      const latencies: number[] = [];
      const start = performance.now();
      for (let i = 0; i < runs; i++) {
        const wait = start + (i * 1000) / perSec - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        latencies.push(await publish());
      }
      return latencies;
    };
    for (let i = 0; i < 20; i++) await record(); // warm-up, no subscribers
    for (let i = 0; i < 20; i++) await publishFloor();

    // Sockets in batches of 100, so the accept queue keeps up.
    const connectAll = async (url: string, count: number, into: Subscriber[]) => {
      for (let i = 0; i < count; i += 100) into.push(...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => connect(url)))));
    };
    await connectAll(server.url, subscribers, clients);
    await connectAll(floor.url, subscribers, floorClients);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const serverRssIdleMb = rssMb(server.pid);

    // --- latency at a steady rate ---
    const subscribeAll = async (subscribed: Subscriber[] = clients, publish: () => Promise<number> = record) => {
      for (const client of subscribed) client.subscribe();
      // Subscribed when a run reaches everyone.
      const before = subscribed.map((client) => client.received);
      await publish();
      await waitFor(() => subscribed.every((client, i) => client.received > before[i]), 60_000, "every subscriber to get the first run");
    };
    await subscribeAll();
    await subscribeAll(floorClients, publishFloor);
    for (const client of clients) client.latencies.length = 0;
    let peak = rssMb(server.pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.pid))), 200);
    const runs = latencySeconds * rate;
    const receivedBefore = clients.map((client) => client.received);
    await steady(runs);
    await waitFor(() => clients.every((client, i) => client.received - receivedBefore[i] >= runs), 60_000, "every delivery");
    clearInterval(sampler);
    for (const client of clients) {
      if (client.received - receivedBefore[clients.indexOf(client)] !== runs) throw new Error(`a subscriber received ${client.received - receivedBefore[clients.indexOf(client)]} of ${runs} runs`);
      if (client.outOfOrder) throw new Error("a subscriber received a sequence out of order or twice");
    }
    const latencies = clients.flatMap((client) => client.latencies).sort((a, b) => a - b);
    const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];

    // --- the cost of publishing, interleaved ---
    const cpuRatios: number[] = [];
    const latencyRatios: number[] = [];
    const sides = { with: { cpu: [] as number[], latency: [] as number[] }, without: { cpu: [] as number[], latency: [] as number[] } };
    const block = async (subscribed: boolean) => {
      const cpu0 = cpuMs(server.pid);
      const latency = await steady(blockRuns);
      // Let the last run's fan-out finish inside the block it belongs to.
      await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
      const side = subscribed ? sides.with : sides.without;
      const cpu = (cpuMs(server.pid) - cpu0) / blockRuns;
      const meanLatency = mean(latency);
      side.cpu.push(cpu);
      side.latency.push(meanLatency);
      return { cpu, mean: meanLatency };
    };
    const unsubscribeAll = async () => {
      for (const client of clients) client.unsubscribe();
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    // The floor's block: the same runs at the same rate, published by the bare ws server to its own subscribers.
    const floorCpu: number[] = [];
    const floorLatencies: number[] = [];
    const toFloor: number[] = [];
    const floorBlock = async () => {
      for (const client of floorClients) client.latencies.length = 0;
      const before = floorClients.map((client) => client.received);
      const cpu0 = cpuMs(floor.pid);
      await steady(blockRuns, publishFloor);
      await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
      const cpu = (cpuMs(floor.pid) - cpu0) / blockRuns;
      await waitFor(() => floorClients.every((client, i) => client.received - before[i] >= blockRuns), 60_000, "every floor delivery");
      floorCpu.push(cpu);
      for (const client of floorClients) floorLatencies.push(...client.latencies);
      return cpu;
    };
    let subscribed = true;
    for (let pair = 0; pair < blockPairs; pair++) {
      // ABBA: with, without, without, with, …
      const order = pair % 2 === 0 ? [true, false] : [false, true];
      const results: Record<string, { cpu: number; mean: number }> = {};
      for (const want of order) {
        if (want && !subscribed) await subscribeAll();
        if (!want && subscribed) await unsubscribeAll();
        subscribed = want;
        results[String(want)] = await block(want);
      }
      cpuRatios.push(results.true.cpu / results.false.cpu);
      latencyRatios.push(results.true.mean / results.false.mean);
      toFloor.push((results.true.cpu - results.false.cpu) / (await floorBlock()));
    }
    floorLatencies.sort((a, b) => a - b);
    const floorQuantile = (q: number) => floorLatencies[Math.min(floorLatencies.length - 1, Math.floor(q * floorLatencies.length))];
    for (const client of [...clients.splice(0), ...floorClients.splice(0)]) client.close();
    await new Promise((resolve) => setTimeout(resolve, 1000));

    // --- 10,000 subscribers at 1 run/s: provgraph, then the floor ---
    const bigCount = options.quick ? 2_000 : 10_000;
    const bigRate = 1;
    const bigRuns = options.quick ? 5 : 20;
    const bigPhase = async (url: string, pid: number, publish: () => Promise<number>) => {
      await connectAll(url, bigCount, bigClients);
      await subscribeAll(bigClients, publish);
      for (const client of bigClients) client.latencies.length = 0;
      let bigPeak = rssMb(pid);
      const bigSampler = setInterval(() => (bigPeak = Math.max(bigPeak, rssMb(pid))), 200);
      const before = bigClients.map((client) => client.received);
      const cpu0 = cpuMs(pid);
      await steady(bigRuns, publish, bigRate);
      await waitFor(() => bigClients.every((client, i) => client.received - before[i] >= bigRuns), 120_000, `every delivery to ${bigCount} subscribers`);
      const cpuMsPerRun = (cpuMs(pid) - cpu0) / bigRuns;
      clearInterval(bigSampler);
      if (bigClients.some((client, i) => client.received - before[i] !== bigRuns || client.outOfOrder)) throw new Error(`a subscriber of ${bigCount} missed a run, or got one twice or out of order`);
      const all = bigClients.flatMap((client) => client.latencies).sort((a, b) => a - b);
      for (const client of bigClients.splice(0)) client.close();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const at = (q: number) => all[Math.min(all.length - 1, Math.floor(q * all.length))];
      return { deliveries: all.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: all[all.length - 1], cpuMsPerRun: round(cpuMsPerRun, 2), peakMb: bigPeak };
    };
    const bigServer = await bigPhase(server.url, server.pid, record);
    const bigFloor = await bigPhase(floor.url, floor.pid, publishFloor);
    const big = {
      subscribers: bigCount,
      runsPerSec: bigRate,
      runs: bigRuns,
      deliveries: bigServer.deliveries,
      p50Ms: bigServer.p50Ms,
      p99Ms: bigServer.p99Ms,
      maxMs: bigServer.maxMs,
      cpuMsPerRun: bigServer.cpuMsPerRun,
      floorP50Ms: bigFloor.p50Ms,
      floorP99Ms: bigFloor.p99Ms,
      floorMaxMs: bigFloor.maxMs,
      floorCpuMsPerRun: bigFloor.cpuMsPerRun,
      serverRssPeakMb: round(bigServer.peakMb),
    };
    const journal = await measureFeedLog(path.join(options.dataDir, "feeds-journal.db"), options.quick);
    const result: FeedsBenchResult = {
      subscribers,
      runsPerSec: rate,
      deliveries: latencies.length,
      p50Ms: quantile(0.5),
      p99Ms: quantile(0.99),
      maxMs: latencies[latencies.length - 1],
      serverRssIdleMb: round(serverRssIdleMb),
      serverRssPeakMb: round(peak),
      publishCpuRatio: round(median(cpuRatios), 2),
      publishLatencyRatio: round(median(latencyRatios), 2),
      cpuMsPerRunWith: round(mean(sides.with.cpu), 2),
      cpuMsPerRunWithout: round(mean(sides.without.cpu), 2),
      recordMsWith: round(mean(sides.with.latency), 2),
      recordMsWithout: round(mean(sides.without.latency), 2),
      floorCpuMsPerRun: round(mean(floorCpu), 2),
      floorP50Ms: floorQuantile(0.5),
      floorP99Ms: floorQuantile(0.99),
      fanOutToFloor: round(median(toFloor), 2),
      big,
      ...journal,
    };
    options.log(
      `feeds   ${subscribers} WebSocket subscribers, ${rate} runs/s: delivery p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms (max ${result.maxMs}); server RSS ${result.serverRssIdleMb} MB idle, ${result.serverRssPeakMb} MB peak; ` +
        `publishing cost: CPU ×${result.publishCpuRatio} (${result.cpuMsPerRunWith} vs ${result.cpuMsPerRunWithout} ms per run), recording latency ×${result.publishLatencyRatio}; ` +
        `the floor (bare ws, same sockets): CPU ${result.floorCpuMsPerRun} ms per run, delivery p99 ${result.floorP99Ms} ms, fan-out ×${result.fanOutToFloor} the floor's socket writes; ` +
        `${big.subscribers} subscribers at ${big.runsPerSec} run/s: p50 ${big.p50Ms} ms, p99 ${big.p99Ms} ms, CPU ${big.cpuMsPerRun} ms per run (floor p99 ${big.floorP99Ms} ms, CPU ${big.floorCpuMsPerRun} ms); ` +
        `feed log on the write path ×${result.feedLogRatio} (${result.recordMsWithFeedLog} vs ${result.recordMsWithoutFeedLog} ms per 50→50 recording)`,
    );
    return result;
  } finally {
    for (const client of [...clients, ...floorClients, ...bigClients]) client.close();
    await server.stop();
    await floor.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The recorder with and without the feed log as its journal, in interleaved (ABBA) blocks over one database. */
async function measureFeedLog(file: string, quick: boolean): Promise<Pick<FeedsBenchResult, "feedLogRatio" | "recordMsWithFeedLog" | "recordMsWithoutFeedLog">> {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  const url = `file:${file}`;
  await migrateDatabase(url);
  const database = openDatabase(url);
  const db = database.prisma;
  const registry = new OperationRegistry(db);
  // The commit path of record (group commit), with the feed log as its journal and without.
  const withLog = new ExecutionRecorder(new GroupCommit(database, { journal: new FeedLog(database.reader, database.provider) }), registry, defaultPlugins);
  const without = new ExecutionRecorder(new GroupCommit(database), registry, defaultPlugins);
  const FAN = 50;
  await registry.register({ name: "source", version: "1", kind: "CREATOR", groupBy: null, inputs: [], outputs: [{ role: "raw", artifactType: "csv", required: true, inferLineageFrom: { inputs: [] } }] });
  await registry.register({
    name: "transform",
    version: "1",
    kind: "CREATOR",
    groupBy: null,
    inputs: [{ role: "data", artifactType: "csv", required: true }],
    outputs: [{ role: "out", artifactType: "csv", required: true, inferLineageFrom: { inputs: ["data"] } }],
  });
  const hash = (name: string) => `sha256:${Buffer.from(name).toString("hex").padEnd(64, "0").slice(0, 64)}`;
  const source = await without.record({ operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: Array.from({ length: FAN }, (_, j) => ({ originalName: `in_${j}.csv`, contentHash: hash(`in_${j}`) })) }] });
  const inputs = source.artifacts.map((artifact) => artifact.id);
  let i = 0;
  const recordWith = (recorder: ExecutionRecorder) => {
    const n = i++;
    return recorder.record({
      operation: "transform",
      operationVersion: "1",
      params: { n },
      inputs: [{ role: "data", artifactIds: inputs }],
      outputs: [{ role: "out", artifacts: Array.from({ length: FAN }, (_, j) => ({ originalName: `in_${j}_run${n}.csv`, contentHash: hash(`o${n}_${j}`) })) }],
    });
  };
  const blockRuns = quick ? 30 : 100;
  const block = async (recorder: ExecutionRecorder) => {
    const started = performance.now();
    for (let k = 0; k < blockRuns; k++) await recordWith(recorder);
    return (performance.now() - started) / blockRuns;
  };
  for (let k = 0; k < 20; k++) await recordWith(k % 2 ? withLog : without); // warm-up
  const ratios: number[] = [];
  const sides = { with: [] as number[], without: [] as number[] };
  for (let pair = 0; pair < (quick ? 4 : 10); pair++) {
    const order = pair % 2 === 0 ? [withLog, without] : [without, withLog];
    const ms = new Map<ExecutionRecorder, number>();
    for (const recorder of order) ms.set(recorder, await block(recorder));
    sides.with.push(ms.get(withLog)!);
    sides.without.push(ms.get(without)!);
    ratios.push(ms.get(withLog)! / ms.get(without)!);
  }
  await database.close();
  return { feedLogRatio: round(median(ratios), 3), recordMsWithFeedLog: round(mean(sides.with), 2), recordMsWithoutFeedLog: round(mean(sides.without), 2) };
}

interface Subscriber {
  received: number;
  latencies: number[];
  outOfOrder: boolean;
  subscribe(): void;
  unsubscribe(): void;
  close(): void;
}

/** A bare graphql-transport-ws client: one socket, one subscription at a time, checking order. */
function connect(httpUrl: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(httpUrl.replace(/^http/, "ws"), "graphql-transport-ws", { perMessageDeflate: false });
    let id = 0;
    let last = 0;
    const client: Subscriber = {
      received: 0,
      latencies: [],
      outOfOrder: false,
      subscribe: () => socket.send(JSON.stringify({ id: String(++id), type: "subscribe", payload: { query: FEED } })),
      unsubscribe: () => socket.send(JSON.stringify({ id: String(id), type: "complete" })),
      close: () => socket.close(),
    };
    socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init" })));
    socket.on("error", reject);
    socket.on("message", (data) => {
      const message = JSON.parse(String(data));
      if (message.type === "connection_ack") return resolve(client);
      if (message.type !== "next" || message.id !== String(id)) return;
      const event = message.payload.data?.runRecorded;
      if (!event) throw new Error(JSON.stringify(message.payload));
      client.latencies.push(Date.now() - Date.parse(event.committedAt));
      if (event.sequence <= last) client.outOfOrder = true;
      last = event.sequence;
      client.received += 1;
    });
  });
}

/** A server in a process of its own (provgraph, or the floor), ready when its output matches `listening` (the URL in group 1). */
async function startServer(script: string[], env: Record<string, string>, listening: RegExp): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [...(process.env.FEEDS_BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), "--import", "tsx", ...script], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 180_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = listening.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
      if (output.length > 100_000) output = output.slice(-10_000);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then(() => reject(new Error(`server exited:\n${output}`)));
  });
  let stopping = false;
  // A server that dies under the load is a finding: say how it ended.
  void exited.then(() => !stopping && console.error(`feeds bench: the server exited (${child.exitCode ?? child.signalCode}):\n${output.slice(-5_000)}`));
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      stopping = true;
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

/** User + system CPU time of a process so far (ms). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat (12 and 13 after the command name), in clock ticks.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

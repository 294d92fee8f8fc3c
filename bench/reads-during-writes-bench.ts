import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { lineageBody, rawClosureRunner, closureThroughApi } from "./closure-bench";
import { pgStore, sqliteStore, type Store } from "./closure-store";
import { graphqlClient } from "./http-client";
import { checkRecorded, hash, prepareProvgraph, RECORD, requestBodies, workload } from "./ingest-workload";
import { quantile, round } from "./interleave";
import { dropPgDatabase, pgDatabaseUrl } from "./pg-databases";
import { startServerProcess } from "./server-process";

/**
 * Reads while writing: a client reads a closure again and again (the 100k-edge store, backward from
 * the last layer, 8 hops) while one client records a 30,000-output execution and 8 clients record
 * 10 → 10 executions back to back. The closure's latencies over the big write (p50, p99, max) are
 * compared with the same reads on an idle server. On a copy of the store, so the store stays as
 * generated.
 */
export interface ReadsDuringWritesResult {
  database: "sqlite" | "postgres";
  bigOutputs: number;
  writers: number;
  closureNodes: number;
  idleP50Ms: number;
  idleP99Ms: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  reads: number;
  bigWriteMs: number;
  writerExecutionsPerSec: number;
  rawClosureMs: number;
}

/** The big recording's outputs: 30,000 as issue 12 measures it; --quick records 10,000 (the table says which). */
const BIG_OUTPUTS = 30_000;
const QUICK_BIG_OUTPUTS = 10_000;
const BIG_INPUTS = 300;
const WRITERS = 8;
const MAX_DEPTH = 8;

export async function runReadsDuringWritesBench(options: { quick: boolean; log: (line: string) => void; dataDir: string; pgUrl?: string }): Promise<ReadsDuringWritesResult> {
  const database = options.pgUrl ? "postgres" : "sqlite";
  const bigOutputs = options.quick ? QUICK_BIG_OUTPUTS : BIG_OUTPUTS;
  const base = options.pgUrl ? await pgStore(options.pgUrl, "100k", options.log) : await sqliteStore(options.dataDir, "100k", options.log);
  const { store, drop } = options.pgUrl ? await pgCopy(options.pgUrl, base) : sqliteCopy(options.dataDir, base);
  const server = await startServerProcess({ DATABASE_URL: store.url });
  const client = graphqlClient(server.url, 1);
  const writers = graphqlClient(server.url, WRITERS + 1);
  const raw = await rawClosureRunner(store, database);
  try {
    const root = store.roots.UPSTREAM;
    const body = lineageBody(root, "UPSTREAM", "flat", MAX_DEPTH);
    const size = await closureThroughApi(client, body);
    const expected = await raw.run(root, "UPSTREAM", MAX_DEPTH);
    if (size.nodes !== expected.nodes) throw new Error(`reads-during-writes bench: GraphQL ${size.nodes} nodes, raw ${expected.nodes}`);
    const rawTimes: number[] = [];
    for (let i = 0; i < 10; i++) {
      const start = performance.now();
      await raw.run(root, "UPSTREAM", MAX_DEPTH);
      rawTimes.push(performance.now() - start);
    }
    const read = async () => {
      const start = performance.now();
      await client.post(body);
      return performance.now() - start;
    };
    const idle: number[] = [];
    for (let i = 0; i < 60; i++) idle.push(await read());

    // The writers' inputs, and the big execution's.
    const work = workload(10, 20);
    const sets = await prepareProvgraph(writers, work);
    const bodies = requestBodies(work, "writer", sets, 20_000);
    const inputNames = Array.from({ length: BIG_INPUTS }, (_, j) => `big_${j}.csv`);
    const inputs = await writers.request(RECORD, { input: { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: inputNames.map((n) => ({ originalName: n, contentHash: hash(n) })) }] } });
    const bigInput = {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: inputs.recordExecution.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id) }],
      outputs: [{ role: "out", artifacts: Array.from({ length: bigOutputs }, (_, j) => ({ originalName: `big_${j % BIG_INPUTS}_o${j}.csv`, contentHash: hash(`big_${j % BIG_INPUTS}_o${j}.csv`) })) }],
    };
    const bigBody = JSON.stringify({ query: `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename ... on RecordExecutionPayload { edgeCount } ... on Error { code message } } }`, variables: { input: bigInput } });

    let writing = true;
    let next = 0;
    let written = 0;
    const writerLoops = Array.from({ length: WRITERS }, async () => {
      while (writing) {
        checkRecorded(await writers.post(bodies[next++ % bodies.length]));
        written += 1;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 200)); // the writers are busy
    const bigStart = performance.now();
    let bigDone = false;
    const big = writers.post(bigBody).finally(() => (bigDone = true));
    const during: number[] = [];
    const writtenBefore = written;
    while (!bigDone) during.push(await read());
    const bigWriteMs = performance.now() - bigStart;
    const result = await big;
    if (result.recordExecution.edgeCount !== bigOutputs) throw new Error(`reads-during-writes bench: ${JSON.stringify(result)}`);
    const writtenDuring = written - writtenBefore;
    writing = false;
    await Promise.all(writerLoops);

    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const outcome: ReadsDuringWritesResult = {
      database,
      bigOutputs,
      writers: WRITERS,
      closureNodes: size.nodes,
      idleP50Ms: round(quantile(sorted(idle), 0.5), 1),
      idleP99Ms: round(quantile(sorted(idle), 0.99), 1),
      p50Ms: round(quantile(sorted(during), 0.5), 1),
      p99Ms: round(quantile(sorted(during), 0.99), 1),
      maxMs: round(Math.max(...during), 1),
      reads: during.length,
      bigWriteMs: Math.round(bigWriteMs),
      writerExecutionsPerSec: round((writtenDuring / bigWriteMs) * 1000, 1),
      rawClosureMs: round(quantile(sorted(rawTimes), 0.5), 1),
    };
    options.log(
      `reads during writes (${database}): closure of ${outcome.closureNodes} nodes (raw ${outcome.rawClosureMs} ms) idle p50 ${outcome.idleP50Ms} / p99 ${outcome.idleP99Ms} ms; ` +
        `while a ${bigOutputs.toLocaleString()}-output execution is recorded (${outcome.bigWriteMs} ms) and ${WRITERS} clients write (${outcome.writerExecutionsPerSec}/s): ` +
        `${outcome.reads} reads, p50 ${outcome.p50Ms} ms, p99 ${outcome.p99Ms} ms, max ${outcome.maxMs} ms`,
    );
    return outcome;
  } finally {
    client.close();
    writers.close();
    await raw.close();
    await server.stop();
    await drop();
  }
}

/** A throwaway copy of a SQLite store. */
function sqliteCopy(dataDir: string, base: Store): { store: Store; drop: () => Promise<void> } {
  const file = path.join(dataDir, "reads-during-writes.db");
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  fs.copyFileSync(base.file!, file);
  return { store: { ...base, file, url: `file:${file}` }, drop: async () => void fs.rmSync(file, { force: true }) };
}

/** A throwaway copy of a PostgreSQL store (CREATE DATABASE … TEMPLATE). */
async function pgCopy(adminUrl: string, base: Store): Promise<{ store: Store; drop: () => Promise<void> }> {
  const name = "provgraph_bench_reads_during_writes";
  const template = new URL(base.url).pathname.slice(1);
  await dropPgDatabase(adminUrl, name);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await admin.end();
  }
  return { store: { ...base, file: null, url: pgDatabaseUrl(adminUrl, name) }, drop: () => dropPgDatabase(adminUrl, name) };
}

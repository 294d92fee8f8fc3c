import fs from "node:fs";
import path from "node:path";
import { graphqlClient } from "./http-client";
import { checkRecorded, prepareProvgraph, rawPgWriter, rawSqliteWriter, requestBodies, workload } from "./ingest-workload";
import { interleave } from "./interleave";
import { createPgDatabase } from "./pg-databases";
import { startServerProcess } from "./server-process";

/**
 * Group commit under concurrency: 8 clients, each recording executions of 10 inputs → 10 outputs one
 * after another over its own connection, against the same rows written raw one transaction per
 * execution (the rate without group commit) and raw in transactions of 8 executions (one per client:
 * batched as group commit batches them at best). Interleaved blocks; ratios are medians of per-block
 * ratios of throughput.
 */
export interface ConcurrencyResult {
  database: "sqlite" | "postgres";
  /** SQLite: the synchronous setting of all three sides (FULL: every commit fsyncs). */
  synchronous?: "NORMAL" | "FULL";
  clients: number;
  /** WORKERS the server ran with (absent: one process). */
  workers?: number;
  fan: number;
  blocks: number;
  executionsPerBlock: number;
  provgraphPerSec: number;
  rawPerSec: number;
  rawBatchedPerSec: number;
  /** provgraph ÷ raw one transaction per execution (goal ≥ 2). */
  ratioToRaw: number;
  /** provgraph ÷ raw batched 8 to a transaction (goal ≥ 0.5). */
  ratioToBatched: number;
  serverCpuMs: number;
  ratioToRawMin: number;
  ratioToRawMax: number;
}

const CLIENTS = 8;
const FAN = 10;
const POOL = 20;

export async function runConcurrencyBench(options: { quick: boolean; log: (line: string) => void; dataDir: string; pgUrl?: string; synchronous?: "NORMAL" | "FULL"; workers?: number }): Promise<ConcurrencyResult> {
  const synchronous = options.synchronous ?? "NORMAL";
  const blocks = options.quick ? 6 : 12;
  const perBlock = CLIENTS * (options.quick ? 6 : 12);
  const warmup = CLIENTS * 3;
  const work = workload(FAN, POOL);
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    let serverUrl: string;
    let raw: { record(first: number, count: number, perTransaction?: number): unknown; close(): unknown };
    let batched: typeof raw;
    if (options.pgUrl) {
      const served = await createPgDatabase(options.pgUrl, "concurrency");
      const rawDb = await createPgDatabase(options.pgUrl, "concurrency_raw");
      const batchedDb = await createPgDatabase(options.pgUrl, "concurrency_batched");
      cleanups.push(served.drop, rawDb.drop, batchedDb.drop);
      serverUrl = served.url;
      raw = await rawPgWriter(rawDb.url, work, "raw");
      batched = await rawPgWriter(batchedDb.url, work, "batched");
    } else {
      fs.mkdirSync(options.dataDir, { recursive: true });
      const files = ["concurrency-provgraph.db", "concurrency-raw.db", "concurrency-batched.db"].map((name) => path.join(options.dataDir, name));
      for (const file of files) for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
      serverUrl = `file:${files[0]}`;
      raw = await rawSqliteWriter(files[1], work, "raw", synchronous);
      batched = await rawSqliteWriter(files[2], work, "batched", synchronous);
    }
    cleanups.unshift(async () => void (await raw.close()), async () => void (await batched.close()));
    // WORKERS: server processes on the port (PostgreSQL); their CPU is counted with the primary's.
    const server = await startServerProcess({ DATABASE_URL: serverUrl, ...(options.pgUrl ? {} : { SQLITE_SYNCHRONOUS: synchronous }), ...(options.workers ? { WORKERS: String(options.workers) } : {}) });
    cleanups.unshift(() => server.stop());
    const client = graphqlClient(server.url, CLIENTS);
    cleanups.unshift(() => client.close());
    const sets = await prepareProvgraph(client, work);
    const bodies = requestBodies(work, "provgraph", sets, warmup + blocks * perBlock);

    const measured = await interleave(
      [
        {
          name: "provgraph",
          // The block's executions dealt to the clients; each client records its share one after another.
          runBlock: async (first, count) => {
            await Promise.all(
              Array.from({ length: CLIENTS }, async (_, c) => {
                for (let i = first + c; i < first + count; i += CLIENTS) checkRecorded(await client.post(bodies[i]));
              }),
            );
          },
          remoteCpuMs: () => server.cpuMs(),
        },
        { name: "raw", runBlock: async (first, count) => void (await raw.record(first, count, 1)) },
        { name: "batched", runBlock: async (first, count) => void (await batched.record(first, count, CLIENTS)) },
      ],
      { blocks, perBlock, warmup },
    );
    const spread = measured.ratioSpread("provgraph", "raw");
    const result: ConcurrencyResult = {
      database: options.pgUrl ? "postgres" : "sqlite",
      ...(options.pgUrl ? {} : { synchronous }),
      ...(options.workers ? { workers: options.workers } : {}),
      clients: CLIENTS,
      fan: FAN,
      blocks,
      executionsPerBlock: perBlock,
      provgraphPerSec: measured.sides.provgraph.perSec,
      rawPerSec: measured.sides.raw.perSec,
      rawBatchedPerSec: measured.sides.batched.perSec,
      ratioToRaw: measured.ratio("provgraph", "raw"),
      ratioToBatched: measured.ratio("provgraph", "batched"),
      serverCpuMs: measured.sides.provgraph.remoteCpuMsPerOp!,
      ratioToRawMin: spread.min,
      ratioToRawMax: spread.max,
    };
    options.log(
      `concurrency (${result.database}${options.pgUrl ? "" : `, synchronous ${synchronous}`}) ${CLIENTS} clients × ${FAN}→${FAN}: provgraph ${result.provgraphPerSec}/s (server CPU ${result.serverCpuMs} ms/execution), ` +
        `raw one transaction each ${result.rawPerSec}/s, raw ${CLIENTS} to a transaction ${result.rawBatchedPerSec}/s; ` +
        `ratio to raw ${result.ratioToRaw} (blocks ${spread.min}–${spread.max}), to raw batched ${result.ratioToBatched}`,
    );
    return result;
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

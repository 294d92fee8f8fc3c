import fs from "node:fs";
import path from "node:path";
import { graphqlClient } from "./http-client";
import { checkRecorded, prepareProvgraph, rawPgWriter, rawSqliteWriter, requestBodies, workload } from "./ingest-workload";
import { interleave } from "./interleave";
import { createPgDatabase } from "./pg-databases";
import { startServerProcess } from "./server-process";

/**
 * Sequential ingest: one client records executions of 50 inputs → 50 outputs (stem-matched, one edge
 * each) through GraphQL over HTTP on loopback, against the same rows written raw (better-sqlite3
 * prepared statements, or the same SQL through `pg`), one transaction per execution on both sides,
 * same database settings. The server runs in a process of its own, so its CPU time is its own; the
 * two sides run in alternating blocks and `ratio` is the median of the per-block ratios of
 * throughput (provgraph ÷ raw).
 */
export interface IngestResult {
  database: "sqlite" | "postgres";
  fan: number;
  blocks: number;
  executionsPerBlock: number;
  provgraphMsPerExecution: number;
  rawMsPerExecution: number;
  provgraphPerSec: number;
  rawPerSec: number;
  ratio: number;
  /** CPU ms per execution: the server process, the load-generating client, the raw side. */
  serverCpuMs: number;
  clientCpuMs: number;
  rawCpuMs: number;
  /** The noise seen: per-block ratios' range, and slowest ÷ fastest raw block. */
  ratioMin: number;
  ratioMax: number;
  rawSwing: number;
}

const FAN = 50;
const POOL = 20;

export async function runIngestBench(options: { quick: boolean; log: (line: string) => void; dataDir: string; pgUrl?: string }): Promise<IngestResult> {
  const blocks = options.quick ? 10 : 20;
  const perBlock = options.quick ? 10 : 25;
  const warmup = options.quick ? 10 : 20;
  const total = warmup + blocks * perBlock;
  const work = workload(FAN, POOL);
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    let serverUrl: string;
    let raw: { record(first: number, count: number): unknown; close(): unknown };
    if (options.pgUrl) {
      const served = await createPgDatabase(options.pgUrl, "ingest");
      const rawDb = await createPgDatabase(options.pgUrl, "ingest_raw");
      cleanups.push(served.drop, rawDb.drop);
      serverUrl = served.url;
      raw = await rawPgWriter(rawDb.url, work, "raw");
    } else {
      fs.mkdirSync(options.dataDir, { recursive: true });
      const served = path.join(options.dataDir, "ingest-provgraph.db");
      const rawFile = path.join(options.dataDir, "ingest-raw.db");
      for (const file of [served, rawFile]) for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
      serverUrl = `file:${served}`;
      raw = await rawSqliteWriter(rawFile, work, "raw");
    }
    cleanups.unshift(async () => void (await raw.close()));
    const server = await startServerProcess({ DATABASE_URL: serverUrl });
    cleanups.unshift(() => server.stop());
    const client = graphqlClient(server.url);
    cleanups.unshift(() => client.close());
    const sets = await prepareProvgraph(client, work);
    const bodies = requestBodies(work, "provgraph", sets, total);

    const measured = await interleave(
      [
        { name: "provgraph", run: async (i) => checkRecorded(await client.post(bodies[i])), remoteCpuMs: () => server.cpuMs() },
        { name: "raw", runBlock: async (first, count) => void (await raw.record(first, count)) },
      ],
      { blocks, perBlock, warmup },
    );
    const p = measured.sides.provgraph;
    const r = measured.sides.raw;
    const spread = measured.ratioSpread("provgraph", "raw");
    const result: IngestResult = {
      database: options.pgUrl ? "postgres" : "sqlite",
      fan: FAN,
      blocks,
      executionsPerBlock: perBlock,
      provgraphMsPerExecution: p.msPerOp,
      rawMsPerExecution: r.msPerOp,
      provgraphPerSec: p.perSec,
      rawPerSec: r.perSec,
      ratio: measured.ratio("provgraph", "raw"),
      serverCpuMs: p.remoteCpuMsPerOp!,
      clientCpuMs: p.cpuMsPerOp,
      rawCpuMs: r.cpuMsPerOp,
      ratioMin: spread.min,
      ratioMax: spread.max,
      rawSwing: measured.swing("raw"),
    };
    options.log(
      `ingest (${result.database}) ${FAN}→${FAN}, ${blocks} blocks × ${perBlock}: provgraph ${p.msPerOp} ms/execution (server CPU ${result.serverCpuMs} ms, client ${result.clientCpuMs} ms), ` +
        `raw ${r.msPerOp} ms (CPU ${r.cpuMsPerOp} ms); ratio ${result.ratio} (blocks ${spread.min}–${spread.max}; raw blocks swing ${result.rawSwing}×)`,
    );
    return result;
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

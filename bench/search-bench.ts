import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { defaultPlugins } from "../plugins/registry";
import { openDatabase, pgSessionOptions } from "../src/db/client";
import { migrateDatabase } from "../src/db/migrate";
import { followPlanModesOnConnection, type PgClientLike } from "../src/db/plan-modes";
import { preparedStatementName } from "../src/db/prepared-statements";
import { registerStopFunction } from "../src/db/statement-stop";
import { createComplianceEngines, settleUnitSubjects } from "../src/services/compliance";
import { indexSearchableWrites, searchPage, type SearchReader } from "../src/services/discovery";
import { FeedLog } from "../src/services/feeds";
import { ExecutionRecorder, GroupCommit, OperationRegistry, runPropagatePlugins, type UnitFinisher } from "../src/services/recording";
import { graphqlClient } from "./http-client";
import { median, quantile, round } from "./interleave";
import { createPgDatabase } from "./pg-databases";
import { pgSearchStore, type SearchStore, sqliteSearchStore } from "./search-store";
import { startServerProcess } from "./server-process";

/**
 * Search over the 1M-artifact store (bench/search-store.ts): `autocomplete` as a search box calls it
 * while a name is typed, and `search` for whole queries, through GraphQL over HTTP on loopback from a
 * server in a process of its own — interleaved, in blocks whose order alternates (ABBA), with the very
 * statements the server runs for each request (captured from the search core), run raw on the store
 * (better-sqlite3, or `pg`). p50/p99 are over every request of the measured blocks; a ratio is the
 * median over blocks of (GraphQL time ÷ raw time) for the block's whole mix.
 *
 * And the cost of keeping the index on the recording path: the same 50 → 50 recordExecution with the
 * search index kept in its unit and without (everything else alike: the unit finisher's other stages,
 * the feed log), interleaved ABBA over one database.
 */
export interface SearchBenchResult {
  database: "sqlite" | "postgres";
  artifacts: number;
  blocks: number;
  autocomplete: SideFigures;
  search: SideFigures;
  /** The recording path with the search index kept in its unit vs without. */
  indexing: { msWith: number; msWithout: number; ratio: number; ratioMin: number; ratioMax: number; fan: number };
  generateMs: number;
  /** The machine's load average (1, 5, 15 min) when the rows were measured: absolute times swing with it, the ratios much less. */
  loadAverage: number[];
}

export interface SideFigures {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  rawP50Ms: number;
  rawP99Ms: number;
  ratio: number;
  ratioMin: number;
  ratioMax: number;
  /**
   * The floor under any request: \`{ __typename }\` posted as often, on the same connection, in the
   * same blocks (HTTP on loopback, Yoga, the client's own cost); and the median over blocks of
   * (raw + floor) ÷ raw, the ratio a request over HTTP reaches if its statements cost what they cost
   * raw and nothing else did.
   */
  floorP50Ms?: number;
  floorRatio?: number;
}

/** Prefixes typed one character at a time, as a search box sends them. */
const TYPED = ["customer", "raw/cust", "2024-03-1", "fraud_sc", "part-0004", "analytics.inv", "email_a", "airflow-"];
export const AUTOCOMPLETE_MIX = TYPED.flatMap((word) => Array.from({ length: word.length }, (_, i) => word.slice(0, i + 1)));
/** Whole queries: names, parts of names, ids, descriptions, and one that finds nothing. */
export const SEARCH_MIX = [
  "orders",
  "customer_orders/2024-05",
  "part-00042",
  "sessions",
  "ession",
  "fraud_scores_etl",
  "analytics.fraud_scores_1",
  "2024-03-17/part-0",
  "ledger entries",
  "email address",
  "country code",
  "airflow-3",
  "inventory_snapshot/2025-01",
  "zzzz",
];

const AUTOCOMPLETE = `query($q: String!) { autocomplete(prefix: $q, first: 10) { kind id label rank highlights { start end } } }`;
/** An empty request: what HTTP, Yoga and the client cost whatever the request asks. */
const FLOOR_BODY = JSON.stringify({ query: "{ __typename }" });
const SEARCH = `query($q: String!) { search(query: $q, first: 20) { edges { cursor node { kind id label detail rank highlights { start end } } } pageInfo { hasNextPage endCursor } } }`;

interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** The raw side: for each query, the statements the search core ran for it, replayed on the store. */
async function rawReplayer(store: SearchStore, database: "sqlite" | "postgres") {
  if (database === "sqlite") {
    const db = new BetterSqlite3(store.file!, { readonly: true });
    // As on provgraph's read connections: a lane's rest calls it (statement-stop.ts).
    registerStopFunction(db);
    const prepared = new Map<string, BetterSqlite3.Statement>();
    return {
      reader: {
        provider: "sqlite" as const,
        readRows: async (sql: string, params: readonly unknown[]) => {
          let st = prepared.get(sql);
          if (!st) prepared.set(sql, (st = db.prepare(sql).raw(true)));
          return { columnNames: [], rows: st.all(...params) as unknown[][] };
        },
      },
      replay: (statements: readonly Statement[]) => {
        for (const { sql, params } of statements) {
          let st = prepared.get(sql);
          if (!st) prepared.set(sql, (st = db.prepare(sql).raw(true)));
          st.all(...params);
        }
      },
      close: async () => db.close(),
    };
  }
  // The raw side runs the statements as provgraph does: the same session settings (JIT off), those
  // provgraph runs prepared (src/db/prepared-statements.ts) prepared too, so neither side plans them each
  // time, and on one generic plan where provgraph keeps one (src/db/plan-modes.ts).
  const client = new pg.Client({ connectionString: store.url, ...pgSessionOptions(store.url) });
  followPlanModesOnConnection(client as unknown as PgClientLike);
  await client.connect();
  const run = async (sql: string, params: readonly unknown[]) => (await client.query({ name: preparedStatementName(sql), text: sql, values: [...params], rowMode: "array" })).rows;
  return {
    reader: { provider: "postgres" as const, readRows: async (sql: string, params: readonly unknown[]) => ({ columnNames: [], rows: await run(sql, params) }) },
    replay: async (statements: readonly Statement[]) => {
      for (const { sql, params } of statements) await run(sql, params);
    },
    close: () => client.end(),
  };
}

/** The statements searchPage runs for a query, in order (captured through a reader that runs them). */
async function statementsOf(reader: SearchReader, query: string, first: number): Promise<Statement[]> {
  const statements: Statement[] = [];
  const capturing: SearchReader = {
    provider: reader.provider,
    readRows: (sql, params) => {
      statements.push({ sql, params });
      return reader.readRows(sql, params);
    },
  };
  await searchPage(capturing, { query, first, canRead: async (subjects) => subjects.map(() => true) });
  return statements;
}

export async function runSearchBench(options: { quick: boolean; log: (line: string) => void; dataDir: string; pgUrl?: string }): Promise<SearchBenchResult> {
  const database = options.pgUrl ? "postgres" : "sqlite";
  const store = options.pgUrl ? await pgSearchStore(options.pgUrl, options.log) : await sqliteSearchStore(options.dataDir, options.log);
  const server = await startServerProcess({ DATABASE_URL: store.url });
  const client = graphqlClient(server.url);
  const raw = await rawReplayer(store, database);
  const blocks = options.quick ? 4 : 12;
  try {
    // The id-shaped queries: a run's UUID start and an artifact id's, from the store.
    const searchMix = [...SEARCH_MIX, store.sampleRunId.slice(4, 12), store.sampleArtifactId.slice(0, 12)];
    const measure = async (mix: readonly string[], document: string, first: number): Promise<SideFigures> => {
      const statements = new Map<string, Statement[]>();
      for (const q of mix) statements.set(q, await statementsOf(raw.reader, q.trim(), first));
      const latencies: number[] = [];
      const rawLatencies: number[] = [];
      const floorLatencies: number[] = [];
      const ratios: number[] = [];
      const floorRatios: number[] = [];
      const bodies = mix.map((q) => JSON.stringify({ query: document, variables: { q } }));
      for (let block = -1; block < blocks; block++) {
        // ABBA: the server first in even blocks, the raw statements first in odd ones, the floor between; block -1 warms them.
        const order = block % 2 === 0 ? (["server", "floor", "raw"] as const) : (["raw", "floor", "server"] as const);
        const sums = { server: 0, raw: 0, floor: 0 };
        const kept = { server: latencies, raw: rawLatencies, floor: floorLatencies };
        for (const side of order) {
          for (let i = 0; i < mix.length; i++) {
            const start = performance.now();
            if (side === "server") await client.post(bodies[i]);
            else if (side === "floor") await client.post(FLOOR_BODY);
            else await raw.replay(statements.get(mix[i])!);
            const ms = performance.now() - start;
            sums[side] += ms;
            if (block >= 0) kept[side].push(ms);
          }
        }
        if (block >= 0) {
          ratios.push(sums.server / sums.raw);
          floorRatios.push((sums.raw + sums.floor) / sums.raw);
        }
      }
      const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
      const sortedRatios = sorted(ratios);
      return {
        requests: latencies.length,
        p50Ms: round(quantile(sorted(latencies), 0.5), 2),
        p99Ms: round(quantile(sorted(latencies), 0.99), 2),
        rawP50Ms: round(quantile(sorted(rawLatencies), 0.5), 2),
        rawP99Ms: round(quantile(sorted(rawLatencies), 0.99), 2),
        ratio: round(median(ratios), 3),
        ratioMin: round(sortedRatios[0], 3),
        ratioMax: round(sortedRatios[sortedRatios.length - 1], 3),
        floorP50Ms: round(quantile(sorted(floorLatencies), 0.5), 2),
        floorRatio: round(median(floorRatios), 3),
      };
    };
    const autocomplete = await measure(AUTOCOMPLETE_MIX, AUTOCOMPLETE, 10);
    options.log(`search bench (${database}): autocomplete p50 ${autocomplete.p50Ms} ms, p99 ${autocomplete.p99Ms} ms (raw p99 ${autocomplete.rawP99Ms} ms), ×${autocomplete.ratio}; floor p50 ${autocomplete.floorP50Ms} ms, raw + floor ×${autocomplete.floorRatio}`);
    const search = await measure(searchMix, SEARCH, 20);
    options.log(`search bench (${database}): search p50 ${search.p50Ms} ms, p99 ${search.p99Ms} ms (raw p99 ${search.rawP99Ms} ms), ×${search.ratio}; floor p50 ${search.floorP50Ms} ms, raw + floor ×${search.floorRatio}`);
    client.close();
    await server.stop();
    await raw.close();
    const indexing = await measureIndexing(options, database);
    options.log(`search bench (${database}): indexing on the recording path ×${indexing.ratio} (${indexing.msWith} vs ${indexing.msWithout} ms per ${indexing.fan} → ${indexing.fan} recording)`);
    const loadAverage = os.loadavg().map((l) => Math.round(l * 100) / 100);
    return { database, artifacts: store.shape.artifacts, blocks, autocomplete, search, indexing, generateMs: Math.round(store.generateMs), loadAverage };
  } catch (error) {
    client.close();
    await server.stop().catch(() => undefined);
    await raw.close().catch(() => undefined);
    throw error;
  }
}

/** The recorder with the search index kept in its units and without, everything else alike, in ABBA blocks over one database. */
async function measureIndexing(options: { quick: boolean; dataDir: string; pgUrl?: string }, provider: "sqlite" | "postgres"): Promise<SearchBenchResult["indexing"]> {
  let url: string;
  let drop = async () => {};
  if (options.pgUrl) {
    const created = await createPgDatabase(options.pgUrl, "search_indexing");
    url = created.url;
    drop = created.drop;
  } else {
    const file = path.join(options.dataDir, "search-indexing.db");
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    url = `file:${file}`;
  }
  await migrateDatabase(url);
  const database = openDatabase(url);
  try {
    const engines = createComplianceEngines(database, { erasureSecret: null });
    // The finisher services.ts composes, with the search index and without it.
    const finisher =
      (index: boolean): UnitFinisher =>
      async (tx, writes) => {
        await settleUnitSubjects(engines, tx, writes);
        await runPropagatePlugins(tx, defaultPlugins, writes, { tagFlow: engines.tagFlow });
        if (index) await indexSearchableWrites(tx, provider, writes.searchable);
      };
    const registry = new OperationRegistry(database.prisma);
    const recorder = (index: boolean) => new ExecutionRecorder(new GroupCommit(database, { journal: new FeedLog(database.primaryReader, provider), finishUnit: finisher(index) }), registry, defaultPlugins);
    const withIndex = recorder(true);
    const without = recorder(false);
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
    const source = await without.record({ operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: Array.from({ length: FAN }, (_, j) => ({ originalName: `raw/orders/part-${j}.csv`, contentHash: hash(`in_${j}`) })) }] });
    const inputs = source.artifacts.map((artifact) => artifact.id);
    let n = 0;
    const record = (side: ExecutionRecorder) => {
      const i = n++;
      return side.record({
        operation: "transform",
        operationVersion: "1",
        params: { i },
        inputs: [{ role: "data", artifactIds: inputs }],
        outputs: [{ role: "out", artifacts: Array.from({ length: FAN }, (_, j) => ({ originalName: `raw/orders/part-${j}_run${i}.csv`, contentHash: hash(`o${i}_${j}`) })) }],
      });
    };
    const perBlock = options.quick ? 30 : 100;
    const block = async (side: ExecutionRecorder) => {
      const started = performance.now();
      for (let k = 0; k < perBlock; k++) await record(side);
      return (performance.now() - started) / perBlock;
    };
    for (let k = 0; k < 20; k++) await record(k % 2 ? withIndex : without);
    const ratios: number[] = [];
    const times = { with: [] as number[], without: [] as number[] };
    for (let pair = 0; pair < (options.quick ? 4 : 10); pair++) {
      const order = pair % 2 === 0 ? [withIndex, without] : [without, withIndex];
      const ms = new Map<ExecutionRecorder, number>();
      for (const side of order) ms.set(side, await block(side));
      times.with.push(ms.get(withIndex)!);
      times.without.push(ms.get(without)!);
      ratios.push(ms.get(withIndex)! / ms.get(without)!);
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    return { msWith: round(median(times.with), 2), msWithout: round(median(times.without), 2), ratio: round(median(ratios), 3), ratioMin: round(sorted[0], 3), ratioMax: round(sorted[sorted.length - 1], 3), fan: FAN };
  } finally {
    await database.close();
    await drop();
  }
}

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { pgSessionOptions } from "../src/db/client";
import { migrateDatabase } from "../src/db/migrate";
import { registerStopFunction } from "../src/db/statement-stop";
import { preparedStatementName } from "../src/db/prepared-statements";
import type { RawRows } from "../src/db/direct-statements";
import { artifactIdFor, digest40, operationIdFor, specIdFrom } from "../src/services/ids";
import { type GraphReadClient, LINEAGE_GRAPH_READS } from "../src/services/lineage-graph";
import { artifactAt, pgStore, sqliteStore, type Store, STORE_SHAPES } from "./closure-store";
import { type GraphQLClient, graphqlClient } from "./http-client";
import { EXPLORER_DEPTH, EXPLORER_EXPAND_QUERY, EXPLORER_FIRST, EXPLORER_GRAPH_QUERY, expandTarget } from "./explorer-requests";
import { interleave, quantile, round } from "./interleave";
import { createPgDatabase } from "./pg-databases";
import { startServerProcess } from "./server-process";

/**
 * The UI graph API (lineageGraph, lineagePath) read through GraphQL over HTTP on loopback from a
 * server in a process of its own, interleaved (blocks alternating, order rotated) with the very
 * statements the server runs, replayed raw on the same database (better-sqlite3 `.raw().all()`, or
 * `pg` in array mode) — recorded by running the same pure function over a recording read client:
 *  - hub: lineageGraph depth 1 around an artifact 200 runs used, each deriving a child (403 nodes,
 *    every node's counts), on a store of its own: p50 / p99 latency (of the measured requests, not the
 *    warm-up's; so for every latency below) and the ratio to raw;
 *  - depth 3 BOTH around an artifact in the middle of the 1.05M-edge store: the ratio to raw;
 *  - lineagePath between two artifacts of that store 12 layers (hops) apart: p50 / p99 latency;
 *  - the Explorer's two requests on that store (explorer-requests.ts), the server's side of the page's
 *    goals: the neighbourhood a search result opens (depth 10, 200 nodes, laid out) and the expand
 *    of a "+N" on it; p50 / p99 latency and the ratio to raw (raw: the statements alone — the
 *    layout is the server's own work).
 */
export interface GraphBenchResult extends HubBenchResult {
  database: "sqlite" | "postgres";
  edges: number;
  depth3Nodes: number;
  depth3Edges: number;
  depth3Ms: number;
  depth3RawMs: number;
  depth3Ratio: number;
  depth3RatioMin: number;
  depth3RatioMax: number;
  depth3ServerCpuMs: number;
  depth3RawCpuMs: number;
  /**
   * The floor under any request: `{ __typename }` posted on the same connection, interleaved with
   * the two sides (HTTP on loopback, Yoga, the client's own cost), and 1 + floor ÷ raw, the ratio a
   * request over HTTP reaches if its statements cost what they cost raw and nothing else did.
   */
  depth3FloorMs?: number;
  depth3FloorRatio?: number;
  pathHops: number;
  pathCount: number;
  pathP50Ms: number;
  pathP99Ms: number;
  pathRawMs: number;
  pathStatements: number;
  pathServerCpuMs: number;
  explorerOpenNodes: number;
  explorerOpenP50Ms: number;
  explorerOpenP99Ms: number;
  explorerOpenRawMs: number;
  explorerOpenRatio: number;
  explorerOpenServerCpuMs: number;
  explorerExpandAdded: number;
  explorerExpandP50Ms: number;
  explorerExpandP99Ms: number;
  explorerExpandRawMs: number;
  explorerExpandRatio: number;
  explorerExpandServerCpuMs: number;
  blocks: number;
  /** When, and at what load (1, 5, 15 min) the run ended: absolute figures on a shared machine depend on it. */
  measuredAt?: string;
  loadAverage?: number[];
}

const HUB_CONSUMERS = 200;
const PATH_HOPS = 12;

const GRAPH_QUERY = `query($roots: [ID!]!, $direction: GraphDirection, $depth: Int, $first: Int) {
  lineageGraph(roots: $roots, direction: $direction, depth: $depth, first: $first) {
    truncated nodes { id kind depth upstreamCount downstreamCount hiddenUpstream hiddenDownstream } edges { id kind source target } } }`;
/** An empty request: what HTTP, Yoga and the client cost whatever the request asks. */
const FLOOR_BODY = JSON.stringify({ query: "{ __typename }" });
const PATH_QUERY = `query($from: ID!, $to: ID!) { lineagePath(from: $from, to: $to, maxPaths: 10, maxDepth: 20) { truncated paths { length nodeIds } } }`;

/**
 * A read posted again when its keep-alive socket was closed under it: between two GraphQL blocks the
 * raw side runs, and on a loaded machine that can outlast the server's keep-alive timeout (5 s). Only
 * the attempt that was answered is timed: the reset is the harness's idle socket, not the server's work.
 */
async function postTimed(client: GraphQLClient, body: string): Promise<{ data: any; ms: number }> {
  for (let attempt = 0; ; attempt++) {
    const start = performance.now();
    try {
      const data = await client.post(body);
      return { data, ms: performance.now() - start };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt > 0 || (code !== "ECONNRESET" && code !== "EPIPE")) throw error;
    }
  }
}

/**
 * A side that posts `body` and keeps the latency of each measured request: interleave runs a side's
 * warm-up through the same function, and the warm-up's requests are not kept (the first on a new
 * server, tens of ms, made the p99 of the rows that take few requests).
 */
function latencySide(client: GraphQLClient, body: string, latencies: number[]) {
  return async (_i: number, warmUp: boolean) => {
    const { ms } = await postTimed(client, body);
    if (!warmUp) latencies.push(ms);
  };
}

/** Statements as one request runs them, replayable raw. */
interface Recorded {
  statements: { sql: string; params: unknown[] }[];
}

/** A raw client for one store: runs statements, and records what a pure graph function runs through it. */
async function rawClient(database: "sqlite" | "postgres", url: string, file: string | null) {
  if (database === "sqlite") {
    const db = new BetterSqlite3(file!, { readonly: true });
    // As on provgraph's connections: the walks call it (statement-stop.ts).
    registerStopFunction(db);
    const prepared = new Map<string, BetterSqlite3.Statement>();
    const run = (sql: string, params: readonly unknown[]): RawRows => {
      let st = prepared.get(sql);
      if (!st) prepared.set(sql, (st = db.prepare(sql).safeIntegers(false)));
      return { columnNames: st.columns().map((c) => c.name), rows: st.raw(true).all(...params) as unknown[][] };
    };
    return { run: async (sql: string, params: readonly unknown[]) => run(sql, params), close: async () => db.close() };
  }
  // The raw side runs the statements as provgraph does: the same session settings (JIT off), and those
  // provgraph runs prepared (src/db/prepared-statements.ts) prepared too, so neither side plans them each time.
  const client = new pg.Client({ connectionString: url, ...pgSessionOptions(url) });
  await client.connect();
  return {
    run: async (sql: string, params: readonly unknown[]): Promise<RawRows> => {
      const result = await client.query({ name: preparedStatementName(sql), text: sql, values: params as unknown[], rowMode: "array" });
      return { columnNames: result.fields.map((f) => f.name), rows: result.rows as unknown[][] };
    },
    close: () => client.end(),
  };
}

async function record(database: "sqlite" | "postgres", raw: { run: (sql: string, params: readonly unknown[]) => Promise<RawRows> }, compute: (reader: GraphReadClient) => Promise<unknown>): Promise<Recorded> {
  const statements: Recorded["statements"] = [];
  await compute({
    provider: database,
    readRows: async (sql, params) => {
      statements.push({ sql, params: [...params] });
      return raw.run(sql, params);
    },
  });
  return { statements };
}

/** The hub store: hub.csv, made by one run from a source, used by 200 runs each deriving a child. */
async function hubStore(dataDir: string, pgUrl: string | undefined): Promise<{ url: string; file: string | null; hub: string; drop: () => Promise<void> }> {
  const hub = artifactIdFor("csv", "sha256:bench-hub");
  const artifacts: unknown[][] = [[hub, "csv", "sha256:bench-hub", "hub.csv"], [artifactIdFor("csv", "sha256:bench-hub-source"), "csv", "sha256:bench-hub-source", "source.csv"]];
  const runs: unknown[][] = [];
  const links: unknown[][] = [];
  const edges: unknown[][] = [];
  const operation = operationIdFor("bench-use", "1");
  const runId = (i: number) => `run_${digest40("hub", String(i)).slice(0, 8)}-0000-7000-8000-${digest40("hub", String(i)).slice(8, 20)}`;
  runs.push([runId(-1), specIdFrom("hub/-1")]);
  links.push([runId(-1), artifacts[1][0], "CONSUMED", "data", 0], [runId(-1), hub, "PRODUCED", "out", 0]);
  edges.push([artifacts[1][0], hub, runId(-1), "INDEPENDENT", `grp_${digest40("hub-src")}`, "csv", "csv"]);
  for (let i = 0; i < HUB_CONSUMERS; i++) {
    const child = artifactIdFor("csv", `sha256:bench-hub-child-${i}`);
    artifacts.push([child, "csv", `sha256:bench-hub-child-${i}`, `child-${i}.csv`]);
    runs.push([runId(i), specIdFrom(`hub/${i}`)]);
    links.push([runId(i), hub, "CONSUMED", "data", 0], [runId(i), child, "PRODUCED", "out", 0]);
    edges.push([hub, child, runId(i), "INDEPENDENT", `grp_${digest40("hub", String(i))}`, "csv", "csv"]);
  }
  const now = new Date().toISOString();
  if (!pgUrl) {
    const file = path.join(dataDir, "graph-hub.db");
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    await migrateDatabase(`file:${file}`);
    const db = new BetterSqlite3(file);
    const stamp = now.replace("Z", "+00:00");
    db.transaction(() => {
      db.prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, 'bench-use', '1', 'CREATOR', '{}', ?)`).run(operation, stamp);
      for (const a of artifacts) db.prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "createdAt") VALUES (?, ?, ?, ?, ?)`).run(...a, stamp);
      for (const r of runs) db.prepare(`INSERT INTO "Execution" ("runId", "specId", "operationId", status, "recordedAt") VALUES (?, ?, ?, 'COMPLETED', ?)`).run(r[0], r[1], operation, stamp);
      for (const l of links) db.prepare(`INSERT INTO "ExecutionArtifact" ("runId", "artifactId", direction, role, position) VALUES (?, ?, ?, ?, ?)`).run(...l);
      for (const e of edges) db.prepare(`INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "groupId", "stepBoundary", "sourceType", "targetType", "createdAt") VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)`).run(...e, stamp);
    })();
    db.close();
    return { url: `file:${file}`, file, hub, drop: async () => undefined };
  }
  const { url, drop } = await createPgDatabase(pgUrl, "graph_hub");
  await migrateDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ($1, 'bench-use', '1', 'CREATOR', '{}', now())`, [operation]);
    for (const a of artifacts) await client.query(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "createdAt") VALUES ($1, $2, $3, $4, now())`, a);
    for (const r of runs) await client.query(`INSERT INTO "Execution" ("runId", "specId", "operationId", status, "recordedAt") VALUES ($1, $2, $3, 'COMPLETED', now())`, [r[0], r[1], operation]);
    for (const l of links) await client.query(`INSERT INTO "ExecutionArtifact" ("runId", "artifactId", direction, role, position) VALUES ($1, $2, $3, $4, $5)`, l);
    for (const e of edges) await client.query(`INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "groupId", "stepBoundary", "sourceType", "targetType", "createdAt") VALUES ($1, $2, $3, $4, $5, TRUE, $6, $7, now())`, e);
    await client.query("VACUUM ANALYZE");
  } finally {
    await client.end();
  }
  return { url, file: null, hub, drop };
}

/** The hub's figures (part 1 of the graph bench). */
export interface HubBenchResult {
  hubNodes: number;
  hubP50Ms: number;
  hubP99Ms: number;
  hubRawMs: number;
  hubRatio: number;
  /** Server CPU per request, and the raw side's CPU per run: a ratio the machine's load does not swing. */
  hubServerCpuMs: number;
  hubRawCpuMs: number;
}

/**
 * Part 1 alone, so a change to the hub's path can be measured without the 1.05M-edge store:
 * lineageGraph depth 1 BOTH around the hub, every node's counts, against its statements run raw.
 */
export async function runHubBench(options: { quick: boolean; dataDir: string; pgUrl?: string }): Promise<HubBenchResult> {
  const database = options.pgUrl ? "postgres" : "sqlite";
  const blocks = options.quick ? 3 : 9;
  const perBlock = options.quick ? 10 : 30;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const hubDb = await hubStore(options.dataDir, options.pgUrl);
  const server = await startServerProcess({ DATABASE_URL: hubDb.url });
  const client = graphqlClient(server.url);
  const raw = await rawClient(database, hubDb.url, hubDb.file);
  const hubArgs = { roots: [hubDb.hub], direction: "BOTH" as const, depth: 1, first: 1000 };
  const hubLatencies: number[] = [];
  try {
    const hubRecorded = await record(database, raw, (reader) => LINEAGE_GRAPH_READS.lineageGraph({ ...hubArgs, asOf: null, stepBoundaryOnly: false, columns: false, layout: false }, { reader }));
    const body = JSON.stringify({ query: GRAPH_QUERY, variables: hubArgs });
    const check = (await postTimed(client, body)).data;
    const hubNodes = check.lineageGraph.nodes.length;
    if (hubNodes !== 2 * HUB_CONSUMERS + 3 || check.lineageGraph.truncated) throw new Error(`graph bench: the hub graph has ${hubNodes} nodes (truncated ${check.lineageGraph.truncated})`);
    const run = await interleave(
      [
        { name: "graphql", run: latencySide(client, body, hubLatencies), remoteCpuMs: () => server.cpuMs() },
        { name: "raw", run: async () => { for (const s of hubRecorded.statements) await raw.run(s.sql, s.params); } },
      ],
      { blocks, perBlock, warmup: 20 },
    );
    const sorted = [...hubLatencies].sort((a, b) => a - b);
    return {
      hubNodes,
      hubP50Ms: round(quantile(sorted, 0.5), 2),
      hubP99Ms: round(quantile(sorted, 0.99), 2),
      hubRawMs: round(run.sides.raw.msPerOp, 2),
      hubRatio: round(run.ratio("raw", "graphql"), 3),
      hubServerCpuMs: round(run.sides.graphql.remoteCpuMsPerOp!, 2),
      hubRawCpuMs: round(run.sides.raw.cpuMsPerOp, 2),
    };
  } finally {
    client.close();
    await raw.close();
    await server.stop();
    await hubDb.drop();
  }
}

export async function runGraphBench(options: { quick: boolean; log: (line: string) => void; dataDir: string; pgUrl?: string }): Promise<GraphBenchResult> {
  const database = options.pgUrl ? "postgres" : "sqlite";
  const blocks = options.quick ? 3 : 9;
  const perBlock = options.quick ? 10 : 30;
  fs.mkdirSync(options.dataDir, { recursive: true });

  // 1. The hub: depth 1 both ways, 200 consumers with their children, every node's counts.
  const hub = await runHubBench(options);

  // 2. and 3. The 1.05M-edge store: depth 3 both ways from the middle; a path 12 hops long.
  const store: Store = options.pgUrl ? await pgStore(options.pgUrl, "1M", options.log) : await sqliteStore(options.dataDir, "1M", options.log);
  const shape = STORE_SHAPES["1M"];
  const middle = artifactAt(shape.layers >> 1, shape.width >> 1).id;
  const fromLayer = (shape.layers >> 1) - PATH_HOPS / 2;
  const pathFrom = artifactAt(fromLayer, shape.width >> 1).id;
  const pathTo = artifactAt(fromLayer + PATH_HOPS, shape.width >> 1).id;
  const server = await startServerProcess({ DATABASE_URL: store.url });
  const client = graphqlClient(server.url);
  const raw = await rawClient(database, store.url, store.file);
  try {
    const depthArgs = { roots: [middle], direction: "BOTH" as const, depth: 3, first: 5000 };
    const depthRecorded = await record(database, raw, (reader) => LINEAGE_GRAPH_READS.lineageGraph({ ...depthArgs, asOf: null, stepBoundaryOnly: false, columns: false, layout: false }, { reader }));
    const depthBody = JSON.stringify({ query: GRAPH_QUERY, variables: depthArgs });
    const depthAnswer = (await postTimed(client, depthBody)).data.lineageGraph;
    if (depthAnswer.truncated) throw new Error("graph bench: the depth-3 graph was truncated");
    const depthRun = await interleave(
      [
        { name: "graphql", run: () => postTimed(client, depthBody), remoteCpuMs: () => server.cpuMs() },
        { name: "raw", run: async () => { for (const s of depthRecorded.statements) await raw.run(s.sql, s.params); } },
        { name: "floor", run: () => postTimed(client, FLOOR_BODY) },
      ],
      { blocks, perBlock: Math.max(5, perBlock / 3), warmup: 5 },
    );
    const depthSpread = depthRun.ratioSpread("raw", "graphql");

    const pathArgs = { from: pathFrom, to: pathTo, maxPaths: 10, maxDepth: 20, asOf: null, stepBoundaryOnly: false };
    const pathRecorded = await record(database, raw, (reader) => LINEAGE_GRAPH_READS.lineagePath(pathArgs, { reader }));
    const pathBody = JSON.stringify({ query: PATH_QUERY, variables: { from: pathFrom, to: pathTo } });
    const pathAnswer = (await postTimed(client, pathBody)).data.lineagePath;
    if (pathAnswer.paths.length === 0 || pathAnswer.paths[0].length !== PATH_HOPS) throw new Error(`graph bench: no ${PATH_HOPS}-hop path (${JSON.stringify(pathAnswer).slice(0, 200)})`);
    const pathLatencies: number[] = [];
    const pathRun = await interleave(
      [
        { name: "graphql", run: latencySide(client, pathBody, pathLatencies), remoteCpuMs: () => server.cpuMs() },
        { name: "raw", run: async () => { for (const s of pathRecorded.statements) await raw.run(s.sql, s.params); } },
      ],
      { blocks, perBlock: Math.max(5, perBlock / 3), warmup: 5 },
    );

    // 4. The Explorer's requests: a search result opened (the neighbourhood, laid out), then a "+N" expanded.
    const openArgs = { roots: [middle], direction: "BOTH" as const, depth: EXPLORER_DEPTH, first: EXPLORER_FIRST };
    const openRecorded = await record(database, raw, (reader) => LINEAGE_GRAPH_READS.lineageGraph({ ...openArgs, asOf: null, stepBoundaryOnly: false, columns: false, layout: true }, { reader }));
    const openBody = JSON.stringify({ query: EXPLORER_GRAPH_QUERY, variables: { roots: openArgs.roots, depth: openArgs.depth, first: openArgs.first } });
    const openAnswer = (await postTimed(client, openBody)).data.lineageGraph;
    const target = expandTarget(openAnswer.nodes);
    if (!target) throw new Error("graph bench: the Explorer's neighbourhood has no +N of at most 100 to expand");
    const expandArgs = { nodeId: target.nodeId, direction: target.direction, first: Math.max(50, target.n) };
    const expandRecorded = await record(database, raw, (reader) => LINEAGE_GRAPH_READS.expand({ ...expandArgs, after: null, asOf: null, stepBoundaryOnly: false, columns: false }, { reader }));
    const expandBody = JSON.stringify({ query: EXPLORER_EXPAND_QUERY, variables: expandArgs });
    const expandAnswer = (await postTimed(client, expandBody)).data.expand;
    const openLatencies: number[] = [];
    const expandLatencies: number[] = [];
    const replay = (recorded: Recorded) => async () => {
      for (const s of recorded.statements) await raw.run(s.sql, s.params);
    };
    const explorerPlan = { blocks, perBlock: Math.max(5, perBlock / 3), warmup: 3 };
    const openRun = await interleave([{ name: "graphql", run: latencySide(client, openBody, openLatencies), remoteCpuMs: () => server.cpuMs() }, { name: "raw", run: replay(openRecorded) }], explorerPlan);
    const expandRun = await interleave([{ name: "graphql", run: latencySide(client, expandBody, expandLatencies), remoteCpuMs: () => server.cpuMs() }, { name: "raw", run: replay(expandRecorded) }], explorerPlan);

    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const result: GraphBenchResult = {
      database,
      edges: store.edges,
      ...hub,
      depth3Nodes: depthAnswer.nodes.length,
      depth3Edges: depthAnswer.edges.length,
      depth3Ms: round(depthRun.sides.graphql.msPerOp, 2),
      depth3RawMs: round(depthRun.sides.raw.msPerOp, 2),
      depth3Ratio: depthRun.ratio("raw", "graphql"),
      depth3RatioMin: depthSpread.min,
      depth3RatioMax: depthSpread.max,
      depth3ServerCpuMs: round(depthRun.sides.graphql.remoteCpuMsPerOp!, 2),
      depth3RawCpuMs: round(depthRun.sides.raw.cpuMsPerOp, 2),
      depth3FloorMs: round(depthRun.sides.floor.msPerOp, 2),
      depth3FloorRatio: round(1 + depthRun.ratio("raw", "floor"), 3),
      pathHops: PATH_HOPS,
      pathCount: pathAnswer.paths.length,
      pathP50Ms: round(quantile(sorted(pathLatencies), 0.5), 2),
      pathP99Ms: round(quantile(sorted(pathLatencies), 0.99), 2),
      pathRawMs: round(pathRun.sides.raw.msPerOp, 2),
      pathStatements: pathRecorded.statements.length,
      pathServerCpuMs: round(pathRun.sides.graphql.remoteCpuMsPerOp!, 2),
      explorerOpenNodes: openAnswer.nodes.length,
      explorerOpenP50Ms: round(quantile(sorted(openLatencies), 0.5), 2),
      explorerOpenP99Ms: round(quantile(sorted(openLatencies), 0.99), 2),
      explorerOpenRawMs: round(openRun.sides.raw.msPerOp, 2),
      explorerOpenRatio: round(openRun.ratio("raw", "graphql"), 3),
      explorerOpenServerCpuMs: round(openRun.sides.graphql.remoteCpuMsPerOp!, 2),
      explorerExpandAdded: expandAnswer.nodes.length,
      explorerExpandP50Ms: round(quantile(sorted(expandLatencies), 0.5), 2),
      explorerExpandP99Ms: round(quantile(sorted(expandLatencies), 0.99), 2),
      explorerExpandRawMs: round(expandRun.sides.raw.msPerOp, 2),
      explorerExpandRatio: round(expandRun.ratio("raw", "graphql"), 3),
      explorerExpandServerCpuMs: round(expandRun.sides.graphql.remoteCpuMsPerOp!, 2),
      blocks,
      measuredAt: new Date().toISOString(),
      loadAverage: os.loadavg().map((l) => round(l, 2)),
    };
    options.log(
      `graph (${database}): hub depth 1, ${result.hubNodes} nodes: p50 ${result.hubP50Ms} ms, p99 ${result.hubP99Ms} ms, server CPU ${result.hubServerCpuMs} ms (raw ${result.hubRawMs} ms, CPU ${result.hubRawCpuMs} ms; ratio ${result.hubRatio}); ` +
        `depth 3 BOTH over ${store.edges.toLocaleString()} edges, ${result.depth3Nodes} nodes: ${result.depth3Ms} ms (server CPU ${result.depth3ServerCpuMs} ms) vs raw ${result.depth3RawMs} ms (CPU ${result.depth3RawCpuMs} ms): ${result.depth3Ratio}, blocks ${result.depth3RatioMin}–${result.depth3RatioMax}, floor ${result.depth3FloorMs} ms (raw + floor ×${result.depth3FloorRatio}); ` +
        `path ${PATH_HOPS} hops (${result.pathCount} paths, ${result.pathStatements} statements): p50 ${result.pathP50Ms} ms, p99 ${result.pathP99Ms} ms, server CPU ${result.pathServerCpuMs} ms (raw ${result.pathRawMs} ms); ` +
        `Explorer open (depth ${EXPLORER_DEPTH}, ${result.explorerOpenNodes} nodes, laid out): p50 ${result.explorerOpenP50Ms} ms, p99 ${result.explorerOpenP99Ms} ms, server CPU ${result.explorerOpenServerCpuMs} ms (raw ${result.explorerOpenRawMs} ms; ratio ${result.explorerOpenRatio}); ` +
        `Explorer expand (+${result.explorerExpandAdded}): p50 ${result.explorerExpandP50Ms} ms, p99 ${result.explorerExpandP99Ms} ms, server CPU ${result.explorerExpandServerCpuMs} ms (raw ${result.explorerExpandRawMs} ms; ratio ${result.explorerExpandRatio})`,
    );
    return result;
  } finally {
    client.close();
    await raw.close();
    await server.stop();
  }
}

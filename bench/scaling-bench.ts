import { closureThroughApi, lineageBody, rawClosureRunner } from "./closure-bench";
import { sqliteStore, type StoreSize } from "./closure-store";
import { graphqlClient } from "./http-client";
import { median, round } from "./interleave";
import { startServerProcess } from "./server-process";

/**
 * How closure cost grows with the store and with the closure: the same layered DAG at ~100k, ~1M
 * and (with --scale) ~10M edges, and from the same root (the middle of the last layer, backward)
 * closures cut at 5 and 15 hops and the full one. Each is read through GraphQL (flat shape) from a
 * server in its own process, interleaved with the same statement run raw; the server's peak RSS is
 * taken per store (a fresh server each).
 */
export interface ScalingRow {
  store: StoreSize;
  edges: number;
  maxDepth: number | null;
  nodes: number;
  graphqlMs: number;
  rawMs: number;
  ratio: number;
}

export interface ScalingResult {
  rows: ScalingRow[];
  /** Peak RSS of the server that served each store's closures (MB). */
  serverPeakRssMb: Partial<Record<StoreSize, number>>;
}

// Up to 16 hops a closure is cut in SQL (a depth walk); beyond, it walks everything and is cut after, so 5 and 15.
const DEPTHS = [5, 15, null] as const;

export async function runScalingBench(options: { quick: boolean; scale: boolean; log: (line: string) => void; dataDir: string }): Promise<ScalingResult> {
  const sizes: StoreSize[] = options.scale ? ["100k", "1M", "10M"] : ["100k", "1M"];
  const rounds = options.quick ? 2 : 5;
  const result: ScalingResult = { rows: [], serverPeakRssMb: {} };
  for (const size of sizes) {
    const store = await sqliteStore(options.dataDir, size, options.log);
    const server = await startServerProcess({ DATABASE_URL: store.url });
    const client = graphqlClient(server.url);
    const raw = await rawClosureRunner(store, "sqlite");
    try {
      const root = store.roots.UPSTREAM;
      for (const maxDepth of DEPTHS) {
        const body = lineageBody(root, "UPSTREAM", "flat", maxDepth);
        const expected = await raw.run(root, "UPSTREAM", maxDepth);
        const got = await closureThroughApi(client, body);
        if (got.nodes !== expected.nodes) throw new Error(`scaling bench: ${size} maxDepth ${maxDepth}: GraphQL ${got.nodes} nodes, raw ${expected.nodes}`);
        const graphql: number[] = [];
        const rawMs: number[] = [];
        for (let round = 0; round < rounds; round++) {
          for (const side of round % 2 === 0 ? ["graphql", "raw"] : ["raw", "graphql"]) {
            const start = performance.now();
            if (side === "raw") await raw.run(root, "UPSTREAM", maxDepth);
            else await client.post(body);
            (side === "raw" ? rawMs : graphql).push(performance.now() - start);
          }
        }
        result.rows.push({
          store: size,
          edges: store.edges,
          maxDepth,
          nodes: expected.nodes,
          graphqlMs: round(median(graphql), 1),
          rawMs: round(median(rawMs), 1),
          ratio: round(median(graphql.map((ms, i) => ms / rawMs[i])), 2),
        });
      }
      result.serverPeakRssMb[size] = round((await server.memory()).peakRssMb, 1);
    } finally {
      client.close();
      await raw.close();
      await server.stop();
    }
    const rows = result.rows.filter((row) => row.store === size);
    options.log(
      `scaling ${size} (${store.edges.toLocaleString()} edges): ` +
        rows.map((row) => `maxDepth ${row.maxDepth ?? "∞"}: ${row.nodes} nodes, GraphQL ${row.graphqlMs} ms, raw ${row.rawMs} ms`).join("; ") +
        `; server peak RSS ${result.serverPeakRssMb[size]} MB`,
    );
  }
  return result;
}

import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { pgSessionOptions } from "../src/db/client";
import { MAX_CLOSURE_NODES, planClosure } from "../src/services/lineage/closure";
import { closureStatement } from "../src/services/lineage/closure-sql";
import { registerStopFunction } from "../src/db/statement-stop";
import type { LineageDirection } from "../src/services/lineage/lineage-records";
import { pgStore, sqliteStore, type Store, type StoreSize } from "./closure-store";
import { graphqlClient, type GraphQLClient } from "./http-client";
import { median, round } from "./interleave";
import { startServerProcess } from "./server-process";

/**
 * Closures over the 1M-edge store: backward and forward closures of ~14k nodes read through GraphQL
 * over HTTP on loopback, from a server in a process of its own, and — interleaved with them, in an
 * order rotated every round — the very statement the server runs, run raw on the store (better-sqlite3,
 * or `pg`). A ratio is the median over rounds of (GraphQL time ÷ raw time in that round). Three
 * GraphQL shapes of the same data: `flat` (nodeIds, nodeDepths, edgeSourceIds, edgeTargetIds),
 * `objects` (nodes { artifactId depth } edges { sourceId targetId }) and `nested` (nodes { artifact {
 * id } depth } edges { source { id } target { id } }). The server's peak RSS is its own.
 */
export interface ClosureResult {
  database: "sqlite" | "postgres";
  edges: number;
  artifacts: number;
  backwardNodes: number;
  backwardEdges: number;
  forwardNodes: number;
  forwardEdges: number;
  rounds: number;
  rawMs: number;
  flatMs: number;
  objectsMs: number;
  nestedMs: number;
  flatRatio: number;
  objectsRatio: number;
  nestedRatio: number;
  /** The per-round ratios' range (noise), for the flat shape. */
  flatRatioMin: number;
  flatRatioMax: number;
  serverPeakRssMb: number;
  generateMs: number;
}

export const SHAPE_SELECTIONS = {
  flat: "truncated nodeIds nodeDepths edgeSourceIds edgeTargetIds",
  objects: "truncated nodes { artifactId depth } edges { sourceId targetId }",
  nested: "truncated nodes { artifact { id } depth } edges { source { id } target { id } }",
} as const;
export type ClosureShape = keyof typeof SHAPE_SELECTIONS;

/** The lineage request body for a root, direction and shape (maxDepth null = fully transitive). */
export function lineageBody(root: string, direction: LineageDirection, shape: ClosureShape, maxDepth: number | null = null): string {
  const query = `query($id: ID!, $direction: LineageDirection!, $first: Int, $maxDepth: Int) { lineage(artifactId: $id, direction: $direction, first: $first, maxDepth: $maxDepth) { ${SHAPE_SELECTIONS[shape]} } }`;
  return JSON.stringify({ query, variables: { id: root, direction, first: MAX_CLOSURE_NODES, maxDepth } });
}

export interface ClosureSize {
  nodes: number;
  edges: number;
  truncated: boolean;
}

export async function closureThroughApi(client: GraphQLClient, body: string): Promise<ClosureSize> {
  const data = await client.post(body);
  const lineage = data.lineage as Record<string, unknown[]> & { truncated: boolean };
  return { truncated: lineage.truncated, nodes: (lineage.nodeIds ?? lineage.nodes).length, edges: (lineage.edgeSourceIds ?? lineage.edges).length };
}

/** The raw side: the statement the server runs for that request, straight on the store. */
export async function rawClosureRunner(store: Store, database: "sqlite" | "postgres") {
  const statement = (root: string, direction: LineageDirection, maxDepth: number | null) =>
    closureStatement(database, planClosure({ rootId: root as never, direction, first: MAX_CLOSURE_NODES, maxDepth, edgeDetails: false }));
  const count = (rows: { row: string }[]): ClosureSize => ({ nodes: rows.filter((r) => r.row === "node").length, edges: rows.filter((r) => r.row === "edge").length, truncated: false });
  if (database === "sqlite") {
    const db = new BetterSqlite3(store.file!, { readonly: true });
    // As on provgraph's connections: the walk calls it (statement-stop.ts).
    registerStopFunction(db);
    const prepared = new Map<string, BetterSqlite3.Statement>();
    return {
      run: (root: string, direction: LineageDirection, maxDepth: number | null = null) => {
        const { sql, params } = statement(root, direction, maxDepth);
        let st = prepared.get(sql);
        if (!st) prepared.set(sql, (st = db.prepare(sql)));
        return count(st.all(...params) as { row: string }[]);
      },
      close: async () => db.close(),
    };
  }
  // The raw side runs the statements as provgraph does: the same session settings (JIT off).
  const client = new pg.Client({ connectionString: store.url, ...pgSessionOptions(store.url) });
  await client.connect();
  return {
    run: async (root: string, direction: LineageDirection, maxDepth: number | null = null) => {
      const { sql, params } = statement(root, direction, maxDepth);
      return count((await client.query(sql, params)).rows);
    },
    close: () => client.end(),
  };
}

const time = async (run: () => unknown) => {
  const start = performance.now();
  await run();
  return performance.now() - start;
};

export async function runClosureBench(options: { quick: boolean; log: (line: string) => void; dataDir: string; pgUrl?: string }): Promise<ClosureResult> {
  const database = options.pgUrl ? "postgres" : "sqlite";
  const size: StoreSize = "1M";
  const store = options.pgUrl ? await pgStore(options.pgUrl, size, options.log) : await sqliteStore(options.dataDir, size, options.log);
  const directions: LineageDirection[] = options.quick ? ["UPSTREAM"] : ["UPSTREAM", "DOWNSTREAM"];
  const rounds = options.quick ? 3 : 9;
  const server = await startServerProcess({ DATABASE_URL: store.url });
  const client = graphqlClient(server.url);
  const raw = await rawClosureRunner(store, database);
  try {
    const sizes = {} as Record<LineageDirection, ClosureSize>;
    for (const direction of ["UPSTREAM", "DOWNSTREAM"] as const) {
      const expected = await raw.run(store.roots[direction], direction);
      for (const shape of ["flat", "objects", "nested"] as const) {
        const got = await closureThroughApi(client, lineageBody(store.roots[direction], direction, shape));
        if (got.nodes !== expected.nodes || got.edges !== expected.edges || got.truncated) throw new Error(`closure bench: ${direction} ${shape}: GraphQL ${JSON.stringify(got)}, raw ${JSON.stringify(expected)}`);
      }
      sizes[direction] = expected;
    }
    const sides = ["raw", "flat", "objects", "nested"] as const;
    const times: Record<(typeof sides)[number], number[]> = { raw: [], flat: [], objects: [], nested: [] };
    const warmups = options.quick ? 1 : 2;
    for (let round = 0; round < warmups + rounds; round++) {
      for (const direction of directions) {
        const root = store.roots[direction];
        const order = sides.map((_, i) => sides[(i + round) % sides.length]);
        for (const side of order) {
          const ms = await time(() => (side === "raw" ? raw.run(root, direction) : client.post(lineageBody(root, direction, side))));
          if (round >= warmups) times[side].push(ms);
        }
      }
    }
    const ratios = (side: "flat" | "objects" | "nested") => times[side].map((ms, i) => ms / times.raw[i]);
    const memory = await server.memory();
    const flatRatios = ratios("flat");
    const result: ClosureResult = {
      database,
      edges: store.edges,
      artifacts: store.artifacts,
      backwardNodes: sizes.UPSTREAM.nodes,
      backwardEdges: sizes.UPSTREAM.edges,
      forwardNodes: sizes.DOWNSTREAM.nodes,
      forwardEdges: sizes.DOWNSTREAM.edges,
      rounds: rounds * directions.length,
      rawMs: round(median(times.raw), 1),
      flatMs: round(median(times.flat), 1),
      objectsMs: round(median(times.objects), 1),
      nestedMs: round(median(times.nested), 1),
      flatRatio: round(median(flatRatios), 3),
      objectsRatio: round(median(ratios("objects")), 3),
      nestedRatio: round(median(ratios("nested")), 3),
      flatRatioMin: round(Math.min(...flatRatios), 3),
      flatRatioMax: round(Math.max(...flatRatios), 3),
      serverPeakRssMb: round(memory.peakRssMb, 1),
      generateMs: Math.round(store.generateMs),
    };
    options.log(
      `closure (${database}) over ${store.edges.toLocaleString()} edges, backward ${result.backwardNodes} nodes / ${result.backwardEdges} edges, forward ${result.forwardNodes} / ${result.forwardEdges}: ` +
        `raw ${result.rawMs} ms; flat ${result.flatMs} ms (${result.flatRatio}, rounds ${result.flatRatioMin}–${result.flatRatioMax}), objects ${result.objectsMs} ms (${result.objectsRatio}), ` +
        `nested ${result.nestedMs} ms (${result.nestedRatio}); server peak RSS ${result.serverPeakRssMb} MB`,
    );
    return result;
  } finally {
    client.close();
    await raw.close();
    await server.stop();
  }
}

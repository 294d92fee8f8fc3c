import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { migrateDatabase } from "../src/db/migrate";
import { MAX_CLOSURE_NODES, planClosure } from "../src/services/lineage/closure";
import { closureStatement } from "../src/services/lineage/closure-sql";
import { type ArtifactId, artifactIdFor, digest40, newRunId, operationIdFor, specIdFrom } from "../src/services/ids";
import type { LineageDirection } from "../src/services/lineage/lineage-records";

/**
 * Closures: a store of ≥ 1M edges (quick: ~100k), a layered DAG where every artifact of layer
 * l > 0 has one derivation from nearby artifacts of layer l − 1 (single-source, or a CO_INPUT group
 * of 2–3). Backward and forward closures of ≥ 10k nodes are read through GraphQL over HTTP on
 * loopback (nodes with ids and depth, edges with source and target ids) and — in the same run —
 * by running the very statement the server runs directly on the file with better-sqlite3.
 *
 * Result: `graphqlMs` / `rawMs` are medians over both directions (GraphQL asking for the columnar
 * nodeIds / nodeDepths / edgeSourceIds / edgeTargetIds), `ratio` = graphqlMs ÷ rawMs, `nodes` =
 * artifacts in the backward closure, `edges` = edges in the store. `objectsGraphqlMs` asks for the
 * same data as `nodes { artifactId depth } edges { sourceId targetId }` and `nestedGraphqlMs` as
 * `nodes { artifact { id } depth } edges { source { id } target { id } }` (ratios against the same rawMs).
 */
export interface ClosureBenchResult {
  graphqlMs: number;
  rawMs: number;
  ratio: number;
  nodes: number;
  edges: number;
  peakRssMb: number;
  [k: string]: number;
}

interface Shape {
  layers: number;
  width: number;
  /** Sources are picked within ±reach positions in the layer before. */
  reach: number;
  iterations: number;
}

const SHAPES: Record<"quick" | "full", Shape> = {
  quick: { layers: 56, width: 1_200, reach: 20, iterations: 7 },
  full: { layers: 56, width: 12_500, reach: 20, iterations: 9 },
};

const TYPES = ["csv", "parquet", "json", "model", "metric"];
const CO_INPUT_SHARE = 0.35;
const ARTIFACTS_PER_RUN = 100;

/**
 * What a client drawing the graph asks for — node ids and depths, edge ends — in the columnar
 * form provgraph offers for large closures (parallel lists of scalars).
 */
const QUERY = `query($id: ID!, $direction: LineageDirection!, $first: Int) {
  lineage(artifactId: $id, direction: $direction, first: $first) { truncated nodeIds nodeDepths edgeSourceIds edgeTargetIds }
}`;

/** The same as lists of objects (graphql-js resolves every field of every object). */
const OBJECTS_QUERY = `query($id: ID!, $direction: LineageDirection!, $first: Int) {
  lineage(artifactId: $id, direction: $direction, first: $first) { truncated nodes { artifactId depth } edges { sourceId targetId } }
}`;

/** The same through the Artifact objects (their Relay id resolver is async: one promise per id). */
const NESTED_QUERY = `query($id: ID!, $direction: LineageDirection!, $first: Int) {
  lineage(artifactId: $id, direction: $direction, first: $first) { truncated nodes { artifact { id } depth } edges { source { id } target { id } } }
}`;

/** A small deterministic PRNG (mulberry32), so every run builds the same store. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sqliteTime = (date: Date) => date.toISOString().replace("Z", "+00:00");

/** Bump when the generator changes: a store on disk is reused only when its manifest matches. */
const GENERATOR_VERSION = 5; // 4: covering edge indexes (migration edge_covering_indexes); 5: real sha256 content hashes

interface StoreManifest {
  version: number;
  shape: Omit<Shape, "iterations">;
  artifacts: number;
  edges: number;
  roots: Record<LineageDirection, ArtifactId>;
}

/** The store for `shape`: reused from bench/.data when its manifest matches, generated otherwise. */
async function openStore(file: string, shape: Shape, fresh: boolean, log: (line: string) => void): Promise<StoreManifest & { generateMs: number }> {
  const manifestFile = `${file}.json`;
  const wanted = { layers: shape.layers, width: shape.width, reach: shape.reach };
  if (!fresh && fs.existsSync(file) && fs.existsSync(manifestFile)) {
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as StoreManifest;
    if (manifest.version === GENERATOR_VERSION && JSON.stringify(manifest.shape) === JSON.stringify(wanted)) {
      log(`closure: reusing ${path.basename(file)} (${manifest.edges.toLocaleString()} edges; delete it or pass fresh to regenerate)`);
      return { ...manifest, generateMs: 0 };
    }
  }
  fs.rmSync(manifestFile, { force: true });
  const start = performance.now();
  const store = await generateStore(file, shape);
  const generateMs = performance.now() - start;
  const manifest: StoreManifest = {
    version: GENERATOR_VERSION,
    shape: wanted,
    artifacts: store.artifacts,
    edges: store.edges,
    // Backward from the middle of the last layer, forward from the middle of the first.
    roots: { UPSTREAM: artifactAt(shape.layers - 1, shape.width >> 1).id, DOWNSTREAM: artifactAt(0, shape.width >> 1).id },
  };
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`closure: generated ${store.edges.toLocaleString()} edges over ${store.artifacts.toLocaleString()} artifacts in ${(generateMs / 1000).toFixed(1)} s`);
  return { ...manifest, generateMs };
}

/** The artifact at a position of the layered DAG. */
function artifactAt(layer: number, position: number) {
  const type = TYPES[layer % TYPES.length];
  const contentHash = `sha256:${crypto.createHash("sha256").update(`bench-${layer}-${position}`).digest("hex")}`;
  return { id: artifactIdFor(type, contentHash), type, contentHash };
}

/** Writes the store with raw prepared statements in big transactions (after the real migrations). */
async function generateStore(file: string, shape: Shape): Promise<{ artifacts: number; edges: number }> {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  await migrateDatabase(`file:${file}`);
  const db = new BetterSqlite3(file);
  db.pragma("synchronous = OFF");
  const now = sqliteTime(new Date());
  const operationId = operationIdFor("bench-derive", "1");
  db.prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, ?, ?, ?, ?, ?)`).run(
    operationId,
    "bench-derive",
    "1",
    "CREATOR",
    "{}",
    now,
  );
  const insertArtifact = db.prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "createdAt") VALUES (?, ?, ?, ?, ?)`);
  const insertRun = db.prepare(`INSERT INTO "Execution" ("runId", "specId", "operationId", status, agent, "recordedAt") VALUES (?, ?, ?, ?, ?, ?)`);
  const insertEdge = db.prepare(
    `INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "groupId", "stepBoundary", "sourceType", "targetType", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const next = random(42);
  let previousLayer: ArtifactId[] = [];
  let edges = 0;
  for (let layer = 0; layer < shape.layers; layer++) {
    const type = TYPES[layer % TYPES.length];
    const sourceType = TYPES[(layer + TYPES.length - 1) % TYPES.length];
    const layerIds: ArtifactId[] = [];
    db.transaction(() => {
      let runId = "";
      for (let j = 0; j < shape.width; j++) {
        const { id, contentHash } = artifactAt(layer, j);
        layerIds.push(id);
        insertArtifact.run(id, type, contentHash, `L${layer}_${j}.${type}`, now);
        if (layer === 0) continue;
        if (j % ARTIFACTS_PER_RUN === 0) {
          runId = newRunId();
          insertRun.run(runId, specIdFrom(`bench/${layer}/${j}`), operationId, "COMPLETED", `worker-${j % 8}`, now);
        }
        // The primary source sits at the same position (every artifact has a child), co-inputs nearby.
        const sourceCount = next() < CO_INPUT_SHARE ? 2 + Math.floor(next() * 2) : 1;
        const sources = new Set<number>([j]);
        while (sources.size < sourceCount) {
          sources.add(Math.min(shape.width - 1, Math.max(0, j + Math.round((next() * 2 - 1) * shape.reach))));
        }
        const sourceIds = [...sources].map((position) => previousLayer[position]);
        const groupId = `grp_${digest40("group", ...[...sourceIds].sort())}`;
        for (const sourceId of sourceIds) {
          insertEdge.run(sourceId, id, runId, sourceCount > 1 ? "CO_INPUT" : "INDEPENDENT", groupId, 1, sourceType, type, now);
          edges += 1;
        }
      }
    })();
    previousLayer = layerIds;
  }
  db.close();
  return { artifacts: shape.layers * shape.width, edges };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/**
 * `fresh`: regenerate the store even when bench/.data holds one of the same shape (generating
 * the full store takes a minute or two; a reused one is checked against its manifest).
 */
export async function runClosureBench(options: { quick: boolean; log: (line: string) => void; dataDir?: string; fresh?: boolean }): Promise<ClosureBenchResult> {
  const shape = options.quick ? SHAPES.quick : SHAPES.full;
  const dataDir = options.dataDir ?? path.join(__dirname, ".data");
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, `closure-${options.quick ? "quick" : "full"}.db`);
  const store = await openStore(file, shape, options.fresh ?? false, options.log);
  const roots = store.roots;

  const app = await buildApp(loadConfig({ DATABASE_URL: `file:${file}`, PORT: "0", LOG_LEVEL: "silent" }));
  const raw = new BetterSqlite3(file, { readonly: true });
  try {
    const url = await app.start();
    const viaGraphql = async (direction: LineageDirection, query = QUERY) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, variables: { id: roots[direction], direction, first: MAX_CLOSURE_NODES } }),
      });
      const body = (await response.json()) as { data?: { lineage: Record<string, unknown[]> & { truncated: boolean } }; errors?: unknown };
      if (body.errors || !body.data) throw new Error(`closure bench: ${JSON.stringify(body.errors)}`);
      const lineage = body.data.lineage;
      return { truncated: lineage.truncated, nodes: (lineage.nodeIds ?? lineage.nodes).length, edges: (lineage.edgeSourceIds ?? lineage.edges).length };
    };
    // The statement the server runs for that request, run directly on the file.
    const statements = Object.fromEntries(
      (["UPSTREAM", "DOWNSTREAM"] as const).map((direction) => {
        const plan = planClosure({ rootId: roots[direction], direction, first: MAX_CLOSURE_NODES, edgeDetails: false });
        const { sql, params } = closureStatement("sqlite", plan);
        return [direction, { prepared: raw.prepare(sql), params }];
      }),
    ) as Record<LineageDirection, { prepared: BetterSqlite3.Statement; params: unknown[] }>;
    const viaRaw = (direction: LineageDirection) => statements[direction].prepared.all(...statements[direction].params) as { row: string }[];

    const sizes: Record<string, number> = {};
    for (const direction of ["UPSTREAM", "DOWNSTREAM"] as const) {
      const rows = viaRaw(direction);
      const rawNodes = rows.filter((row) => row.row === "node").length;
      const rawEdges = rows.filter((row) => row.row === "edge").length;
      for (const query of [QUERY, OBJECTS_QUERY, NESTED_QUERY]) {
        const lineage = await viaGraphql(direction, query);
        if (lineage.nodes !== rawNodes || lineage.edges !== rawEdges || lineage.truncated) {
          throw new Error(`closure bench: ${direction} GraphQL returned ${lineage.nodes} nodes / ${lineage.edges} edges (truncated: ${lineage.truncated}), raw ${rawNodes} / ${rawEdges}`);
        }
      }
      sizes[`${direction}:nodes`] = rawNodes;
      sizes[`${direction}:edges`] = rawEdges;
    }

    const time = async (run: () => unknown) => {
      const start = performance.now();
      await run();
      return performance.now() - start;
    };
    const timings: Record<string, number[]> = { gUPSTREAM: [], gDOWNSTREAM: [], rUPSTREAM: [], rDOWNSTREAM: [], objects: [], nested: [] };
    const warmups = 2;
    for (let i = 0; i < warmups + shape.iterations; i++) {
      for (const direction of ["UPSTREAM", "DOWNSTREAM"] as const) {
        const graphql = await time(() => viaGraphql(direction));
        const rawMs = await time(() => viaRaw(direction));
        if (i >= warmups) {
          timings[`g${direction}`].push(graphql);
          timings[`r${direction}`].push(rawMs);
        }
      }
    }
    // The other two shapes, fewer times (they are slower and only there for comparison).
    for (let i = 0; i < 3; i++) {
      for (const direction of ["UPSTREAM", "DOWNSTREAM"] as const) {
        timings.objects.push(await time(() => viaGraphql(direction, OBJECTS_QUERY)));
        timings.nested.push(await time(() => viaGraphql(direction, NESTED_QUERY)));
      }
    }
    const graphqlMs = median([...timings.gUPSTREAM, ...timings.gDOWNSTREAM]);
    const rawMs = median([...timings.rUPSTREAM, ...timings.rDOWNSTREAM]);
    const result: ClosureBenchResult = {
      graphqlMs: round(graphqlMs),
      rawMs: round(rawMs),
      ratio: round(graphqlMs / rawMs, 3),
      nodes: sizes["UPSTREAM:nodes"],
      edges: store.edges,
      peakRssMb: round(process.resourceUsage().maxRSS / 1024, 1),
      artifacts: store.artifacts,
      backwardNodes: sizes["UPSTREAM:nodes"],
      backwardEdges: sizes["UPSTREAM:edges"],
      forwardNodes: sizes["DOWNSTREAM:nodes"],
      forwardEdges: sizes["DOWNSTREAM:edges"],
      backwardGraphqlMs: round(median(timings.gUPSTREAM)),
      backwardRawMs: round(median(timings.rUPSTREAM)),
      forwardGraphqlMs: round(median(timings.gDOWNSTREAM)),
      forwardRawMs: round(median(timings.rDOWNSTREAM)),
      objectsGraphqlMs: round(median(timings.objects)),
      objectsRatio: round(median(timings.objects) / rawMs, 3),
      nestedGraphqlMs: round(median(timings.nested)),
      nestedRatio: round(median(timings.nested) / rawMs, 3),
      generateMs: round(store.generateMs, 0),
    };
    options.log(
      `closure: backward ${result.backwardNodes} nodes / ${result.backwardEdges} edges: GraphQL ${result.backwardGraphqlMs} ms, raw ${result.backwardRawMs} ms; ` +
        `forward ${result.forwardNodes} / ${result.forwardEdges}: GraphQL ${result.forwardGraphqlMs} ms, raw ${result.forwardRawMs} ms; ratio ${result.ratio} ` +
        `(as objects: ${result.objectsGraphqlMs} ms, ratio ${result.objectsRatio}; through artifact { id }: ${result.nestedGraphqlMs} ms, ratio ${result.nestedRatio})`,
    );
    return result;
  } finally {
    raw.close();
    await app.stop();
  }
}

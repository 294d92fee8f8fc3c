import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { migrateDatabase } from "../src/db/migrate";
import { type ArtifactId, artifactIdFor, digest40, newRunId, operationIdFor, specIdFrom } from "../src/services/ids";
import type { LineageDirection } from "../src/services/lineage/lineage-records";
import { ensurePgDatabase, pgDatabaseUrl } from "./pg-databases";

/**
 * The closure benchmarks' stores: a layered DAG where every artifact of layer l > 0 has one
 * derivation from nearby artifacts of layer l − 1 (single-source, or a CO_INPUT group of 2–3), written
 * with raw statements after the real migrations. A store on disk (or a PostgreSQL database) is reused
 * when its manifest matches the generator and the shape; generating the 1M-edge store takes a minute
 * or two, the 10M-edge one (--scale) a quarter of an hour.
 */
export interface StoreShape {
  layers: number;
  width: number;
  /** Sources are picked within ±reach positions in the layer before. */
  reach: number;
}

/** ~100k, ~1.05M and ~10.5M edges: the same depth and reach, so a closure from the last layer has much the same size in each. */
export const STORE_SHAPES = {
  "100k": { layers: 56, width: 1_200, reach: 20 },
  "1M": { layers: 56, width: 12_500, reach: 20 },
  "10M": { layers: 56, width: 125_000, reach: 20 },
} satisfies Record<string, StoreShape>;
export type StoreSize = keyof typeof STORE_SHAPES;

const TYPES = ["csv", "parquet", "json", "model", "metric"];
const CO_INPUT_SHARE = 0.35;
const ARTIFACTS_PER_RUN = 100;
/** Bump when the generator changes: a store is reused only when its manifest matches. */
const GENERATOR_VERSION = 5; // 4: covering edge indexes (migration edge_covering_indexes); 5: real sha256 content hashes

export interface StoreManifest {
  version: number;
  shape: StoreShape;
  artifacts: number;
  edges: number;
  /** Backward from the middle of the last layer, forward from the middle of the first. */
  roots: Record<LineageDirection, ArtifactId>;
}

export interface Store extends StoreManifest {
  /** The provgraph DATABASE_URL of the store. */
  url: string;
  /** SQLite: the file; PostgreSQL: null. */
  file: string | null;
  generateMs: number;
}

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

/** The artifact at a position of the layered DAG. */
export function artifactAt(layer: number, position: number) {
  const type = TYPES[layer % TYPES.length];
  const contentHash = `sha256:${crypto.createHash("sha256").update(`bench-${layer}-${position}`).digest("hex")}`;
  return { id: artifactIdFor(type, contentHash), type, contentHash };
}

function manifestOf(shape: StoreShape, artifacts: number, edges: number): StoreManifest {
  return {
    version: GENERATOR_VERSION,
    shape,
    artifacts,
    edges,
    roots: { UPSTREAM: artifactAt(shape.layers - 1, shape.width >> 1).id, DOWNSTREAM: artifactAt(0, shape.width >> 1).id },
  };
}

interface Rows {
  artifacts: unknown[][];
  runs: unknown[][];
  edges: unknown[][];
}

/** The store's rows, one layer at a time (artifacts: id, type, hash, name; runs: runId, specId, agent; edges: source, target, runId, kind, groupId, sourceType, targetType). */
function* layersOf(shape: StoreShape): Generator<Rows> {
  const next = random(42);
  let previousLayer: ArtifactId[] = [];
  for (let layer = 0; layer < shape.layers; layer++) {
    const type = TYPES[layer % TYPES.length];
    const sourceType = TYPES[(layer + TYPES.length - 1) % TYPES.length];
    const rows: Rows = { artifacts: [], runs: [], edges: [] };
    const layerIds: ArtifactId[] = [];
    let runId = "";
    for (let j = 0; j < shape.width; j++) {
      const { id, contentHash } = artifactAt(layer, j);
      layerIds.push(id);
      rows.artifacts.push([id, type, contentHash, `L${layer}_${j}.${type}`]);
      if (layer === 0) continue;
      if (j % ARTIFACTS_PER_RUN === 0) {
        runId = newRunId();
        rows.runs.push([runId, specIdFrom(`bench/${layer}/${j}`), `worker-${j % 8}`]);
      }
      // The primary source sits at the same position (every artifact has a child), co-inputs nearby.
      const sourceCount = next() < CO_INPUT_SHARE ? 2 + Math.floor(next() * 2) : 1;
      const sources = new Set<number>([j]);
      while (sources.size < sourceCount) sources.add(Math.min(shape.width - 1, Math.max(0, j + Math.round((next() * 2 - 1) * shape.reach))));
      const sourceIds = [...sources].map((position) => previousLayer[position]);
      const groupId = `grp_${digest40("group", ...[...sourceIds].sort())}`;
      for (const sourceId of sourceIds) rows.edges.push([sourceId, id, runId, sourceCount > 1 ? "CO_INPUT" : "INDEPENDENT", groupId, sourceType, type]);
    }
    previousLayer = layerIds;
    yield rows;
  }
}

const OPERATION = { id: operationIdFor("bench-derive", "1"), name: "bench-derive", version: "1" };

/** The SQLite store of `size` under dataDir, generated unless a matching one is there (or `fresh`). */
export async function sqliteStore(dataDir: string, size: StoreSize, log: (line: string) => void, fresh = false): Promise<Store> {
  const shape = STORE_SHAPES[size];
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, `closure-${size}.db`);
  const manifestFile = `${file}.json`;
  if (!fresh && fs.existsSync(file) && fs.existsSync(manifestFile)) {
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as StoreManifest;
    if (manifest.version === GENERATOR_VERSION && JSON.stringify(manifest.shape) === JSON.stringify(shape)) return { ...manifest, url: `file:${file}`, file, generateMs: 0 };
  }
  fs.rmSync(manifestFile, { force: true });
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  const start = performance.now();
  await migrateDatabase(`file:${file}`);
  const db = new BetterSqlite3(file);
  db.pragma("synchronous = OFF");
  const now = new Date().toISOString().replace("Z", "+00:00");
  db.prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, ?, ?, 'CREATOR', '{}', ?)`).run(OPERATION.id, OPERATION.name, OPERATION.version, now);
  const insertArtifact = db.prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "createdAt") VALUES (?, ?, ?, ?, ?)`);
  const insertRun = db.prepare(`INSERT INTO "Execution" ("runId", "specId", "operationId", status, agent, "recordedAt") VALUES (?, ?, ?, 'COMPLETED', ?, ?)`);
  const insertEdge = db.prepare(
    `INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "groupId", "stepBoundary", "sourceType", "targetType", "createdAt") VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)`,
  );
  let artifacts = 0;
  let edges = 0;
  for (const rows of layersOf(shape)) {
    db.transaction(() => {
      for (const a of rows.artifacts) insertArtifact.run(...a, now);
      for (const r of rows.runs) insertRun.run(r[0], r[1], OPERATION.id, r[2], now);
      for (const e of rows.edges) insertEdge.run(...e, now);
    })();
    artifacts += rows.artifacts.length;
    edges += rows.edges.length;
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  const manifest = manifestOf(shape, artifacts, edges);
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  const generateMs = performance.now() - start;
  log(`closure store ${size}: generated ${edges.toLocaleString()} edges over ${artifacts.toLocaleString()} artifacts in ${(generateMs / 1000).toFixed(1)} s`);
  return { ...manifest, url: `file:${file}`, file, generateMs };
}

/**
 * The PostgreSQL store of `size` on the server `adminUrl` names: database provgraph_bench_closure_<size>,
 * kept between runs (its manifest in table bench_manifest), generated unless it matches.
 */
export async function pgStore(adminUrl: string, size: StoreSize, log: (line: string) => void): Promise<Store> {
  const shape = STORE_SHAPES[size];
  const name = `provgraph_bench_closure_${size.toLowerCase()}`;
  await ensurePgDatabase(adminUrl, name);
  const url = pgDatabaseUrl(adminUrl, name);
  await migrateDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS bench_manifest (manifest TEXT NOT NULL)`);
    const stored = (await client.query<{ manifest: string }>(`SELECT manifest FROM bench_manifest`)).rows[0];
    if (stored) {
      const manifest = JSON.parse(stored.manifest) as StoreManifest;
      if (manifest.version === GENERATOR_VERSION && JSON.stringify(manifest.shape) === JSON.stringify(shape)) return { ...manifest, url, file: null, generateMs: 0 };
    }
    const start = performance.now();
    await client.query(`TRUNCATE "ProvenanceEdge", "ExecutionArtifact", "Execution", "Artifact", "PipelineFlow", "PipelineStep", "OperationRole", "Operation", bench_manifest CASCADE`);
    await client.query(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ($1, $2, $3, 'CREATOR', '{}', now())`, [OPERATION.id, OPERATION.name, OPERATION.version]);
    const now = new Date().toISOString();
    const insert = async (table: string, columns: string[], rows: unknown[][]) => {
      for (let start = 0; start < rows.length; start += 5_000) {
        const chunk = rows.slice(start, start + 5_000).map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
        await client.query(
          `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) SELECT ${columns.map((c) => `r."${c}"`).join(", ")} FROM json_populate_recordset(NULL::"${table}", $1::json) AS r`,
          [JSON.stringify(chunk)],
        );
      }
    };
    let artifacts = 0;
    let edges = 0;
    for (const rows of layersOf(shape)) {
      await client.query("BEGIN");
      await insert("Artifact", ["id", "artifactType", "contentHash", "originalName", "createdAt"], rows.artifacts.map((a) => [...a, now]));
      await insert("Execution", ["runId", "specId", "operationId", "status", "agent", "recordedAt"], rows.runs.map((r) => [r[0], r[1], OPERATION.id, "COMPLETED", r[2], now]));
      await insert("ProvenanceEdge", ["sourceId", "targetId", "runId", "kind", "groupId", "stepBoundary", "sourceType", "targetType", "createdAt"], rows.edges.map((e) => [e[0], e[1], e[2], e[3], e[4], true, e[5], e[6], now]));
      await client.query("COMMIT");
      artifacts += rows.artifacts.length;
      edges += rows.edges.length;
    }
    await client.query("VACUUM ANALYZE");
    const manifest = manifestOf(shape, artifacts, edges);
    await client.query(`INSERT INTO bench_manifest (manifest) VALUES ($1)`, [JSON.stringify(manifest)]);
    const generateMs = performance.now() - start;
    log(`closure store ${size} (postgres): generated ${edges.toLocaleString()} edges over ${artifacts.toLocaleString()} artifacts in ${(generateMs / 1000).toFixed(1)} s`);
    return { ...manifest, url, file: null, generateMs };
  } finally {
    await client.end();
  }
}

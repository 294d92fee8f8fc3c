import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { migrateDatabase, migrationsDirectory } from "../src/db/migrate";
import { artifactIdFor, operationIdFor, specIdFrom } from "../src/services/ids";
import { jobOperationVersion } from "../src/services/job-names";
import { dropPgDatabase, ensurePgDatabase, pgDatabaseExists, pgDatabaseUrl } from "./pg-databases";

/**
 * The search benchmark's store: 1,000,000 artifacts named as a data lake names its files
 * (`raw/customer_orders/2024-03-17/part-00042.csv`), 10,000 datasets of three versions with ten
 * columns each (a third of them described), 2,000 OpenLineage jobs, 100,000 runs and a few policy
 * tags — written with raw statements after the migrations, then indexed by the search index's own
 * migration SQL (what indexes an existing store). Reused when its manifest matches.
 */
export const SEARCH_STORE = { artifacts: 1_000_000, datasets: 10_000, versionsPerDataset: 3, columnsPerDataset: 10, jobs: 2_000, runs: 100_000 };
const GENERATOR_VERSION = 3; // 2: SearchNamespace, the listing indexes; 3: entry ids handed out downwards

export const ZONES = ["raw", "staging", "curated", "exports", "models", "reports", "archive", "scratch"];
export const SUBJECTS = [
  "customer_orders", "invoice_lines", "sensor_readings", "web_sessions", "payment_events", "inventory_snapshot", "shipment_tracking", "user_profiles",
  "ad_impressions", "support_tickets", "price_history", "fraud_scores", "churn_features", "ledger_entries", "clickstream", "warehouse_moves",
];
const TYPES: [string, string][] = [["csv", "csv"], ["parquet", "parquet"], ["json", "json"], ["model", "pkl"], ["metric", "json"]];
const NAMESPACES = Array.from({ length: 20 }, (_, i) => `postgres://warehouse-${i}.internal:5432`);
const COLUMNS = ["id", "customer_id", "email_address", "created_at", "amount", "currency", "status", "country_code", "updated_by", "payload"];
export const TAGS = ["PII", "FINANCIAL", "CONFIDENTIAL", "GDPR", "HEALTH"];

export interface SearchStoreManifest {
  version: number;
  shape: typeof SEARCH_STORE;
  /** A few stored things the benchmark asks for by id. */
  sampleRunId: string;
  sampleArtifactId: string;
}

export interface SearchStore extends SearchStoreManifest {
  url: string;
  file: string | null;
  generateMs: number;
}

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

const day = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
const hash = (text: string) => `sha256:${crypto.createHash("sha256").update(text).digest("hex")}`;
/** A UUID made of the PRNG (a run id is `run_` + a producer's UUID). */
const uuidOf = (next: () => number) => {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

interface Rows {
  operations: unknown[][]; // id, name, version, kind
  artifacts: unknown[][]; // id, type, hash, name, namespace, dataset, version, createdAt
  columns: unknown[][]; // artifactId, field, position, description
  runs: unknown[][]; // runId, specId, operationId, status, recordedAt
  tags: unknown[][]; // tag, artifactId, field, createdAt
}

/** The store's rows in chunks, in recording order. */
function* rowsOf(manifest: { sampleRunId?: string; sampleArtifactId?: string }): Generator<Rows> {
  const next = random(19);
  const start = Date.UTC(2024, 0, 1);
  const at = (i: number, n: number) => new Date(start + Math.floor((i / n) * 700 * 86_400_000)).toISOString();
  const operations: unknown[][] = [];
  for (let j = 0; j < SEARCH_STORE.jobs; j++) {
    const namespace = `airflow-${j % 12}`;
    const name = `${SUBJECTS[j % SUBJECTS.length]}_etl.task_${Math.floor(j / SUBJECTS.length)}`;
    operations.push([operationIdFor(name, jobOperationVersion(namespace)), name, jobOperationVersion(namespace), "CREATOR"]);
  }
  for (const subject of SUBJECTS) operations.push([operationIdFor(`build_${subject}`, "1"), `build_${subject}`, "1", "CREATOR"]);
  yield { operations, artifacts: [], columns: [], runs: [], tags: [] };
  const chunk = 20_000;
  const plain = SEARCH_STORE.artifacts - SEARCH_STORE.datasets * SEARCH_STORE.versionsPerDataset;
  for (let from = 0; from < plain; from += chunk) {
    const rows: Rows = { operations: [], artifacts: [], columns: [], runs: [], tags: [] };
    for (let i = from; i < Math.min(plain, from + chunk); i++) {
      const [type, extension] = TYPES[Math.floor(next() * TYPES.length)];
      const name = `${ZONES[Math.floor(next() * ZONES.length)]}/${SUBJECTS[Math.floor(next() * SUBJECTS.length)]}/${day(Math.floor(next() * 730))}/part-${String(Math.floor(next() * 100_000)).padStart(5, "0")}.${extension}`;
      const id = artifactIdFor(type, hash(`search-bench-${i}`));
      if (i === 123_456) manifest.sampleArtifactId = id;
      rows.artifacts.push([id, type, hash(`search-bench-${i}`), name, null, null, null, at(i, plain)]);
    }
    yield rows;
  }
  for (let from = 0; from < SEARCH_STORE.datasets; from += 1_000) {
    const rows: Rows = { operations: [], artifacts: [], columns: [], runs: [], tags: [] };
    for (let d = from; d < from + 1_000; d++) {
      const namespace = NAMESPACES[d % NAMESPACES.length];
      const name = `analytics.${SUBJECTS[d % SUBJECTS.length]}_${Math.floor(d / SUBJECTS.length)}`;
      for (let v = 0; v < SEARCH_STORE.versionsPerDataset; v++) {
        const id = artifactIdFor("dataset", hash(`search-bench-dataset-${d}-${v}`));
        rows.artifacts.push([id, "dataset", hash(`search-bench-dataset-${d}-${v}`), `${namespace}/${name}`, namespace, name, `v${v}`, at(d * 3 + v, SEARCH_STORE.datasets * 3)]);
        COLUMNS.forEach((field, position) => rows.columns.push([id, field, position, position % 3 === 0 ? `The ${field.replace(/_/g, " ")} of each ${SUBJECTS[d % SUBJECTS.length].replace(/_/g, " ")} row` : null]));
        if (d % 50 === 0 && v === SEARCH_STORE.versionsPerDataset - 1) rows.tags.push([TAGS[d % TAGS.length], id, "email_address", at(d, SEARCH_STORE.datasets)]);
      }
    }
    yield rows;
  }
  for (let from = 0; from < SEARCH_STORE.runs; from += chunk) {
    const rows: Rows = { operations: [], artifacts: [], columns: [], runs: [], tags: [] };
    for (let r = from; r < Math.min(SEARCH_STORE.runs, from + chunk); r++) {
      const runId = `run_${uuidOf(next)}`;
      if (r === 54_321) manifest.sampleRunId = runId;
      rows.runs.push([runId, specIdFrom(`search-bench/${r}`), operations[r % operations.length][0], r % 17 === 0 ? "FAILED" : "COMPLETED", at(r, SEARCH_STORE.runs)]);
    }
    yield rows;
  }
}

/** The manifest a kept PostgreSQL store holds (null: none, or a store left half made). */
async function storedManifest(url: string): Promise<SearchStoreManifest | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const table = (await client.query(`SELECT to_regclass('bench_manifest') AS "table"`)).rows[0].table;
    if (table === null) return null;
    const stored = (await client.query<{ manifest: string }>(`SELECT manifest FROM bench_manifest`)).rows[0];
    return stored ? (JSON.parse(stored.manifest) as SearchStoreManifest) : null;
  } finally {
    await client.end();
  }
}

/** The search index's migration, from its backfill on: what indexes an existing store. */
function searchBackfillSql(provider: "sqlite" | "postgres"): string {
  const dir = migrationsDirectory(provider);
  const name = fs.readdirSync(dir).find((entry) => entry.endsWith("_search_index"))!;
  const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
  return sql.slice(sql.indexOf("-- What the store holds already."));
}

export async function sqliteSearchStore(dataDir: string, log: (line: string) => void): Promise<SearchStore> {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "search-1M.db");
  const manifestFile = `${file}.json`;
  if (fs.existsSync(file) && fs.existsSync(manifestFile)) {
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as SearchStoreManifest;
    if (manifest.version === GENERATOR_VERSION && JSON.stringify(manifest.shape) === JSON.stringify(SEARCH_STORE)) return { ...manifest, url: `file:${file}`, file, generateMs: 0 };
  }
  fs.rmSync(manifestFile, { force: true });
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  const start = performance.now();
  await migrateDatabase(`file:${file}`);
  const db = new BetterSqlite3(file);
  db.pragma("synchronous = OFF");
  const sqliteDate = (iso: unknown) => String(iso).replace("Z", "+00:00");
  const insert = {
    operation: db.prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, ?, ?, ?, '{}', '2024-01-01T00:00:00.000+00:00')`),
    artifact: db.prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "datasetNamespace", "datasetName", "datasetVersion", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    column: db.prepare(`INSERT INTO "DatasetColumn" ("artifactId", field, position, description) VALUES (?, ?, ?, ?)`),
    run: db.prepare(`INSERT INTO "Execution" ("runId", "specId", "operationId", status, "recordedAt") VALUES (?, ?, ?, ?, ?)`),
    tag: db.prepare(`INSERT INTO "PolicyTagAssignment" (tag, "nodeKind", "artifactId", field, source, "assignedBy", "createdAt") VALUES (?, 'COLUMN', ?, ?, 'ADMIN', 'bench', ?)`),
  };
  const manifest: Partial<SearchStoreManifest> = {};
  for (const rows of rowsOf(manifest)) {
    db.transaction(() => {
      for (const o of rows.operations) insert.operation.run(...o);
      for (const a of rows.artifacts) insert.artifact.run(...a.slice(0, 7), sqliteDate(a[7]));
      for (const c of rows.columns) insert.column.run(...c);
      for (const r of rows.runs) insert.run.run(...r.slice(0, 4), sqliteDate(r[4]));
      for (const t of rows.tags) insert.tag.run(t[0], t[1], t[2], sqliteDate(t[3]));
    })();
  }
  const indexing = performance.now();
  db.exec(searchBackfillSql("sqlite"));
  log(`search store: indexed in ${((performance.now() - indexing) / 1000).toFixed(1)} s (the search index migration's own statements)`);
  db.exec("ANALYZE");
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  const complete: SearchStoreManifest = { version: GENERATOR_VERSION, shape: SEARCH_STORE, sampleRunId: manifest.sampleRunId!, sampleArtifactId: manifest.sampleArtifactId! };
  fs.writeFileSync(manifestFile, `${JSON.stringify(complete, null, 2)}\n`);
  const generateMs = performance.now() - start;
  log(`search store: generated ${SEARCH_STORE.artifacts.toLocaleString()} artifacts in ${(generateMs / 1000).toFixed(1)} s`);
  return { ...complete, url: `file:${file}`, file, generateMs };
}

/**
 * The same on PostgreSQL: database provgraph_bench_search_1m, kept between runs (its manifest in
 * bench_manifest). A stale one is dropped and made again: its append-only tables refuse TRUNCATE.
 */
export async function pgSearchStore(adminUrl: string, log: (line: string) => void): Promise<SearchStore> {
  const name = "provgraph_bench_search_1m";
  const url = pgDatabaseUrl(adminUrl, name);
  if (await pgDatabaseExists(adminUrl, name)) {
    const manifest = await storedManifest(url);
    if (manifest && manifest.version === GENERATOR_VERSION && JSON.stringify(manifest.shape) === JSON.stringify(SEARCH_STORE)) {
      await migrateDatabase(url);
      return { ...manifest, url, file: null, generateMs: 0 };
    }
    await dropPgDatabase(adminUrl, name);
  }
  await ensurePgDatabase(adminUrl, name);
  await migrateDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const start = performance.now();
    await client.query(`CREATE TABLE bench_manifest (manifest TEXT NOT NULL)`);
    const insert = async (table: string, columns: string[], rows: unknown[][]) => {
      for (let from = 0; from < rows.length; from += 5_000) {
        const chunk = rows.slice(from, from + 5_000).map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
        await client.query(
          `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) SELECT ${columns.map((c) => `r."${c}"`).join(", ")} FROM json_populate_recordset(NULL::"${table}", $1::json) AS r`,
          [JSON.stringify(chunk)],
        );
      }
    };
    const manifest: Partial<SearchStoreManifest> = {};
    for (const rows of rowsOf(manifest)) {
      await client.query("BEGIN");
      await insert("Operation", ["id", "name", "version", "kind", "declaration", "createdAt"], rows.operations.map((o) => [...o, "{}", "2024-01-01T00:00:00.000Z"]));
      await insert("Artifact", ["id", "artifactType", "contentHash", "originalName", "datasetNamespace", "datasetName", "datasetVersion", "createdAt"], rows.artifacts);
      await insert("DatasetColumn", ["artifactId", "field", "position", "description"], rows.columns);
      await insert("Execution", ["runId", "specId", "operationId", "status", "recordedAt"], rows.runs);
      await insert("PolicyTagAssignment", ["tag", "nodeKind", "artifactId", "field", "source", "assignedBy", "createdAt"], rows.tags.map((t) => [t[0], "COLUMN", t[1], t[2], "ADMIN", "bench", t[3]]));
      await client.query("COMMIT");
    }
    const indexing = performance.now();
    await client.query("BEGIN");
    await client.query(searchBackfillSql("postgres"));
    await client.query("COMMIT");
    log(`search store (postgres): indexed in ${((performance.now() - indexing) / 1000).toFixed(1)} s (the search index migration's own statements)`);
    await client.query("VACUUM ANALYZE");
    const complete: SearchStoreManifest = { version: GENERATOR_VERSION, shape: SEARCH_STORE, sampleRunId: manifest.sampleRunId!, sampleArtifactId: manifest.sampleArtifactId! };
    await client.query(`INSERT INTO bench_manifest (manifest) VALUES ($1)`, [JSON.stringify(complete)]);
    const generateMs = performance.now() - start;
    log(`search store (postgres): generated ${SEARCH_STORE.artifacts.toLocaleString()} artifacts in ${(generateMs / 1000).toFixed(1)} s`);
    return { ...complete, url, file: null, generateMs };
  } finally {
    await client.end();
  }
}

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { migrateDatabase } from "../src/db/migrate";
import { registerStopFunction } from "../src/db/statement-stop";
import { EVIDENCE_WALK_BUDGET, evidenceStatement, tagFlowStatement } from "../src/services/compliance";
import { artifactIdFor, newRunId, operationIdFor } from "../src/services/ids";

/**
 * Compliance: (1) backfilling a policy tag over a forward closure of 100k columns (tagColumn through
 * GraphQL: the assignment, its propagate stage — one recursive statement per hop set — and the
 * answer's holder count) against the same statements run raw with better-sqlite3 in one transaction;
 * (2) building an evidence package over a backward closure of 10k artifacts (GET
 * /api/v1/evidence/<id>: the one recursive statement, the gate, the canonical JSON document and its
 * sha256) against the same statement run raw (`.all()`). Both sides share one database file, seeded
 * with raw inserts; they alternate in blocks (the disk's cost drifts over minutes) and each figure
 * is the median of the per-block ratios (provgraph / raw).
 */
export interface ComplianceBenchResult {
  backfillColumns: number;
  backfillMs: number;
  backfillRawMs: number;
  backfillRatio: number;
  evidenceNodes: number;
  evidenceMs: number;
  evidenceRawMs: number;
  evidenceRatio: number;
  blocks: number;
  evidenceRunsPerBlock: number;
}

export async function runComplianceBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<ComplianceBenchResult> {
  const blocks = options.quick ? 3 : 6;
  // Forward closure: a root column fanned out to `width` columns, then `hops - 1` one-to-one hops.
  const hops = 10;
  const width = options.quick ? 1_000 : 10_000;
  // Backward closure: root ← fanIn artifacts, each ← fanIn artifacts (fanIn + fanIn² nodes below the root).
  const fanIn = options.quick ? 32 : 100;
  const evidenceRuns = options.quick ? 3 : 5;

  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, "compliance.db");
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  await migrateDatabase(`file:${file}`);
  const raw = new BetterSqlite3(file);
  raw.pragma("journal_mode = WAL");
  // As on provgraph's connections: the evidence walk calls it (statement-stop.ts).
  registerStopFunction(raw);
  const seeded = seed(raw, { hops, width, fanIn });

  const app = await buildApp(loadConfig({ DATABASE_URL: `file:${file}`, PORT: "0", LOG_LEVEL: "silent" }));
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const response = await app.yoga.fetch("http://provgraph.bench/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: any; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  try {
    let tags = 0;
    const expectedHolders = 1 + hops * width;
    const backfill = async (): Promise<number> => {
      const tag = `PII_${tags++}`;
      const started = performance.now();
      const data = await gql(`mutation($input: TagColumnInput!) { tagColumn(input: $input) { created holders } }`, { input: { column: { artifactId: seeded.rootVersion, field: "c" }, tag, reason: "bench" } });
      const ms = performance.now() - started;
      if (data.tagColumn.holders !== expectedHolders) throw new Error(`backfill reached ${data.tagColumn.holders} nodes, expected ${expectedHolders}`);
      return ms;
    };
    const backfillRaw = (): number => {
      const tag = `PII_${tags++}`;
      const started = performance.now();
      const holders = raw.transaction(() => {
        const { id } = raw
          .prepare(`INSERT INTO "PolicyTagAssignment" (tag, "nodeKind", "artifactId", field, source, reason, "assignedBy", "createdAt") VALUES (?, 'COLUMN', ?, 'c', 'ADMIN', 'bench', 'raw', ?) RETURNING id`)
          .get(tag, seeded.rootVersion, new Date().toISOString()) as { id: number };
        raw.prepare(`INSERT INTO "PolicyTagHolding" ("nodeKind", "artifactId", field, tag, "originId", depth, frontier) VALUES ('COLUMN', ?, 'c', ?, ?, 0, NULL)`).run(seeded.rootVersion, tag, id);
        const pass = crypto.randomInt(1, 2 ** 31 - 1);
        const { sql, params } = tagFlowStatement("sqlite", { assignments: [id] }, pass);
        raw.prepare(sql).run(...(params as unknown[] as (string | number)[]));
        raw.prepare(`SELECT COUNT(*) AS n FROM "PolicyTagHolding" WHERE frontier = ?`).get(pass);
        return (raw.prepare(`SELECT COUNT(*) AS n FROM "PolicyTagHolding" WHERE "originId" = ?`).get(id) as { n: number }).n;
      })();
      const ms = performance.now() - started;
      if (holders !== expectedHolders) throw new Error(`raw backfill reached ${holders} nodes, expected ${expectedHolders}`);
      return ms;
    };

    const expectedNodes = 1 + fanIn + fanIn * fanIn;
    const evidence = async (): Promise<number> => {
      const started = performance.now();
      const response = await app.yoga.fetch(`http://provgraph.bench/api/v1/evidence/${seeded.evidenceRoot}`);
      const text = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`evidence: ${response.status} ${text.slice(0, 300)}`);
      const nodes = (JSON.parse(text) as { nodes: unknown[] }).nodes.length;
      if (nodes !== expectedNodes) throw new Error(`evidence closure of ${nodes} nodes, expected ${expectedNodes}`);
      return ms;
    };
    const { sql: evidenceSql, params: evidenceParams } = evidenceStatement("sqlite", { root: { artifactId: seeded.evidenceRoot, field: null }, asOf: null, budget: EVIDENCE_WALK_BUDGET });
    const evidenceQuery = raw.prepare(evidenceSql);
    const evidenceRaw = (): number => {
      const started = performance.now();
      const rows = evidenceQuery.all(...(evidenceParams as (string | number)[])) as { row: string }[];
      const ms = performance.now() - started;
      const nodes = rows.filter((r) => r.row === "node").length;
      if (nodes !== expectedNodes) throw new Error(`raw evidence closure of ${nodes} nodes, expected ${expectedNodes}`);
      return ms;
    };

    // Warm-up: each side once.
    await backfill();
    backfillRaw();
    await evidence();
    evidenceRaw();

    const times = { backfill: [] as number[], backfillRaw: [] as number[], evidence: [] as number[], evidenceRaw: [] as number[] };
    for (let block = 0; block < blocks; block++) {
      // Alternate which side goes first.
      const provgraphFirst = block % 2 === 0;
      const b = async () => times.backfill.push(await backfill());
      const br = async () => times.backfillRaw.push(backfillRaw());
      for (const step of provgraphFirst ? [b, br] : [br, b]) await step();
      const e = async () => {
        let total = 0;
        for (let r = 0; r < evidenceRuns; r++) total += await evidence();
        times.evidence.push(total / evidenceRuns);
      };
      const er = async () => {
        let total = 0;
        for (let r = 0; r < evidenceRuns; r++) total += evidenceRaw();
        times.evidenceRaw.push(total / evidenceRuns);
      };
      for (const step of provgraphFirst ? [e, er] : [er, e]) await step();
    }
    const ratio = (side: number[], base: number[]) => round(median(side.map((ms, i) => ms / base[i])), 3);
    const result: ComplianceBenchResult = {
      backfillColumns: hops * width,
      backfillMs: round(median(times.backfill)),
      backfillRawMs: round(median(times.backfillRaw)),
      backfillRatio: ratio(times.backfill, times.backfillRaw),
      evidenceNodes: expectedNodes,
      evidenceMs: round(median(times.evidence)),
      evidenceRawMs: round(median(times.evidenceRaw)),
      evidenceRatio: ratio(times.evidence, times.evidenceRaw),
      blocks,
      evidenceRunsPerBlock: evidenceRuns,
    };
    options.log(
      `compliance backfill over ${result.backfillColumns} columns: ${result.backfillMs} ms vs raw ${result.backfillRawMs} ms (${result.backfillRatio}); ` +
        `evidence package over ${result.evidenceNodes} nodes: ${result.evidenceMs} ms vs raw ${result.evidenceRawMs} ms (${result.evidenceRatio})`,
    );
    return result;
  } finally {
    await app.stop();
    raw.close();
  }
}

/**
 * Raw inserts (both sides read the same rows): the column graph for the backfill — a root version
 * with column c, `width` columns fed by it, then one-to-one hops (DIRECT and INDIRECT alternating) —
 * and the artifact graph for the evidence package, every run fully pinned.
 */
function seed(db: BetterSqlite3.Database, o: { hops: number; width: number; fanIn: number }): { rootVersion: string; evidenceRoot: string } {
  const now = new Date().toISOString();
  const hash = (text: string) => `sha256:${crypto.createHash("sha256").update(text).digest("hex")}`;
  const operationId = operationIdFor("bench.derive", "1");
  const insertArtifact = db.prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "datasetNamespace", "datasetName", "datasetVersion", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertColumn = db.prepare(`INSERT INTO "DatasetColumn" ("artifactId", field, position) VALUES (?, ?, ?)`);
  const insertColumnEdge = db.prepare(`INSERT INTO "ColumnEdge" ("sourceId", "sourceField", "targetId", "targetField", "runId", type, subtype, "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertExecution = db.prepare(
    `INSERT INTO "Execution" ("runId", "specId", "operationId", status, params, "recordedAt", "pinInputVersions", "pinCodeVersion", "pinImageDigest", "pinDeterministic") VALUES (?, ?, ?, 'COMPLETED', '{}', ?, '{"source":"v1"}', 'abc123', 'sha256:feed', 1)`,
  );
  const insertLink = db.prepare(`INSERT INTO "ExecutionArtifact" ("runId", "artifactId", direction, role, position) VALUES (?, ?, ?, ?, ?)`);
  const insertEdge = db.prepare(`INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "sourceType", "targetType", "createdAt") VALUES (?, ?, ?, 'INDEPENDENT', 'csv', 'csv', ?)`);
  let rootVersion = "";
  let evidenceRoot = "";
  db.transaction(() => {
    db.prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, 'bench.derive', '1', 'CREATOR', '{}', ?)`).run(operationId, now);
    const version = (layer: number) => {
      const id = artifactIdFor("dataset", hash(`layer-${layer}`));
      insertArtifact.run(id, "dataset", hash(`layer-${layer}`), `bench.layer_${layer}`, "bench", `bench.layer_${layer}`, "v1", now);
      return id;
    };
    const layers = Array.from({ length: o.hops + 1 }, (_, k) => version(k));
    rootVersion = layers[0];
    insertColumn.run(rootVersion, "c", 0);
    for (let k = 1; k <= o.hops; k++) {
      const runId = newRunId();
      insertExecution.run(runId, `spec_${k}`, operationId, now);
      for (let i = 0; i < o.width; i++) {
        insertColumn.run(layers[k], `c${i}`, i);
        const type = k % 2 === 0 ? "INDIRECT" : "DIRECT";
        insertColumnEdge.run(layers[k - 1], k === 1 ? "c" : `c${i}`, layers[k], `c${i}`, runId, type, type === "DIRECT" ? "TRANSFORMATION" : "FILTER", now);
      }
    }

    const artifact = (name: string) => {
      const id = artifactIdFor("csv", hash(name));
      insertArtifact.run(id, "csv", hash(name), name, null, null, null, now);
      return id;
    };
    const derive = (target: string, sources: string[]) => {
      const runId = newRunId();
      insertExecution.run(runId, `spec_${target}`, operationId, now);
      sources.forEach((s, position) => insertLink.run(runId, s, "CONSUMED", "in", position));
      insertLink.run(runId, target, "PRODUCED", "out", 0);
      for (const s of sources) insertEdge.run(s, target, runId, now);
    };
    evidenceRoot = artifact("evidence-root.csv");
    const middle = Array.from({ length: o.fanIn }, (_, i) => artifact(`m${i}.csv`));
    derive(evidenceRoot, middle);
    middle.forEach((m, i) => derive(m, Array.from({ length: o.fanIn }, (_, j) => artifact(`leaf_${i}_${j}.csv`))));
  })();
  db.pragma("optimize");
  return { rootVersion, evidenceRoot };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { migrateDatabase } from "../src/db/migrate";
import { CHUNK_EVENTS, datasetArtifactId, datasetContentHash, jobOperationVersion } from "../src/openlineage";
import { groupIdFor } from "../src/services/recording";
import { canonicalJson } from "../src/services/canonical-json";
import { operationIdFor, specIdFrom } from "../src/services/ids";

/**
 * OpenLineage ingestion: runs of a dbt/Spark-like job, each a START and a COMPLETE event (two input
 * tables and one output, 12-column schemas, column lineage on every output column), posted to
 * provgraph over HTTP on loopback — one event per POST (what OpenLineage's transport does), and in
 * batches of 1,000 (POST /api/v1/lineage/batch) — and, in the same run, the same rows written with
 * raw better-sqlite3 prepared statements. Both sides commit every event on its own (each event is
 * atomic and durable before it is answered): the raw side is the floor for that contract. The sides
 * alternate in blocks (the disk's fsync cost drifts over minutes) and the result is the median of
 * the per-block ratios.
 */
export interface OpenLineageBenchResult {
  singlePerSec: number;
  singleRawPerSec: number;
  singleRatio: number;
  batchPerSec: number;
  batchRawPerSec: number;
  batchRatio: number;
  /** Against raw inserts committing every event on its own (the simplest raw writer with per-event atomicity). */
  batchRatioToRawPerEventCommits: number;
  blocks: number;
  singleEventsPerBlock: number;
  batchEvents: number;
  columnEdgesPerEvent: number;
}

const COLUMNS = 12;
const NAMESPACE = "postgres://warehouse:5432";

export function eventsOf(run: number): Record<string, unknown>[] {
  const runId = crypto.randomUUID();
  const fields = (prefix: string) => Array.from({ length: COLUMNS }, (_, i) => ({ name: `${prefix}_${i}`, type: i % 2 ? "numeric" : "varchar" }));
  const columnLineage = {
    fields: Object.fromEntries(
      Array.from({ length: COLUMNS }, (_, i) => [
        `out_${i}`,
        {
          inputFields: [
            { namespace: NAMESPACE, name: "shop.orders", field: `o_${i}`, transformations: [{ type: "DIRECT", subtype: i % 3 ? "TRANSFORMATION" : "IDENTITY", masking: false }] },
            ...(i % 4 === 0 ? [{ namespace: NAMESPACE, name: "shop.customers", field: `c_${i}`, transformations: [{ type: "INDIRECT", subtype: "JOIN", masking: false }] }] : []),
          ],
        },
      ]),
    ),
  };
  const base = (eventType: string, eventTime: string) => ({
    eventType,
    eventTime,
    producer: "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/integration/dbt",
    schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    run: { runId, facets: { nominalTime: { _producer: "https://example.com/p", _schemaURL: "https://example.com/s", nominalStartTime: "2026-03-11T00:00:00Z" } } },
    job: { namespace: "dbt", name: `analytics.model_${run % 50}`, facets: { sql: { _producer: "https://example.com/p", _schemaURL: "https://example.com/s", query: "SELECT o.*, c.segment FROM orders o JOIN customers c USING (customer_id)" } } },
    inputs: [
      { namespace: NAMESPACE, name: "shop.orders", facets: { schema: { _producer: "https://example.com/p", _schemaURL: "https://example.com/s", fields: fields("o") } } },
      { namespace: NAMESPACE, name: "shop.customers", facets: { schema: { _producer: "https://example.com/p", _schemaURL: "https://example.com/s", fields: fields("c") } } },
    ],
    outputs: [{ namespace: NAMESPACE, name: `analytics.model_${run % 50}`, facets: { schema: { _producer: "https://example.com/p", _schemaURL: "https://example.com/s", fields: fields("out") }, columnLineage: { _producer: "https://example.com/p", _schemaURL: "https://example.com/s", ...columnLineage } } }],
  });
  return [base("START", "2026-03-11T02:00:00Z"), base("COMPLETE", "2026-03-11T02:05:00Z")];
}

const columnEdgesPerEvent = COLUMNS + Math.ceil(COLUMNS / 4);

export async function runOpenLineageBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<OpenLineageBenchResult> {
  const blocks = options.quick ? 3 : 6;
  const singleEvents = options.quick ? 40 : 200;
  const batchEvents = options.quick ? 200 : 1_000;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const provgraphFile = path.join(options.dataDir, "openlineage-provgraph.db");
  const rawFile = path.join(options.dataDir, "openlineage-raw.db");
  for (const file of [provgraphFile, rawFile]) for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });

  const app = await buildApp(loadConfig({ DATABASE_URL: `file:${provgraphFile}`, PORT: "0", LOG_LEVEL: "silent" }));
  const url = new URL(await app.start());
  const lineageUrl = (route: string) => `${url.origin}${route}`;
  const post = async (route: string, body: string) => {
    // A kept-alive connection the server closed while the raw side ran (its 5 s idle timeout) fails
    // once with ECONNRESET; sending again is safe: the same events are stored once.
    const send = () => fetch(lineageUrl(route), { method: "POST", headers: { "content-type": "application/json" }, body });
    const response = await send().catch((error: { cause?: { code?: string } }) => (error.cause?.code === "ECONNRESET" ? send() : Promise.reject(error)));
    const text = await response.text();
    if (response.status !== 201 && response.status !== 200) throw new Error(`${response.status} ${text.slice(0, 500)}`);
    return JSON.parse(text);
  };

  await migrateDatabase(`file:${rawFile}`);
  const raw = new RawIngestion(new BetterSqlite3(rawFile));

  let run = 0;
  let postedEvents = 0;
  const nextEvents = (count: number) => {
    const events: Record<string, unknown>[] = [];
    while (events.length < count) events.push(...eventsOf(run++));
    return events.slice(0, count);
  };
  // Warm-up: every job seen once on both sides (registration is a first-sight cost).
  for (const event of nextEvents(100)) await post("/api/v1/lineage", JSON.stringify(event));
  postedEvents += 100;
  for (const event of nextEvents(100)) raw.ingest(event);

  const singleRatios: number[] = [];
  const batchRatios: number[] = [];
  const perEventCommitRatios: number[] = [];
  const totals = { single: 0, singleRaw: 0, batch: 0, batchRaw: 0 };
  for (let block = 0; block < blocks; block++) {
    let events = nextEvents(singleEvents);
    let started = performance.now();
    for (const event of events) await post("/api/v1/lineage", JSON.stringify(event));
    const singleMs = performance.now() - started;
    postedEvents += events.length;
    events = nextEvents(singleEvents);
    started = performance.now();
    for (const event of events) raw.ingest(event);
    const singleRawMs = performance.now() - started;

    events = nextEvents(batchEvents);
    const body = JSON.stringify(events);
    started = performance.now();
    const answer = await post("/api/v1/lineage/batch", body);
    const batchMs = performance.now() - started;
    postedEvents += events.length;
    if (answer.stored !== batchEvents) throw new Error(`batch stored ${answer.stored} of ${batchEvents}: ${JSON.stringify(answer.results.find((r: any) => r.error))}`);
    events = nextEvents(batchEvents);
    started = performance.now();
    raw.ingestBatch(events);
    const batchRawMs = performance.now() - started;
    events = nextEvents(batchEvents);
    started = performance.now();
    for (const event of events) raw.ingest(event);
    const batchRawPerEventMs = performance.now() - started;

    singleRatios.push(singleRawMs / singleMs);
    batchRatios.push(batchRawMs / batchMs);
    perEventCommitRatios.push(batchRawPerEventMs / batchMs);
    totals.single += singleMs;
    totals.singleRaw += singleRawMs;
    totals.batch += batchMs;
    totals.batchRaw += batchRawMs;
    options.log(
      `openlineage block ${block + 1}/${blocks}: single ${(singleEvents / singleMs) * 1000 | 0}/s vs raw ${(singleEvents / singleRawMs) * 1000 | 0}/s; ` +
        `batch ${(batchEvents / batchMs) * 1000 | 0}/s vs raw ${(batchEvents / batchRawMs) * 1000 | 0}/s (raw committing each event: ${(batchEvents / batchRawPerEventMs) * 1000 | 0}/s)`,
    );
  }
  const columnEdges = await app.database.prisma.columnEdge.count();
  await app.stop();
  raw.close();
  // Every run's START and COMPLETE carry the same column lineage: recorded once per run.
  if (columnEdges !== (postedEvents / 2) * columnEdgesPerEvent) throw new Error(`expected ${(postedEvents / 2) * columnEdgesPerEvent} column edges, found ${columnEdges}`);

  const perSec = (events: number, ms: number) => round((events / ms) * 1000);
  const result = {
    singlePerSec: perSec(blocks * singleEvents, totals.single),
    singleRawPerSec: perSec(blocks * singleEvents, totals.singleRaw),
    singleRatio: round(median(singleRatios), 3),
    batchPerSec: perSec(blocks * batchEvents, totals.batch),
    batchRawPerSec: perSec(blocks * batchEvents, totals.batchRaw),
    batchRatio: round(median(batchRatios), 3),
    batchRatioToRawPerEventCommits: round(median(perEventCommitRatios), 3),
    blocks,
    singleEventsPerBlock: singleEvents,
    batchEvents,
    columnEdgesPerEvent,
  };
  options.log(
    `openlineage  single POSTs ${result.singlePerSec}/s vs raw ${result.singleRawPerSec}/s (ratio ${result.singleRatio}); batches of ${batchEvents} ${result.batchPerSec}/s vs raw ${result.batchRawPerSec}/s (ratio ${result.batchRatio})`,
  );
  return result;
}

/**
 * The rows provgraph writes for these events, with prepared statements, one transaction per event:
 * the event; on a run's first event its job's operation (first sight), the dataset versions, the
 * execution, its links, its joint derivation edges, how each input version resolved, the run's
 * state, the column edges and the schemas' columns; on a later event the event and the updated
 * derived state.
 */
class RawIngestion {
  private readonly statements;
  private readonly ingestEvent: (event: any) => void;
  private readonly ingestChunk: (events: any[]) => void;

  constructor(private readonly db: BetterSqlite3.Database) {
    const prepare = (sql: string) => db.prepare(sql);
    this.statements = {
      event: prepare(`INSERT INTO "OpenLineageEvent" ("eventKey", kind, "eventType", "eventTime", "runId", "jobNamespace", "jobName", producer, body, facts, "receivedAt") VALUES (?, 'RUN', ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
      operation: prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, ?, ?, 'CREATOR', '{}', ?) ON CONFLICT DO NOTHING`),
      artifact: prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "datasetNamespace", "datasetName", "datasetVersion", "createdAt") VALUES (?, 'dataset', ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
      execution: prepare(`INSERT INTO "Execution" ("runId", "specId", "operationId", status, params, "startedAt", "recordedAt") VALUES (?, ?, ?, ?, ?, ?, ?)`),
      link: prepare(`INSERT INTO "ExecutionArtifact" ("runId", "artifactId", direction, role, position) VALUES (?, ?, ?, ?, ?)`),
      edge: prepare(`INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "groupId", "stepBoundary", "sourceType", "targetType", "createdAt") VALUES (?, ?, ?, 'CO_INPUT', ?, 1, 'dataset', 'dataset', ?)`),
      use: prepare(`INSERT INTO "DatasetVersionUse" ("runId", "artifactId", pinned, "resolvedBy", "createdAt") VALUES (?, ?, 0, 'UNVERSIONED', ?)`),
      runState: prepare(`INSERT INTO "OpenLineageRun" ("runId", "jobNamespace", "jobName", events, "firstEventTime", "lastEventTime", "updatedAt") VALUES (?, ?, ?, 1, ?, ?, ?)`),
      columnEdge: prepare(`INSERT INTO "ColumnEdge" ("sourceId", "sourceField", "targetId", "targetField", "runId", type, subtype, masking, "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)`),
      column: prepare(`INSERT INTO "DatasetColumn" ("artifactId", field, position, type) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`),
      updateExecution: prepare(`UPDATE "Execution" SET status = ?, "endedAt" = ? WHERE "runId" = ?`),
      updateRunState: prepare(`UPDATE "OpenLineageRun" SET events = events + 1, "lastEventTime" = ?, "updatedAt" = ? WHERE "runId" = ?`),
    };
    const s = this.statements;
    const write = (event: any) => {
      const at = new Date().toISOString();
      const runId = `run_${event.run.runId}`;
      const body = JSON.stringify(event);
      const key = crypto.createHash("sha256").update(canonicalJson(event)).digest("hex");
      s.event.run(key, event.eventType, event.eventTime, runId, event.job.namespace, event.job.name, event.producer, body, canonicalJson({ eventType: event.eventType }), at);
      if (event.eventType !== "START") {
        s.updateExecution.run("COMPLETED", event.eventTime, runId);
        s.updateRunState.run(event.eventTime, at, runId);
        return;
      }
      const operationId = operationIdFor(event.job.name, jobOperationVersion(event.job.namespace));
      s.operation.run(operationId, event.job.name, jobOperationVersion(event.job.namespace), at);
      const versionOf = (d: any, version: string | null) => ({ namespace: d.namespace, name: d.name, version });
      const inputs = event.inputs.map((d: any) => ({ d, ref: versionOf(d, null) }));
      const output = { d: event.outputs[0], ref: versionOf(event.outputs[0], runId) };
      for (const { d, ref } of [...inputs, output]) s.artifact.run(datasetArtifactId(ref), datasetContentHash(ref), d.name, ref.namespace, ref.name, ref.version, at);
      s.execution.run(runId, specIdFrom(runId), operationId, "STARTED", JSON.stringify({ sql: event.job.facets.sql }), event.eventTime, at);
      const inputIds = inputs.map(({ ref }: any) => datasetArtifactId(ref));
      const outputId = datasetArtifactId(output.ref);
      inputIds.forEach((id: string, i: number) => s.link.run(runId, id, "CONSUMED", "input", i));
      s.link.run(runId, outputId, "PRODUCED", "output", 0);
      const groupId = groupIdFor(inputIds);
      for (const id of inputIds) {
        s.edge.run(id, outputId, runId, groupId, at);
        s.use.run(runId, id, at);
      }
      s.runState.run(runId, event.job.namespace, event.job.name, event.eventTime, event.eventTime, at);
      const idOf = (name: string) => datasetArtifactId(versionOf({ namespace: NAMESPACE, name }, null));
      for (const [field, entry] of Object.entries<any>(event.outputs[0].facets.columnLineage.fields)) {
        for (const input of entry.inputFields) for (const t of input.transformations) s.columnEdge.run(idOf(input.name), input.field, outputId, field, runId, t.type, t.subtype, at);
      }
      for (const { d, ref } of [...inputs, output]) d.facets.schema.fields.forEach((f: any, i: number) => s.column.run(datasetArtifactId(ref), f.name, i, f.type));
    };
    this.ingestEvent = db.transaction(write);
    this.ingestChunk = db.transaction((events: any[]) => events.forEach(write));
  }

  /** One event, one transaction. */
  ingest(event: Record<string, unknown>): void {
    this.ingestEvent(event);
  }

  /** Events in transactions of CHUNK_EVENTS, as provgraph commits a batch. */
  ingestBatch(events: readonly Record<string, unknown>[]): void {
    for (let start = 0; start < events.length; start += CHUNK_EVENTS) this.ingestChunk(events.slice(start, start + CHUNK_EVENTS) as any[]);
  }

  close(): void {
    this.db.close();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

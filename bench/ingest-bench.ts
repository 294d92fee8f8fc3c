import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { migrateDatabase } from "../src/db/migrate";
import { artifactIdFor, newRunId, specIdFrom } from "../src/services/ids";
import { groupIdFor } from "../src/services/recording";

/**
 * Ingest: N executions of 50 inputs → 50 outputs (stem-matched, one edge each), recorded
 * through GraphQL over HTTP on loopback, and — in the same run — the same rows written with raw
 * better-sqlite3 prepared statements, one transaction per execution (the floor for this shape).
 */
export interface IngestBenchResult {
  graphqlPerSec: number;
  rawPerSec: number;
  ratio: number;
  executions: number;
  inputsPerExecution: number;
  outputsPerExecution: number;
  graphqlMsPerExecution: number;
  rawMsPerExecution: number;
}

const FAN = 50;
const POOL = 20; // input sets the executions rotate through

const RECORD = `mutation($input: RecordExecutionInput!) {
  recordExecution(input: $input) {
    __typename
    ... on RecordExecutionPayload { execution { runId specId status outputs { role artifact { id originalName } } } }
    ... on Error { code message }
  }
}`;

const hash = (name: string) => `sha256:${crypto.createHash("sha256").update(name).digest("hex")}`;
const inputName = (set: number, j: number) => `in_${set}_${j}.csv`;
const outputName = (i: number, j: number) => `in_${i % POOL}_${j}_run${i}.csv`;

export async function runIngestBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<IngestBenchResult> {
  const executions = options.quick ? 200 : 2000;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const graphqlFile = path.join(options.dataDir, "ingest-graphql.db");
  const rawFile = path.join(options.dataDir, "ingest-raw.db");
  for (const file of [graphqlFile, rawFile]) for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });

  // --- through GraphQL over HTTP ---
  const app = await buildApp(loadConfig({ DATABASE_URL: `file:${graphqlFile}`, PORT: "0", LOG_LEVEL: "silent" }));
  const url = await app.start();
  const post = async (query: string, variables: unknown) => {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: any; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  await post(`mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }`, {
    i: { name: "source", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] },
  });
  await post(`mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }`, {
    i: { name: "transform", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] },
  });
  const inputSets: string[][] = [];
  for (let set = 0; set < POOL; set++) {
    const data = await post(RECORD, {
      input: { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: Array.from({ length: FAN }, (_, j) => ({ originalName: inputName(set, j), contentHash: hash(inputName(set, j)) })) }] },
    });
    inputSets.push(data.recordExecution.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id));
  }
  const requestFor = (i: number) => ({
    operation: "transform",
    operationVersion: "1",
    params: { run: i },
    inputs: [{ role: "data", artifactIds: inputSets[i % POOL] }],
    outputs: [{ role: "out", artifacts: Array.from({ length: FAN }, (_, j) => ({ originalName: outputName(i, j), contentHash: hash(outputName(i, j)) })) }],
  });
  for (let i = 0; i < 20; i++) await post(RECORD, { input: requestFor(executions + i) }); // warm-up
  const graphqlStart = performance.now();
  for (let i = 0; i < executions; i++) {
    const data = await post(RECORD, { input: requestFor(i) });
    if (data.recordExecution.__typename !== "RecordExecutionPayload") throw new Error(JSON.stringify(data.recordExecution));
  }
  const graphqlMs = performance.now() - graphqlStart;
  const edges = await app.database.prisma.provenanceEdge.count();
  await app.stop();
  if (edges !== (executions + 20) * FAN) throw new Error(`expected ${(executions + 20) * FAN} edges, found ${edges}`);

  // --- the same rows through raw better-sqlite3 ---
  await migrateDatabase(`file:${rawFile}`);
  const db = new BetterSqlite3(rawFile);
  const now = () => new Date().toISOString().replace("Z", "+00:00");
  const operationRow = { id: "op_bench", name: "transform", version: "1" };
  db.prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, ?, ?, 'CREATOR', '{}', ?)`).run(operationRow.id, operationRow.name, operationRow.version, now());
  const insertArtifact = db.prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", metadata, "createdAt") VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING`);
  const insertExecution = db.prepare(
    `INSERT INTO "Execution" ("runId", "specId", "operationId", status, params, "recordedAt") VALUES (?, ?, ?, 'COMPLETED', ?, ?)`,
  );
  const insertLink = db.prepare(`INSERT INTO "ExecutionArtifact" ("runId", "artifactId", direction, role, position) VALUES (?, ?, ?, ?, ?)`);
  const insertEdge = db.prepare(
    `INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "groupId", "stepBoundary", "sourceType", "targetType", "createdAt") VALUES (?, ?, ?, 'INDEPENDENT', ?, 1, 'csv', 'csv', ?)`,
  );
  const rawInputs = Array.from({ length: POOL }, (_, set) => Array.from({ length: FAN }, (_, j) => artifactIdFor("csv", hash(inputName(set, j)))));
  db.transaction(() => rawInputs.forEach((set, s) => set.forEach((id, j) => insertArtifact.run(id, "csv", hash(inputName(s, j)), inputName(s, j), now()))))();
  const recordRaw = db.transaction((i: number) => {
    const runId = newRunId();
    const at = now();
    const inputs = rawInputs[i % POOL];
    insertExecution.run(runId, specIdFrom(`transform/${i}`), operationRow.id, JSON.stringify({ run: i }), at);
    inputs.forEach((id, j) => insertLink.run(runId, id, "CONSUMED", "data", j));
    for (let j = 0; j < FAN; j++) {
      const name = outputName(i, j);
      const id = artifactIdFor("csv", hash(name));
      insertArtifact.run(id, "csv", hash(name), name, at);
      insertLink.run(runId, id, "PRODUCED", "out", j);
      insertEdge.run(inputs[j], id, runId, groupIdFor([inputs[j]]), at);
    }
  });
  for (let i = 0; i < 20; i++) recordRaw(executions + i);
  const rawStart = performance.now();
  for (let i = 0; i < executions; i++) recordRaw(i);
  const rawMs = performance.now() - rawStart;
  db.close();

  const graphqlPerSec = (executions / graphqlMs) * 1000;
  const rawPerSec = (executions / rawMs) * 1000;
  const result = {
    graphqlPerSec: round(graphqlPerSec),
    rawPerSec: round(rawPerSec),
    ratio: round(graphqlPerSec / rawPerSec, 3),
    executions,
    inputsPerExecution: FAN,
    outputsPerExecution: FAN,
    graphqlMsPerExecution: round(graphqlMs / executions, 3),
    rawMsPerExecution: round(rawMs / executions, 3),
  };
  options.log(`ingest  ${executions} executions × ${FAN}→${FAN}: GraphQL/HTTP ${result.graphqlPerSec}/s, raw better-sqlite3 ${result.rawPerSec}/s, ratio ${result.ratio}`);
  return result;
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

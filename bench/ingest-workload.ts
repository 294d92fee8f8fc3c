import crypto from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { migrateDatabase } from "../src/db/migrate";
import { startWalCheckpointer } from "../src/db/wal-checkpointer";
import { artifactIdFor, newRunId, operationIdFor, specIdFrom } from "../src/services/ids";
import { groupIdFor } from "../src/services/recording";
import type { GraphQLClient } from "./http-client";

/**
 * The ingest workload shared by the ingest benchmarks: executions of `fan` inputs → `fan` outputs of
 * one `transform` operation, each output stem-matched to one input (one edge each), the inputs drawn
 * from `pool` sets recorded first. Recorded through provgraph's GraphQL API, or written "raw": the
 * same rows (artifacts, execution, links, edges) straight through the driver, with the same ids.
 */
export const RECORD = `mutation($input: RecordExecutionInput!) {
  recordExecution(input: $input) {
    __typename
    ... on RecordExecutionPayload { execution { runId specId status outputs { role artifact { id originalName } } } }
    ... on Error { code message }
  }
}`;

const REGISTER = `mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }`;

export const hash = (name: string) => `sha256:${crypto.createHash("sha256").update(name).digest("hex")}`;

export interface Workload {
  fan: number;
  pool: number;
  inputName(set: number, j: number): string;
  /** Execution i's j-th output name (a distinct label per side keeps the two sides' artifacts apart). */
  outputName(label: string, i: number, j: number): string;
  /** The recordExecution variables of execution i, as a pipeline would send them. */
  request(label: string, i: number, inputIds: readonly string[]): Record<string, unknown>;
}

export function workload(fan: number, pool: number): Workload {
  const inputName = (set: number, j: number) => `in_${set}_${j}.csv`;
  const outputName = (label: string, i: number, j: number) => `in_${i % pool}_${j}_${label}${i}.csv`;
  return {
    fan,
    pool,
    inputName,
    outputName,
    request: (label, i, inputIds) => ({
      operation: "transform",
      operationVersion: "1",
      params: { run: i, side: label },
      inputs: [{ role: "data", artifactIds: inputIds }],
      outputs: [{ role: "out", artifacts: Array.from({ length: fan }, (_, j) => ({ originalName: outputName(label, i, j), contentHash: hash(outputName(label, i, j)) })) }],
    }),
  };
}

/** Registers the operations and records the input sets through the API; returns each set's artifact ids. */
export async function prepareProvgraph(client: GraphQLClient, work: Workload): Promise<string[][]> {
  await client.request(REGISTER, { i: { name: "source", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] } });
  await client.request(REGISTER, {
    i: { name: "transform", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] },
  });
  const sets: string[][] = [];
  for (let set = 0; set < work.pool; set++) {
    const names = Array.from({ length: work.fan }, (_, j) => work.inputName(set, j));
    const data = await client.request(RECORD, { input: { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: names.map((n) => ({ originalName: n, contentHash: hash(n) })) }] } });
    sets.push(data.recordExecution.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id));
  }
  return sets;
}

/** Request bodies, serialised ahead of time (the client's work is not what is measured). */
export function requestBodies(work: Workload, label: string, sets: string[][], count: number): string[] {
  return Array.from({ length: count }, (_, i) => JSON.stringify({ query: RECORD, variables: { input: work.request(label, i, sets[i % work.pool]) } }));
}

export function checkRecorded(data: { recordExecution: { __typename: string } }): void {
  if (data.recordExecution.__typename !== "RecordExecutionPayload") throw new Error(`ingest bench: ${JSON.stringify(data.recordExecution)}`);
}

/** What one raw execution writes: its rows, computed as provgraph computes them (ids hashed, times taken). */
interface RawExecution {
  runId: string;
  specId: string;
  params: string;
  at: Date;
  inputs: readonly string[];
  outputs: { id: string; name: string; contentHash: string }[];
}

function rawExecution(work: Workload, label: string, i: number, inputs: readonly string[]): RawExecution {
  const outputs = Array.from({ length: work.fan }, (_, j) => {
    const name = work.outputName(label, i, j);
    const contentHash = hash(name);
    return { id: artifactIdFor("csv", contentHash), name, contentHash };
  });
  return { runId: newRunId(), specId: specIdFrom(`transform/${label}/${i}`), params: JSON.stringify({ run: i, side: label }), at: new Date(), inputs, outputs };
}

const OPERATION_ID = operationIdFor("transform", "1");

/**
 * The raw SQLite side: prepared statements on better-sqlite3, one row per statement (the driver's
 * fastest way), in transactions of `perTransaction` executions. Same settings as provgraph's writer
 * (migrated the same way: WAL, synchronous = NORMAL unless told FULL, as SQLITE_SYNCHRONOUS tells
 * provgraph; checkpoints by a worker thread, never inside a COMMIT).
 */
export async function rawSqliteWriter(file: string, work: Workload, label: string, synchronous: "NORMAL" | "FULL" = "NORMAL") {
  await migrateDatabase(`file:${file}`);
  const db = new BetterSqlite3(file);
  db.pragma("temp_store = MEMORY");
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma("wal_autocheckpoint = 0");
  const checkpointer = startWalCheckpointer(file);
  const time = (date: Date) => date.toISOString().replace("Z", "+00:00");
  db.prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, 'transform', '1', 'CREATOR', '{}', ?) ON CONFLICT DO NOTHING`).run(OPERATION_ID, time(new Date()));
  const insertArtifact = db.prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", metadata, "createdAt") VALUES (?, 'csv', ?, ?, NULL, ?) ON CONFLICT DO NOTHING`);
  const insertExecution = db.prepare(`INSERT INTO "Execution" ("runId", "specId", "operationId", status, params, "recordedAt") VALUES (?, ?, ?, 'COMPLETED', ?, ?)`);
  const insertLink = db.prepare(`INSERT INTO "ExecutionArtifact" ("runId", "artifactId", direction, role, position) VALUES (?, ?, ?, ?, ?)`);
  const insertEdge = db.prepare(
    `INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "groupId", "stepBoundary", "sourceType", "targetType", "createdAt") VALUES (?, ?, ?, 'INDEPENDENT', ?, 1, 'csv', 'csv', ?)`,
  );
  const sets = Array.from({ length: work.pool }, (_, set) => Array.from({ length: work.fan }, (_, j) => artifactIdFor("csv", hash(work.inputName(set, j)))));
  db.transaction(() => sets.forEach((set, s) => set.forEach((id, j) => insertArtifact.run(id, hash(work.inputName(s, j)), work.inputName(s, j), time(new Date())))))();
  const write = (e: RawExecution) => {
    const at = time(e.at);
    insertExecution.run(e.runId, e.specId, OPERATION_ID, e.params, at);
    e.inputs.forEach((id, j) => insertLink.run(e.runId, id, "CONSUMED", "data", j));
    e.outputs.forEach((o, j) => {
      insertArtifact.run(o.id, o.contentHash, o.name, at);
      insertLink.run(e.runId, o.id, "PRODUCED", "out", j);
      insertEdge.run(e.inputs[j], o.id, e.runId, groupIdFor([e.inputs[j]]), at);
    });
  };
  const begin = db.prepare("BEGIN");
  const commit = db.prepare("COMMIT");
  return {
    /** Executions first … first + count − 1, `perTransaction` to a transaction. */
    record(first: number, count: number, perTransaction = 1) {
      for (let start = first; start < first + count; start += perTransaction) {
        begin.run();
        for (let i = start; i < Math.min(first + count, start + perTransaction); i++) write(rawExecution(work, label, i, sets[i % work.pool]));
        commit.run();
      }
    },
    close: async () => {
      db.close();
      await checkpointer.stop();
    },
  };
}

/**
 * The raw PostgreSQL side: the statements provgraph's hot path sends (one multi-row INSERT per
 * table, its rows as one JSON parameter), straight through `pg`, in transactions of `perTransaction`.
 */
export async function rawPgWriter(url: string, work: Workload, label: string) {
  await migrateDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const insert = (table: string, columns: string[], conflict = "") =>
    `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) SELECT ${columns.map((c) => `r."${c}"`).join(", ")} FROM json_populate_recordset(NULL::"${table}", $1::json) AS r${conflict}`;
  const artifactSql = insert("Artifact", ["id", "artifactType", "contentHash", "originalName", "metadata", "createdAt"], " ON CONFLICT DO NOTHING");
  const executionSql = insert("Execution", ["runId", "specId", "operationId", "status", "params", "recordedAt"]);
  const linkSql = insert("ExecutionArtifact", ["runId", "artifactId", "direction", "role", "position"]);
  const edgeSql = insert("ProvenanceEdge", ["sourceId", "targetId", "runId", "kind", "groupId", "stepBoundary", "sourceType", "targetType", "createdAt"]);
  await client.query(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ($1, 'transform', '1', 'CREATOR', '{}', now()) ON CONFLICT DO NOTHING`, [OPERATION_ID]);
  const sets = Array.from({ length: work.pool }, (_, set) => Array.from({ length: work.fan }, (_, j) => artifactIdFor("csv", hash(work.inputName(set, j)))));
  await client.query(artifactSql, [
    JSON.stringify(sets.flatMap((set, s) => set.map((id, j) => ({ id, artifactType: "csv", contentHash: hash(work.inputName(s, j)), originalName: work.inputName(s, j), metadata: null, createdAt: new Date() })))),
  ]);
  // One execution's statements; a batched transaction sends several executions' statements, as provgraph's group commit does.
  const write = async (e: RawExecution) => {
    await client.query(artifactSql, [JSON.stringify(e.outputs.map((o) => ({ id: o.id, artifactType: "csv", contentHash: o.contentHash, originalName: o.name, metadata: null, createdAt: e.at })))]);
    await client.query(executionSql, [JSON.stringify([{ runId: e.runId, specId: e.specId, operationId: OPERATION_ID, status: "COMPLETED", params: e.params, recordedAt: e.at }])]);
    const links = [
      ...e.inputs.map((id, j) => ({ runId: e.runId, artifactId: id, direction: "CONSUMED", role: "data", position: j })),
      ...e.outputs.map((o, j) => ({ runId: e.runId, artifactId: o.id, direction: "PRODUCED", role: "out", position: j })),
    ];
    await client.query(linkSql, [JSON.stringify(links)]);
    const edges = e.outputs.map((o, j) => ({
      sourceId: e.inputs[j],
      targetId: o.id,
      runId: e.runId,
      kind: "INDEPENDENT",
      groupId: groupIdFor([e.inputs[j]]),
      stepBoundary: true,
      sourceType: "csv",
      targetType: "csv",
      createdAt: e.at,
    }));
    await client.query(edgeSql, [JSON.stringify(edges)]);
  };
  return {
    async record(first: number, count: number, perTransaction = 1) {
      for (let start = first; start < first + count; start += perTransaction) {
        await client.query("BEGIN");
        for (let i = start; i < Math.min(first + count, start + perTransaction); i++) await write(rawExecution(work, label, i, sets[i % work.pool]));
        await client.query("COMMIT");
      }
    },
    close: () => client.end(),
  };
}

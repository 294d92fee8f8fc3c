import fs from "node:fs";
import http from "node:http";
import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { type Probe, quantile, startProber } from "../support/event-loop-prober";
import { PRODUCER, RUN_EVENT_SCHEMA } from "../support/openlineage";
import { draft } from "../support/recording";
import { type ServerProcess, startServer } from "../support/server-process";
import { createTestDatabaseUrl } from "../support/test-database";

/**
 * No single request may hold the event loop (docs: "Limits and budgets"). A real server process on
 * a store holding one 20,000-output run and a run joining those 20,000 outputs; each heavy request
 * kind runs alone while a prober (a thread of its own) asks /healthz every 10 ms. Over every probe
 * sent while a heavy request ran: p99 < 100 ms, none > 250 ms, and the server's peak resident memory
 * (VmHWM) < 600 MB. A kind that misses 250 ms is sent again, three attempts in all (see measure).
 *
 * Printed per kind, to tell a held event loop from a starved machine: the same probes against an
 * idle server of the same build (an empty store) meanwhile; the longest event-loop delay the server
 * itself logged ("event loop delayed", over 100 ms); and its main thread's CPU time and time spent
 * runnable but waiting for a core (/proc/<pid>/task/<pid>/schedstat).
 */
const OUTPUTS = 20_000;
const P99_MS = 100;
const MAX_MS = 250;
const PEAK_RSS_MB = 600;
/** Tries of a request kind whose worst probe missed MAX_MS (see measure). */
const ATTEMPTS = 3;

interface Answer {
  status: number;
  json: any;
}

interface Figures {
  kind: string;
  requestMs: number;
  probes: number;
  p99: number;
  max: number;
  idleP99: number;
  idleMax: number;
  /** The longest event-loop delay the server logged while the request ran (0: none over 100 ms). */
  loopMaxMs: number;
  /** The server's main thread: CPU time, and time waiting for a core, while the request ran. */
  cpuMs: number;
  waitMs: number;
  /** The server's peak resident memory so far (VmHWM) when the request ended, MB: where it rose tells which request raised it. */
  peakRssMb: number;
  outcome: string;
  /** When the request started, on the monotonic clock a CPU profile's timestamps use (s). */
  startedAt: number;
}

describe(`no request stalls the server (a server process, a ${OUTPUTS.toLocaleString("en-US")}-output store)`, () => {
  let server: ServerProcess;
  let idle: ServerProcess;
  let origin: string;
  let drop: () => Promise<void>;
  let dropIdle: () => Promise<void>;
  const figures: Figures[] = [];
  const allProbes: Probe[] = [];

  const post = async (path: string, body: string | Buffer, headers: Record<string, string> = { "content-type": "application/json" }): Promise<Answer> => {
    const response = await fetch(`${origin}${path}`, { method: "POST", headers, body: body as unknown as BodyInit });
    const text = await response.text();
    return { status: response.status, json: parse(text) };
  };
  const gql = (query: string, variables?: unknown) => post("/graphql", JSON.stringify({ query, variables }));

  /**
   * Runs one heavy request with the probers labelling their probes; records the figures. A request
   * whose worst probe misses MAX_MS is sent again, up to ATTEMPTS times in all, and the kind holds
   * if one attempt does: a request that holds the event loop misses every time, a machine starved
   * for a moment by its other tenants once. Every attempt is printed; only the last one's probes
   * count towards the p99 and max asserted at the end. `send` gets the attempt (0, 1, …).
   */
  const measure = async <T>(kind: string, send: (attempt: number) => Promise<T>, outcomeOf: (answer: T) => string): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      const { answer, probes, figure } = await measureOnce(attempt === 0 ? kind : `${kind} (again: ${attempt + 1} of ${ATTEMPTS})`, () => send(attempt), outcomeOf);
      figures.push(figure);
      if (figure.max < MAX_MS || attempt + 1 >= ATTEMPTS) {
        allProbes.push(...probes);
        return answer;
      }
    }
  };

  const measureOnce = async <T>(kind: string, send: () => Promise<T>, outcomeOf: (answer: T) => string): Promise<{ answer: T; probes: Probe[]; figure: Figures }> => {
    const prober = startProber(`${origin}/healthz`);
    const idleProber = startProber(`${new URL(idle.url).origin}/healthz`);
    // A few idle probes first, so the probers' connections are open before the request starts.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const logFrom = server.output().length;
    const before = schedstat(server.child.pid!);
    prober.label(kind);
    idleProber.label(kind);
    const startedAt = Number(process.hrtime.bigint() / 1000n) / 1e6;
    const started = performance.now();
    let answer: T;
    try {
      answer = await send();
    } finally {
      prober.label(null);
      idleProber.label(null);
    }
    const requestMs = performance.now() - started;
    const after = schedstat(server.child.pid!);
    const [probes, idleProbes] = await Promise.all([prober.stop(), idleProber.stop()]);
    // The server logs a second's delays at the end of it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const ms = (list: Probe[]) => list.map((p) => (p.status === 200 ? p.ms : Number.POSITIVE_INFINITY));
    const figure: Figures = {
      kind,
      requestMs: Math.round(requestMs),
      probes: probes.length,
      p99: Math.round(quantile(ms(probes), 0.99)),
      max: Math.round(Math.max(0, ...ms(probes))),
      idleP99: Math.round(quantile(ms(idleProbes), 0.99)),
      idleMax: Math.round(Math.max(0, ...ms(idleProbes))),
      loopMaxMs: loggedLoopDelay(server.output().slice(logFrom)),
      cpuMs: Math.round(after.cpuMs - before.cpuMs),
      waitMs: Math.round(after.waitMs - before.waitMs),
      peakRssMb: peakRssMb(server.child.pid!),
      outcome: outcomeOf(answer),
      startedAt,
    };
    return { answer, probes, figure };
  };
  const outcome = (answer: Answer) => `${answer.status} ${answer.json?.errors?.map((e: any) => e.extensions?.code).join(",") ?? (answer.json?.error?.code ?? "")}`.trim();

  beforeAll(async () => {
    const [database, idleDatabase] = await Promise.all([createTestDatabaseUrl(), createTestDatabaseUrl()]);
    drop = database.drop;
    dropIdle = idleDatabase.drop;
    await Promise.all([
      // STALL_CPU_PROF=<dir>: the server writes a CPU profile there when it stops (the figures give each request's monotonic start).
      // The server as shipped (`npm start`: the compiled server), whose memory is what the bound is about.
      startServer({ DATABASE_URL: database.url, PORT: "0", LOG_LEVEL: "info" }, 180_000, process.env.STALL_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.STALL_CPU_PROF}`] : [], true).then((started) => (server = started)),
      startServer({ DATABASE_URL: idleDatabase.url, PORT: "0", LOG_LEVEL: "info" }, 180_000, [], true).then((started) => (idle = started)),
    ]);
    origin = new URL(server.url).origin;
  }, 240_000);

  afterAll(async () => {
    // A server that ended by itself says why in its last lines.
    if (server && server.child.exitCode !== null) process.stdout.write(`the server exited with ${server.child.exitCode}:\n${server.output().split("\n").slice(-20).join("\n")}\n`);
    for (const child of [server?.child, idle?.child]) {
      if (child?.exitCode === null) child.kill("SIGTERM");
    }
    await Promise.all([server?.exited, idle?.exited]);
    await Promise.all([drop?.(), dropIdle?.()]);
    const table = figures.map(
      (f) =>
        `  ${f.kind.padEnd(52)} ${String(f.requestMs).padStart(7)} ms  probes ${String(f.probes).padStart(5)}  p99 ${String(f.p99).padStart(5)}  max ${String(f.max).padStart(5)}` +
        `  | idle p99 ${String(f.idleP99).padStart(5)} max ${String(f.idleMax).padStart(5)}  | loop ${String(f.loopMaxMs).padStart(5)}  cpu ${String(f.cpuMs).padStart(6)} wait ${String(f.waitMs).padStart(6)}  peak RSS ${String(f.peakRssMb).padStart(4)} MB  ${f.outcome}${process.env.STALL_CPU_PROF ? `  at ${f.startedAt.toFixed(2)} s` : ""}`,
    );
    process.stdout.write(`stall test figures (ms; idle: an idle server meanwhile; loop: the server's logged event-loop delay; cpu/wait: its main thread):\n${table.join("\n")}\n`);
  });

  let joinId: string;
  let partIds: string[];
  let evidenceText: string;

  test(`the store: a ${OUTPUTS.toLocaleString("en-US")}-output run, then a run joining them`, async () => {
    const register = (input: unknown) => gql(`mutation($input: RegisterOperationInput!) { registerOperation(input: $input) { __typename } }`, { input });
    await register({ name: "scatter", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "part", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await register({ name: "join", version: "1", kind: "CREATOR", inputs: [{ role: "parts", artifactType: "csv" }], outputs: [{ role: "joined", artifactType: "csv", inferLineageFrom: { inputs: ["parts"] } }] });
    const record = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename ... on RecordExecutionPayload { edgeCount execution { runId outputs { artifact { id } } } } ... on Error { code message } } }`;
    const pins = { imageDigest: "sha256:feed", deterministic: true, inputVersions: { source: "v1" } };
    // A recording sent again goes to a pipeline of its own (its step is taken in "big").
    const pipelineOf = (attempt: number) => (attempt === 0 ? "big" : `big_${attempt}`);
    const scattered = await measure(
      `recordExecution, ${OUTPUTS.toLocaleString("en-US")} outputs`,
      (attempt) => gql(record, { input: { operation: "scatter", operationVersion: "1", pipeline: pipelineOf(attempt), step: 1, pins, inputs: [], outputs: [{ role: "part", artifacts: Array.from({ length: OUTPUTS }, (_, i) => draft(`part_${i}.csv`)) }] } }),
      outcome,
    );
    const parts: string[] = scattered.json.data.recordExecution.execution.outputs.map((o: any) => o.artifact.id);
    expect(parts).toHaveLength(OUTPUTS);
    partIds = parts;
    const joined = await measure(
      `recordExecution joining ${OUTPUTS.toLocaleString("en-US")} inputs`,
      (attempt) => gql(record, { input: { operation: "join", operationVersion: "1", pipeline: pipelineOf(attempt), step: 2, pins, inputs: [{ role: "parts", artifactIds: parts }], outputs: [{ role: "joined", artifacts: [draft("joined.csv")] }], lineage: [{ output: "joined.csv", sources: parts }] } }),
      outcome,
    );
    expect(joined.json.data.recordExecution.edgeCount).toBe(OUTPUTS);
    joinId = joined.json.data.recordExecution.execution.outputs[0].artifact.id;
  }, 600_000);

  test("graph views, evidence, PROV-JSON and closures", async () => {
    await measure("microGraph(upToStep: 1) { columnCount }", () => gql(`{ microGraph(pipeline: "big", upToStep: 1) { columnCount } }`), outcome);
    await measure("microGraph (all steps, DOT)", () => gql(`{ microGraph(pipeline: "big", format: DOT) { columnCount dot } }`), outcome);
    await measure("evidencePackage(join) { sha256 }", () => gql(`query($id: ID!) { evidencePackage(artifactId: $id) { sha256 } }`, { id: joinId }), outcome);
    await measure("evidencePackage(join) x3 aliased", () => gql(`query($id: ID!) { a: evidencePackage(artifactId: $id) { sha256 } b: evidencePackage(artifactId: $id) { sha256 } c: evidencePackage(artifactId: $id) { sha256 } }`, { id: joinId }), outcome);
    const download = await measure(
      "GET /api/v1/evidence/<join>",
      async () => {
        const response = await fetch(`${origin}/api/v1/evidence/${joinId}`);
        return { status: response.status, text: await response.text() };
      },
      (answer) => `${answer.status} ${(answer.text.length / 1e6).toFixed(1)} MB`,
    );
    evidenceText = download.text;
    await measure("verifyEvidence(<the join's document>)", () => post("/graphql", `{"query":"query($d: JSON!) { verifyEvidence(document: $d) { valid } }","variables":{"d":${evidenceText}}}`), outcome);
    await measure("provJson(join)", () => gql(`query($id: ID!) { provJson(artifactId: $id) }`, { id: joinId }), outcome);
    await measure("lineage(join) { nodeIds }", () => gql(`query($id: ID!) { lineage(artifactId: $id) { nodeIds } }`, { id: joinId }), outcome);
  }, 900_000);

  test("the graph API at its bounds, beside the 20,000-output run and the join", async () => {
    const part = partIds[0];
    const answered = (answer: Answer) => expect([answer.status, answer.json.errors]).toEqual([200, undefined]);
    // Of the default size, yet beside the join's 20,000-input group, which it reads to decide how much of it to draw.
    answered(await measure("lineageGraph(part, BOTH, depth 3)", () => gql(`query($id: ID!) { lineageGraph(roots: [$id], direction: BOTH, depth: 3) { nodes { id } edges { id } } }`, { id: part }), outcome));
    answered(await measure("lineageGraph(part, BOTH, depth 10, first 5,000)", () => gql(`query($id: ID!) { lineageGraph(roots: [$id], direction: BOTH, depth: 10, first: 5000) { nodes { id hiddenUpstream hiddenDownstream } edges { id kind } } }`, { id: part }), outcome));
    answered(await measure("lineageGraph(join, UPSTREAM, depth 2, first 5,000, layout)", () => gql(`query($id: ID!) { lineageGraph(roots: [$id], direction: UPSTREAM, depth: 2, first: 5000, layout: true) { nodes { id x y } edges { id } } }`, { id: joinId }), outcome));
    // The join run and the 19,999 other parts it used with this one: a co-input group comes whole.
    const expanded = await measure("expand(part, DOWNSTREAM): the join, 19,999 co-inputs", () => gql(`query($id: ID!) { expand(nodeId: $id, direction: DOWNSTREAM, first: 500) { nodes { id } edges { kind } } }`, { id: part }), outcome);
    answered(expanded);
    expect(expanded.json.data.expand.nodes.length).toBeGreaterThanOrEqual(OUTPUTS);
    answered(await measure("impact(join, UPSTREAM), each depth's first 500 nodes", () => gql(`query($id: ID!) { impact(id: $id, direction: UPSTREAM) { totals { kind count } byDepth { depth nodes(first: 500) { edges { node { id } } } } } }`, { id: joinId }), outcome));
    answered(await measure("lineagePath(part, join)", () => gql(`query($a: ID!, $b: ID!) { lineagePath(from: $a, to: $b, maxPaths: 100) { paths { length } } }`, { a: part, b: joinId }), outcome));
  }, 600_000);

  test("deep and large bodies on /graphql, graphql-ws and the OpenLineage routes", async () => {
    const deep = (depth: number) => Buffer.concat([Buffer.from('{"query":"{__typename}","variables":{"a":'), Buffer.alloc(depth, "["), Buffer.alloc(depth, "]"), Buffer.from("}}")]);
    const deepEvent = (depth: number) => Buffer.concat([Buffer.from(`{"eventType":"COMPLETE","eventTime":"2026-03-11T02:14:07.318Z","producer":"x","schemaURL":"${RUN_EVENT_SCHEMA}","run":{"runId":"${randomUUID()}","facets":{"a":`), Buffer.alloc(depth, "["), Buffer.alloc(depth, "]"), Buffer.from("}}}")]);
    // The refusal is answered while the client still sends; the client reads it (a 400, not a broken pipe).
    const graphqlAnswer = { "content-type": "application/json", accept: "application/graphql-response+json" };
    const refusals: Answer[] = [];
    refusals.push(await measure("POST /graphql, 24.8 MB, 12.4 million deep", () => sendRaw(origin, "/graphql", deep(12_400_000), graphqlAnswer), outcome));
    refusals.push(await measure("POST /graphql, 10 MB, 5 million deep", () => sendRaw(origin, "/graphql", deep(5_000_000), graphqlAnswer), outcome));
    const ws = await measure("graphql-ws message, 6 MB, 3 million deep", () => wsSend(origin, Buffer.concat([Buffer.from('{"id":"1","type":"subscribe","payload":'), deep(3_000_000), Buffer.from("}")])), (answer) => answer);
    refusals.push(await measure("POST /api/v1/lineage, 10 MB, 5 million deep", () => sendRaw(origin, "/api/v1/lineage", deepEvent(5_000_000)), outcome));
    refusals.push(await measure("POST /api/v1/lineage/batch, 10 MB, 5 million deep", () => sendRaw(origin, "/api/v1/lineage/batch", Buffer.concat([Buffer.from("["), deepEvent(5_000_000), Buffer.from("]")])), outcome));
    expect(refusals.map(outcome)).toEqual(["400 JSON_TOO_DEEP", "400 JSON_TOO_DEEP", "400 JSON_TOO_DEEP", "400 JSON_TOO_DEEP"]);
    expect(ws).toMatch(/^closed 4400 JSON_TOO_DEEP/);
  }, 600_000);

  test("big OpenLineage writes", async () => {
    const event = (i: number, inputs: unknown[], outputs: unknown[]) => ({
      eventType: "COMPLETE",
      eventTime: "2026-03-11T02:14:07.318Z",
      producer: PRODUCER,
      schemaURL: RUN_EVENT_SCHEMA,
      run: { runId: randomUUID(), facets: {} },
      job: { namespace: "stall", name: `job_${i}` },
      inputs,
      outputs,
    });
    // Built per attempt: new run ids, so an attempt sent again is recorded again, not answered as a duplicate.
    const batch = () =>
      Array.from({ length: 250 }, (_, i) =>
        event(
          i,
          Array.from({ length: 5 }, (_, k) => ({ namespace: "stall", name: `in_${i}_${k}` })),
          [{ namespace: "stall", name: `out_${i}` }],
        ),
      );
    await measure("OpenLineage batch, 250 events x 5 inputs", () => post("/api/v1/lineage/batch", JSON.stringify(batch())), outcome);
    const fields = Object.fromEntries(Array.from({ length: OUTPUTS }, (_, i) => [`c_${i}`, { inputFields: [{ namespace: "stall", name: "wide_in", field: "id" }] }]));
    const wide = () => event(0, [{ namespace: "stall", name: "wide_in" }], [{ namespace: "stall", name: "wide_out", facets: { columnLineage: { _producer: PRODUCER, _schemaURL: "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet", fields } } }]);
    await measure(`OpenLineage event, ${OUTPUTS.toLocaleString("en-US")} column-lineage fields`, () => post("/api/v1/lineage", JSON.stringify(wide())), outcome);
    await measure(`columnLineage DOWNSTREAM, ${OUTPUTS.toLocaleString("en-US")} columns`, () => gql(`{ columnLineage(namespace: "stall", name: "wide_in", field: "id", direction: DOWNSTREAM) { nodes { field } } }`), outcome);
  }, 600_000);

  test(`over every probe: p99 < ${P99_MS} ms, max < ${MAX_MS} ms; peak RSS < ${PEAK_RSS_MB} MB`, () => {
    const ms = allProbes.map((p) => (p.status === 200 ? p.ms : Number.POSITIVE_INFINITY));
    const summary = { probes: ms.length, p99: Math.round(quantile(ms, 0.99)), max: Math.round(Math.max(...ms)), peakRssMb: peakRssMb(server.child.pid!) };
    process.stdout.write(`stall test, over all heavy requests: ${JSON.stringify(summary)}\n`);
    expect(summary.p99).toBeLessThan(P99_MS);
    expect(summary.max).toBeLessThan(MAX_MS);
    expect(summary.peakRssMb).toBeLessThan(PEAK_RSS_MB);
  });
});

/** The server main thread's CPU time and run-queue wait (Linux schedstat: ns on a core, ns waiting for one), ms. */
function schedstat(pid: number): { cpuMs: number; waitMs: number } {
  const [cpu, wait] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").trim().split(/\s+/).map(Number);
  return { cpuMs: cpu / 1e6, waitMs: wait / 1e6 };
}

/** A process's peak resident memory so far (VmHWM), MB. */
function peakRssMb(pid: number): number {
  return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024);
}

/** The longest delay in the server's "event loop delayed" log lines (0: none). */
function loggedLoopDelay(log: string): number {
  let max = 0;
  for (const line of log.split("\n")) {
    if (!line.includes('"event loop delayed"')) continue;
    max = Math.max(max, Math.round(JSON.parse(line).eventLoop.maxMs));
  }
  return max;
}

function parse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 200);
  }
}

/**
 * POSTs a body with node:http and resolves with the answer as soon as it is read: a server may
 * answer (and stop reading) before the body is all sent, so an EPIPE or reset after the answer is
 * no failure; one before it is.
 */
function sendRaw(origin: string, path: string, body: Buffer, headers: Record<string, string> = { "content-type": "application/json" }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${origin}${path}`, { method: "POST", headers: { ...headers, "content-length": String(body.length) } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, json: parse(text) }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** Opens a graphql-ws socket, sends one raw message after the handshake, and says how it ended. */
function wsSend(origin: string, message: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${origin.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
    const timer = setTimeout(() => {
      socket.terminate();
      resolve("no answer in 120 s");
    }, 120_000);
    socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init", payload: {} })));
    socket.on("message", (data) => {
      const reply = JSON.parse(String(data));
      if (reply.type === "connection_ack") socket.send(message);
      else {
        clearTimeout(timer);
        socket.close();
        resolve(`${reply.type} ${JSON.stringify(reply.payload ?? null).slice(0, 120)}`);
      }
    });
    socket.on("close", (code, reason) => {
      clearTimeout(timer);
      resolve(`closed ${code} ${String(reason).slice(0, 100)}`);
    });
    socket.on("error", reject);
  });
}

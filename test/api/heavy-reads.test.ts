import { gzipSync } from "node:zlib";
import WebSocket from "ws";
import { HeavyReads, RequestBudget } from "../../src/services/heavy-reads";
import { LONG_LIST_ITEMS } from "../../src/services/heavy-reads/answer-pieces";
import { draft } from "../support/recording";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/**
 * Heavy reads run in worker threads under a time budget (QUERY_BUDGET_MS) and a size budget
 * (RESULT_MAX_NODES); request bodies, query strings and WebSocket messages are bounded in nesting
 * before they are parsed (docs/api.md "Heavy reads" and "Request limits").
 */
const PARTS = 3_000;

describe("heavy reads and bounded bodies", () => {
  let t: TestApp;
  let join: string;

  const record = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { ... on RecordExecutionPayload { execution { outputs { artifact { id } } } } ... on Error { code message } } }`;
  const pins = { imageDigest: "sha256:feed", deterministic: true, inputVersions: { source: "v1" } };

  beforeAll(async () => {
    // Room for 50 nodes per answer, bodies of 1 MiB.
    t = await createTestApp({ env: { RESULT_MAX_NODES: "50", HEAVY_READ_THREADS: "1", GRAPHQL_MAX_BODY_BYTES: "1048576" } });
    const register = (input: unknown) => t.gql(`mutation($input: RegisterOperationInput!) { registerOperation(input: $input) { __typename } }`, { input });
    await register({ name: "scatter", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "part", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await register({ name: "join", version: "1", kind: "CREATOR", inputs: [{ role: "parts", artifactType: "csv" }], outputs: [{ role: "joined", artifactType: "csv", inferLineageFrom: { inputs: ["parts"] } }] });
    const scattered = await t.gql(record, { input: { operation: "scatter", operationVersion: "1", pipeline: "wide", step: 1, pins, inputs: [], outputs: [{ role: "part", artifacts: Array.from({ length: PARTS }, (_, i) => draft(`part_${i}.csv`)) }] } });
    const parts = scattered.data!.recordExecution.execution.outputs.map((o: any) => o.artifact.id);
    const joined = await t.gql(record, {
      input: { operation: "join", operationVersion: "1", pipeline: "wide", step: 2, pins, inputs: [{ role: "parts", artifactIds: parts }], outputs: [{ role: "joined", artifacts: [draft("joined.csv")] }], lineage: [{ output: "joined.csv", sources: parts }] },
    });
    join = joined.data!.recordExecution.execution.outputs[0].artifact.id;
    await t.app.services.heavyReads.warm();
  }, 180_000);
  afterAll(() => t.close());

  test("a graph view over RESULT_MAX_NODES is RESULT_TOO_LARGE, naming the argument to lower, before it is laid out", async () => {
    const res = await t.gql(`{ microGraph(pipeline: "wide", upToStep: 1) { columnCount } }`);
    expect(res.errors).toEqual([
      {
        message: `the micro graph of wide up to step 1 has ${(PARTS + 1).toLocaleString("en-US")} nodes; at most 50 are served in one answer: lower upToStep`,
        locations: [{ line: 1, column: 3 }],
        path: ["microGraph"],
        extensions: { code: "RESULT_TOO_LARGE", limit: 50, found: PARTS + 1, field: "microGraph", argument: "upToStep" },
      },
    ]);
  });

  test("work past the request's budget is stopped (its thread ended, the read queued behind it dropped) and answers QUERY_TIMEOUT with the budget; the pool serves the next read", async () => {
    const closure = { rootId: join as never, direction: "UPSTREAM" as const, first: 40_000, withArtifacts: true };
    // The budget is a fifth of what the read takes on this machine, measured first, so the test holds on a fast machine and a slow one alike.
    const calibration = new HeavyReads({ ...t.app.services.heavyReads.options, budgetMs: 60_000 }, t.app.database);
    let fastest = Number.POSITIVE_INFINITY;
    try {
      await calibration.warm();
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        await calibration.run("provJson", closure);
        fastest = Math.min(fastest, performance.now() - started);
      }
    } finally {
      await calibration.close();
    }
    const budgetMs = Math.max(1, Math.floor(fastest / 5));
    // No grace: the running read's thread is terminated the moment the budget ends.
    const pool = new HeavyReads({ ...t.app.services.heavyReads.options, budgetMs, terminateGraceMs: 0 }, t.app.database);
    try {
      await pool.warm();
      const budget = new RequestBudget(budgetMs);
      const answers = await Promise.allSettled([pool.run("provJson", closure, budget), pool.run("provJson", { ...closure, first: 50_000 }, budget)]);
      expect(answers.map((a) => (a.status === "rejected" ? [a.reason.code, a.reason.details] : "answered"))).toEqual([
        ["QUERY_TIMEOUT", { budgetMs }],
        ["QUERY_TIMEOUT", { budgetMs }],
      ]);
      expect(pool.stats()).toMatchObject({ running: 0, timedOut: 2 });
      const next = await pool.run("macroGraph", { pipeline: "wide", options: {} }, new RequestBudget(60_000));
      expect(next.columns.length).toBe(5);
    } finally {
      await pool.close();
    }
  });

  test("a read whose client went away does not run: queued behind another it ends REQUEST_ABORTED, its thread free for the next; one already gone is not queued", async () => {
    const pool = t.app.services.heavyReads;
    const closure = { rootId: join as never, direction: "UPSTREAM" as const, first: 2_000, withArtifacts: true };
    const statementsOf = async (reads: () => Promise<unknown>) => {
      const before = t.app.database.statementCount();
      await reads();
      return t.app.database.statementCount() - before;
    };
    // Once first: a thread's first read of a kind may run a statement once (its readers made).
    await pool.run("provJson", closure);
    const alone = await statementsOf(() => pool.run("provJson", closure));
    expect(alone).toBeGreaterThan(0);
    const before = pool.stats();
    const client = new AbortController();
    let outcomes: string[] = [];
    const together = await statementsOf(async () => {
      // One thread: the second waits for the first; its client goes away meanwhile.
      const reads = [pool.run("provJson", closure), pool.run("provJson", closure, new RequestBudget(60_000, client.signal))];
      client.abort();
      outcomes = (await Promise.allSettled(reads)).map((a) => (a.status === "rejected" ? a.reason.code : "answered"));
    });
    expect(outcomes).toEqual(["answered", "REQUEST_ABORTED"]);
    // The second read ran none of its statements.
    expect(together).toBe(alone);
    await expect(pool.run("provJson", closure, new RequestBudget(60_000, client.signal))).rejects.toMatchObject({ code: "REQUEST_ABORTED" });
    expect(pool.stats()).toMatchObject({ running: 0, abandoned: before.abandoned + 2, timedOut: before.timedOut });
  });

  test("an answer with long lists comes from its thread in pieces, the same as read on the event loop: expand of a part, the join and its co-inputs", async () => {
    const part = (await t.gql(`query($id: ID!) { lineage(artifactId: $id, direction: UPSTREAM, first: 1) { nodes { artifact { id } } } }`, { id: join })).data!.lineage.nodes[0].artifact.id;
    const args = { nodeId: part, direction: "DOWNSTREAM" as const, first: 500, after: null, asOf: null, stepBoundaryOnly: false, columns: false };
    const inThread = await t.app.services.heavyReads.run("expand", args);
    // More nodes than a list sends whole (answer-pieces.ts: LONG_LIST_ITEMS): this answer crossed in pieces.
    expect(inThread.nodes.length).toBeGreaterThan(LONG_LIST_ITEMS);
    const onEventLoop = new HeavyReads({ ...t.app.services.heavyReads.options, threads: 0 }, t.app.database);
    try {
      expect(inThread).toEqual(await onEventLoop.run("expand", args));
    } finally {
      await onEventLoop.close();
    }
  });

  test("the same heavy read aliased in one request runs once: three provJson copies, one closure", async () => {
    const before = t.app.services.heavyReads.stats().completed;
    const res = await t.gql(`query($id: ID!) { a: provJson(artifactId: $id, first: 10) b: provJson(artifactId: $id, first: 10) c: provJson(artifactId: $id, first: 10) }`, { id: join });
    expect(res.errors).toBeUndefined();
    expect(t.app.services.heavyReads.stats().completed - before).toBe(1);
    expect(res.data!.b).toEqual(res.data!.a);
    expect(res.data!.c).toEqual(res.data!.a);
    expect(Object.keys(res.data!.a.entity).length).toBeGreaterThan(1);
  });

  test("evidence packages are built in a thread: three evidencePackage aliases, one package; verifyEvidence and GET /api/v1/evidence give the same digest", async () => {
    const before = t.app.services.heavyReads.stats().completed;
    // Not provable: "sha256:feed" names no content digest.
    const res = await t.gql(`query($id: ID!) { a: evidencePackage(artifactId: $id) { sha256 } b: evidencePackage(artifactId: $id) { sha256 } c: evidencePackage(artifactId: $id) { sha256 provable } }`, { id: join });
    expect(t.app.services.heavyReads.stats().completed - before).toBe(1);
    expect(res).toEqual({ data: { a: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }, b: { sha256: res.data!.a.sha256 }, c: { sha256: res.data!.a.sha256, provable: false } } });
    const download = await t.app.yoga.fetch(`http://provgraph.test/api/v1/evidence/${join}`);
    const document = JSON.parse(await download.text());
    expect([download.status, download.headers.get("etag")]).toEqual([200, `"sha256:${res.data!.a.sha256}"`]);
    // The join's document is over this app's 1 MiB body limit: checked in the thread as verifyEvidence checks it.
    const check = await t.app.services.heavyReads.run("verifyEvidence", { document, withheld: [], signedPayload: null });
    expect(check).toEqual({ valid: true, documentSha256: res.data!.a.sha256, currentSha256: res.data!.a.sha256, differences: [], runIds: [expect.stringMatching(/^run_/)], signsDocument: null });
    const part = (await t.gql(`query($id: ID!) { lineage(artifactId: $id) { nodeIds } }`, { id: join })).data!.lineage.nodeIds.find((id: string) => id !== join);
    const small = await t.gql(`query($id: ID!) { evidencePackage(artifactId: $id) { sha256 document } }`, { id: part });
    const beforeVerify = t.app.services.heavyReads.stats().completed;
    const verified = await t.gql(`query($d: JSON!) { verifyEvidence(document: $d) { valid currentSha256 differences } }`, { d: small.data!.evidencePackage.document });
    expect(verified.data!.verifyEvidence).toEqual({ valid: true, currentSha256: small.data!.evidencePackage.sha256, differences: [] });
    expect(t.app.services.heavyReads.stats().completed - beforeVerify).toBe(1);
    // Too large to serve whole (3,001 nodes, 3,000 edges, two runs, the join's 3,000 inputs and two violations: 9,004 entries; at most 50): its lists answer RESULT_TOO_LARGE, pointing to the evidence route.
    const lists = await t.gql(`query($id: ID!) { evidencePackage(artifactId: $id) { sha256 nodes { depth } } }`, { id: join });
    expect(lists.errors!.map((e) => [e.path, e.extensions!.code, e.extensions!.field, e.extensions!.found, e.extensions!.alternative])).toEqual([
      [["evidencePackage", "nodes"], "RESULT_TOO_LARGE", "nodes", 9_004, `download it whole from GET /api/v1/evidence/${join}, or select only sha256, provable, truncated and violations`],
    ]);
  });

  test.each([
    ["/graphql, JSON body", () => post("/graphql", deepBody(100_000)), 400, "JSON_TOO_DEEP"],
    ["/graphql, chunked body over GRAPHQL_MAX_BODY_BYTES", () => post("/graphql", chunked(Buffer.concat([Buffer.from('{"query":"{__typename}","variables":{"a":"'), Buffer.alloc(2_000_000, "x"), Buffer.from('"}}')]))), 413, "PAYLOAD_TOO_LARGE"],
    ["/graphql, GET variables", () => get(`/graphql?query=${encodeURIComponent("{__typename}")}&variables=${encodeURIComponent(`{"a":${"[".repeat(200)}${"]".repeat(200)}}`)}`), 400, "JSON_TOO_DEEP"],
    ["/api/v1/lineage", () => post("/api/v1/lineage", deepBody(1_000_000)), 400, "JSON_TOO_DEEP"],
    ["/api/v1/lineage/batch, gzip", () => post("/api/v1/lineage/batch", gzipSync(deepBody(1_000_000)), { "content-encoding": "gzip" }), 400, "JSON_TOO_DEEP"],
  ])("%s nested too deep is refused before it is parsed", async (_name, send, status, code) => {
    const { status: answered, json } = await send();
    expect([answered, json.errors?.[0]?.extensions?.code ?? json.error?.code]).toEqual([status, code]);
  });

  test("a graphql-ws message nested too deep closes its socket with 4400 JSON_TOO_DEEP; one under the limit is answered", async () => {
    const server = await t.app.start();
    const socket = new WebSocket(server.replace(/^http/, "ws"), "graphql-transport-ws");
    const replies: string[] = [];
    const closed = new Promise<[number, string]>((resolve) => socket.on("close", (closeCode, reason) => resolve([closeCode, String(reason)])));
    socket.on("message", (data) => {
      const reply = JSON.parse(String(data));
      replies.push(reply.type);
      if (reply.type === "connection_ack") socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: "{ __typename }", variables: { a: [[[1]]] } } }));
      if (reply.type === "complete") socket.send(Buffer.concat([Buffer.from('{"id":"2","type":"subscribe","payload":'), deepBody(100_000), Buffer.from("}")]));
    });
    socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init", payload: {} })));
    expect(await closed).toEqual([4400, "JSON_TOO_DEEP: a message nests objects and arrays more than 128 levels deep"]);
    expect(replies).toEqual(["connection_ack", "next", "complete"]);
  });

  async function post(path: string, body: Uint8Array | ReadableStream, headers: Record<string, string> = {}) {
    const response = await t.app.yoga.fetch(`http://provgraph.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...headers },
      body,
      duplex: "half",
    } as RequestInit);
    return { status: response.status, json: (await response.json()) as any };
  }
  async function get(path: string) {
    const response = await t.app.yoga.fetch(`http://provgraph.test${path}`, { headers: { "x-graphql-yoga-csrf": "1", accept: "application/graphql-response+json" } });
    return { status: response.status, json: (await response.json()) as any };
  }
});

function deepBody(depth: number): Buffer {
  return Buffer.concat([Buffer.from('{"query":"{__typename}","variables":{"a":'), Buffer.alloc(depth, "["), Buffer.alloc(depth, "]"), Buffer.from("}}")]);
}

/** A body of unknown length (no Content-Length), as a client streaming it sends it. */
function chunked(bytes: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(offset, (offset += 65_536))));
    },
  });
}

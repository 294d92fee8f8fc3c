import http from "node:http";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import type { CapturePlugin } from "../../plugins/types";
import { defaultPlugins } from "../../plugins/registry";
import { type App, buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { capturedLog } from "../support/request-log";
import type { TestApp } from "../support/test-app";
import { createTestDatabaseUrl } from "../support/test-database";
import { registerOperation, tableCounts } from "../support/recording";

/** A capture plugin that fails like a bug would: the one fault in this file. */
const failingPlugin: CapturePlugin = {
  name: "failing",
  stage: "capture",
  capture(draft) {
    if (draft.outputs.some((output) => output.originalName === "boom.csv")) throw new Error("simulated bug");
    return [];
  },
};

/** provgraph on a real socket (port 0), with its log lines captured. */
describe("client errors over real sockets", () => {
  let app: App;
  let url: string;
  let drop: () => Promise<void>;
  let logLines: Record<string, any>[] = [];
  let t: TestApp;

  beforeAll(async () => {
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    const { logger, lines } = capturedLog();
    logLines = lines;
    app = await buildApp(loadConfig({ DATABASE_URL: database.url, PORT: "0" }), { logger, plugins: [failingPlugin, ...defaultPlugins] });
    url = await app.start();
    t = {
      app,
      gql: async (query, variables) => (await post({ query, variables })).json as never,
      close: async () => undefined,
    };
    await registerOperation(t, { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "sample", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
  });
  afterAll(async () => {
    await app.stop();
    await drop();
  });

  /** One request on its own connection (no keep-alive reuse across tests). */
  function send(path: string, body?: string): Promise<{ status: number; text: string; ms: number }> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const request = http.request(
        new URL(path, url),
        { method: body === undefined ? "GET" : "POST", agent: false, headers: body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk) => chunks.push(chunk));
          response.on("end", () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString(), ms: Date.now() - started }));
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  }
  async function post(payload: unknown) {
    const response = await send("/graphql", JSON.stringify(payload));
    return { ...response, json: JSON.parse(response.text) };
  }

  /** Sends `body` and polls /healthz every 20 ms until it is answered; returns the slowest health answer. */
  async function whileRefusing(body: string) {
    let answered = false;
    const refused = send("/graphql", body).finally(() => (answered = true));
    const healthTimes: number[] = [];
    while (!answered) {
      const health = await send("/healthz");
      expect(JSON.parse(health.text)).toEqual({ status: "ok" });
      healthTimes.push(health.ms);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const response = await refused;
    return { response, json: JSON.parse(response.text), slowestHealth: Math.max(...healthTimes) };
  }

  describe("/healthz answers within 1 s while an over-limit request is refused", () => {
    test.each([
      [
        "10,000 aliased mutations",
        () => {
          const selections = Array.from({ length: 10_000 }, (_, i) => `m${i}: registerOperation(input: $i) { __typename }`).join(" ");
          return JSON.stringify({ query: `mutation($i: RegisterOperationInput!) { ${selections} }`, variables: { i: { name: "flood", version: "1", kind: "CREATOR", inputs: [], outputs: [] } } });
        },
        "DOCUMENT_TOO_LARGE",
      ],
      ["a 5 MB document", () => JSON.stringify({ query: `{ ${"__typename ".repeat(500_000)} }` }), "DOCUMENT_TOO_LARGE"],
      ["nodes(ids) with 100,000 ids", () => JSON.stringify({ query: "query($ids: [ID!]!) { nodes(ids: $ids) { id } }", variables: { ids: Array.from({ length: 100_000 }, (_, i) => `art_${i.toString(16).padStart(40, "0")}`) } }), "INVALID_ARGUMENT"],
      ["params nested 5,000 deep", () => `{"query": "mutation($p: JSON) { recordExecution(input: { operation: \\"generate\\", operationVersion: \\"1\\", params: $p, inputs: [], outputs: [] }) { __typename } }", "variables": {"p": ${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}}`, "JSON_TOO_DEEP"],
    ])("%s", async (_name, body, code) => {
      const before = await tableCounts(t);
      const { response, json, slowestHealth } = await whileRefusing(body());
      expect(json.errors.map((e: any) => e.extensions.code)).toEqual([code]);
      expect(response.text).not.toContain("INTERNAL_SERVER_ERROR");
      expect(response.text.length).toBeLessThan(1_000);
      expect(response.ms).toBeLessThan(5_000);
      expect(slowestHealth).toBeLessThan(1_000);
      expect(await tableCounts(t)).toEqual(before);
    });
  });

  describe("logging", () => {
    test("1,000 bad ids in one request: one log line, at info, without a stack", async () => {
      const from = logLines.length;
      const res = await post({ query: "query($ids: [ID!]!) { nodes(ids: $ids) { id } }", variables: { ids: Array.from({ length: 1_000 }, (_, i) => `bogus${i}`) } });
      expect(res.json.errors).toHaveLength(1_000);
      const lines = logLines.slice(from);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 30,
          msg: "request answered with client errors",
          transport: "http",
          errors: 1_000,
          codes: { INVALID_ID: 1_000 },
          first: { code: "INVALID_ID", message: "ids: 'bogus0' is not a valid node (art_…, run_… or op_…) id", path: ["nodes", 0] },
          requestId: expect.any(String),
        }),
      ]);
      expect(JSON.stringify(lines)).not.toMatch(/\n\s+at /);
    });

    test("a refused document and a bad variable: one info line each", async () => {
      const from = logLines.length;
      await post({ query: "{ executions(" });
      await post({ query: "query($f: Int) { executions(first: $f) { edges { cursor } } }", variables: { f: "5" } });
      expect(logLines.slice(from).map((line) => [line.level, line.codes])).toEqual([
        [30, { GRAPHQL_PARSE_FAILED: 1 }],
        [30, { BAD_USER_INPUT: 1 }],
      ]);
    });

    test("our fault: masked for the caller, one error line with the request id and the stack", async () => {
      const from = logLines.length;
      const res = await post({
        query: `mutation { recordExecution(input: { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [{ originalName: "boom.csv", contentHash: "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" }] }] }) { __typename } }`,
      });
      expect(res.json.errors).toEqual([expect.objectContaining({ message: "Unexpected error.", extensions: { code: "INTERNAL_SERVER_ERROR" } })]);
      expect(res.text).not.toContain("simulated bug");
      const lines = logLines.slice(from);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 50, msg: "unexpected error while executing a request", requestId: expect.any(String), path: ["recordExecution"], err: { message: "simulated bug" } });
      expect(lines[0].err.stack).toContain("simulated bug");
    });
  });

  describe("graphql-ws: a message only a server sends", () => {
    /** Opens a raw socket, sends `messages` in turn (each after the server's answer to the one before), and resolves with the answers and the close. */
    function converse(messages: unknown[]): Promise<{ answers: string[]; close: [number, string] }> {
      return new Promise((resolve) => {
        const socket = new WebSocket(url.replace("http", "ws"), "graphql-transport-ws");
        const answers: string[] = [];
        let sent = 0;
        // A string is sent as it is written (a message JSON.stringify would not write).
        const next = () => {
          if (sent >= messages.length) return;
          const message = messages[sent++];
          socket.send(typeof message === "string" ? message : JSON.stringify(message));
        };
        socket.on("open", next);
        socket.on("message", (data) => {
          const type = JSON.parse(String(data)).type;
          answers.push(type);
          if (type === "complete" || type === "error") socket.close(1000, "done");
          else next();
        });
        socket.on("close", (code, reason) => resolve({ answers, close: [code, String(reason)] }));
      });
    }

    test.each([
      ["connection_ack as the first message", [{ type: "connection_ack" }], [], "connection_ack"],
      ["next after the handshake", [{ type: "connection_init" }, { type: "next", id: "1", payload: { data: {} } }], ["connection_ack"], "next"],
      ["error after the handshake", [{ type: "connection_init" }, { type: "error", id: "1", payload: [{ message: "x" }] }], ["connection_ack"], "error"],
      ["next spelled with escapes", [{ type: "connection_init" }, '{"type":"\\u006eext","id":"1","payload":{"data":{}}}'], ["connection_ack"], "next"],
    ])("%s closes the socket with 4400 (a client's fault), logged at info without a stack", async (_name, messages, answers, type) => {
      const from = logLines.length;
      const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
      try {
        const talk = await converse(messages);
        expect(talk).toEqual({ answers, close: [4400, `Unexpected message of type ${type} received: only a server sends it`] });
        expect(consoleError).not.toHaveBeenCalled();
      } finally {
        consoleError.mockRestore();
      }
      expect(logLines.slice(from).map((line) => [line.level, line.code, line.type, line.msg])).toEqual([[30, "UNEXPECTED_MESSAGE", type, "WebSocket message refused"]]);
    });

    test("a subscribe whose variables hold those words is answered as usual", async () => {
      const talk = await converse([
        { type: "connection_init" },
        { type: "subscribe", id: "1", payload: { query: "query($s: String!) { search(query: $s) { totalCount } }", variables: { s: "next" }, extensions: { note: { type: "error" } } } },
      ]);
      expect(talk).toEqual({ answers: ["connection_ack", "next", "complete"], close: [1000, "done"] });
    });
  });

  describe("graphql-ws: a refused operation answers an error message and keeps the socket", () => {
    let client: Client;
    let connections = 0;
    const closes: number[] = [];

    beforeAll(() => {
      client = createClient({
        url: url.replace("http", "ws"),
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: false,
        on: { connected: () => (connections += 1), closed: (event) => closes.push((event as { code: number }).code) },
      });
    });
    afterAll(() => client.dispose());

    function run(query: string, variables?: Record<string, unknown>): Promise<{ result?: any; error?: any }> {
      return new Promise((resolve) => {
        let result: unknown;
        client.subscribe({ query, variables }, { next: (value) => (result = value), error: (error) => resolve({ error }), complete: () => resolve({ result }) });
      });
    }

    test.each([
      ["a syntax error", "{ executions(", [{ message: "Syntax Error: Expected Name, found <EOF>.", locations: [{ line: 1, column: 14 }], extensions: { code: "GRAPHQL_PARSE_FAILED" } }]],
      [
        "a depth limit",
        `{ artifact(id: "x") { ${"parents { ".repeat(17)}id${" }".repeat(18)} }`,
        [{ message: "The operation nests fields 19 levels deep; at most 15 levels are accepted.", extensions: { code: "QUERY_TOO_DEEP", limit: 15, found: 19 } }],
      ],
      [
        "brackets nested 5,000 deep",
        `{ ${"... on Query { ".repeat(5_000)}__typename${" }".repeat(5_000)} }`,
        [{ message: expect.stringMatching(/^The document nests brackets more than 128 levels deep/), extensions: { code: "QUERY_TOO_DEEP", limit: 128 } }],
      ],
      [
        "a field repeated past graphql-js's validation budget",
        `{ __typename${" __typename".repeat(999)} }`,
        [{ message: expect.stringMatching(/^The document is too complex to validate: /), extensions: { code: "DOCUMENT_TOO_COMPLEX" } }],
      ],
      [
        "two operations and no operationName (graphql-ws alone: \"Unable to identify operation\", no code)",
        "query A { __typename } query B { __typename }",
        [{ message: 'The document holds 2 operations (A, B): name the one to run in "operationName".', extensions: { code: "OPERATION_RESOLUTION_FAILURE" } }],
      ],
      [
        "an unknown field",
        "{ nope }",
        [{ message: 'Cannot query field "nope" on type "Query". Did you mean "node" or "nodes"?', locations: [{ line: 1, column: 3 }], extensions: { code: "GRAPHQL_VALIDATION_FAILED" } }],
      ],
    ])("%s, then a valid query on the same socket", async (_name, query, errors) => {
      const from = logLines.length;
      const refused = await run(query);
      expect(refused.error).toEqual(errors);
      const next = await run("{ operations(first: 1) { edges { node { name } } } }");
      expect(next.result).toEqual({ data: { operations: { edges: [{ node: { name: "generate" } }] } } });
      expect(connections).toBe(1);
      expect(closes).toEqual([]);
      expect(logLines.slice(from).map((line) => [line.level, line.transport, line.msg])).toEqual([[30, "ws", "request answered with client errors"]]);
    });

    test("a bad variable and a too costly operation come back in the result, coded, without HTTP hints", async () => {
      const badVariable = await run("query($f: Int) { executions(first: $f) { edges { cursor } } }", { f: "5" });
      expect(badVariable.result).toEqual({
        errors: [{ message: 'Variable "$f" got invalid value "5"; Int cannot represent non-integer value: "5"', locations: [{ line: 1, column: 7 }], extensions: { code: "BAD_USER_INPUT" } }],
      });
      const copies = Array.from({ length: 8 }, (_, i) => `l${i}: lineage(artifactId: "art_0000000000000000000000000000000000000000", first: 50000) { nodes { artifact { id originalName } depth } }`).join(" ");
      const costly = await run(`{ ${copies} }`);
      expect(costly.result.errors.map((e: any) => e.extensions)).toEqual([{ code: "QUERY_TOO_COSTLY", limit: 1_000_000, found: 2_000_008, field: "lineage", argument: "first", items: 50_000 }]);
      expect(closes).toEqual([]);
    });
  });
});

import http from "node:http";
import { type Client, createClient } from "graphql-ws";
import WebSocket from "ws";
import { generateTokenSecret } from "../../src/auth";
import { auditTrail, createTokenTestApp, storeCounts, type TokenTestApp } from "../support/auth";
import { draft, registerOperation } from "../support/recording";

/**
 * Over real sockets: graphql-ws token boundaries (checked at connection and for every operation),
 * cross-origin WebSocket handshakes, and the Host check (DNS rebinding) on HTTP and upgrades.
 */
describe("graphql-ws and the socket checks", () => {
  let t: TokenTestApp;
  let url: string;
  let port: number;
  const tokens: Record<"read" | "write" | "revoked" | "expired", string> = { read: "", write: "", revoked: "", expired: "" };
  const READ = "{ operations(first: 5) { edges { node { name } } } }";
  const WRITE = `mutation { recordExecution(input: { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [{ originalName: "w.csv", contentHash: "${draft("w.csv").contentHash}" }] }] }) { __typename } }`;
  const ADMIN = `mutation { registerOperation(input: { name: "other", version: "1", kind: CREATOR, inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] }) { __typename } }`;

  beforeAll(async () => {
    t = await createTokenTestApp({ env: { ALLOWED_HOSTS: "provgraph.internal" } });
    url = await t.app.start();
    port = Number(new URL(url).port);
    await registerOperation(t, { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    tokens.read = await t.issue(["read"], { name: "reader" });
    tokens.write = await t.issue(["write"], { name: "ci" });
    tokens.revoked = await t.issue(["admin"], { name: "old" });
    tokens.expired = await t.issue(["admin"], { name: "temp", expiresAt: new Date(Date.now() - 60_000) });
    await t.app.auth.revokeToken((await t.app.auth.tokens.findBySecret(tokens.revoked))!.id);
  });
  afterAll(() => t.close());

  /** lazyCloseTimeout: how long the socket stays open without operations (0: closed after each one). */
  function wsClient(connectionParams: Record<string, unknown> | undefined, origin?: string, lazyCloseTimeout = 0): Client {
    const headers = origin ? { origin } : {};
    class WithHeaders extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    }
    return createClient({ url: url.replace("http", "ws"), webSocketImpl: WithHeaders, connectionParams, retryAttempts: 0, lazy: true, lazyCloseTimeout });
  }

  type Outcome = { result: any } | { closed: { code: number; reason: string } } | { errors: { message: string; extensions?: any }[] };

  function run(client: Client, query: string): Promise<Outcome> {
    return new Promise((resolve) => {
      let result: unknown;
      client.subscribe(
        { query },
        {
          next: (value) => (result = value),
          complete: () => resolve({ result }),
          error: (error: any) => resolve(Array.isArray(error) ? { errors: error } : { closed: { code: error.code, reason: error.reason } }),
        },
      );
    });
  }

  async function once(connectionParams: Record<string, unknown> | undefined, query: string, origin?: string): Promise<Outcome> {
    const client = wsClient(connectionParams, origin);
    try {
      return await run(client, query);
    } finally {
      await client.dispose();
    }
  }

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  describe("graphql-ws: checked at connection (close 4401) and per operation", () => {
    test.each([
      ["no token", () => undefined, "Unauthorized (MISSING): this server requires an API token: send connectionParams.authorization: 'Bearer pgt_…'"],
      ["a malformed token", () => ({ authorization: "Bearer nope" }), "Unauthorized (MALFORMED): the credentials are not an API token: send 'Authorization: Bearer pgt_…'"],
      ["a token that is no string", () => ({ authorization: { token: 1 } }), "Unauthorized (MALFORMED): the credentials are not an API token: send 'Authorization: Bearer pgt_…'"],
      ["an unknown token", () => bearer(generateTokenSecret()), "Unauthorized (UNKNOWN): the API token is not known to this server"],
      ["a revoked token", () => bearer(tokens.revoked), "Unauthorized (REVOKED): the API token has been revoked"],
      ["an expired token", () => bearer(tokens.expired), "Unauthorized (EXPIRED): the API token has expired"],
    ])("%s: the socket is closed with 4401 and the reason, nothing written", async (_name, params, reason) => {
      const before = await storeCounts(t);
      for (const query of [READ, WRITE]) expect(await once(params(), query)).toEqual({ closed: { code: 4401, reason } });
      expect(await storeCounts(t)).toEqual(before);
    });

    test("a read token writing: FORBIDDEN naming write, nothing recorded, the refusal audited as WS", async () => {
      const before = await storeCounts(t);
      const trail = await auditTrail(t);
      const outcome = (await once(bearer(tokens.read), WRITE)) as { result: any };
      expect(outcome.result.data).toBeNull();
      expect(outcome.result.errors.map((e: any) => e.extensions)).toEqual([{ code: "FORBIDDEN", field: "recordExecution", scope: "write" }]);
      expect(await storeCounts(t)).toEqual({ ...before, auditEvents: before.auditEvents + 1 });
      expect((await auditTrail(t)).slice(trail.length)).toEqual([{ actor: "reader", via: "WS", action: "recordExecution", targets: [], outcome: "FORBIDDEN" }]);
    });

    test("a write token doing admin work: FORBIDDEN naming admin, nothing registered", async () => {
      const before = await storeCounts(t);
      const outcome = (await once(bearer(tokens.write), ADMIN)) as { result: any };
      expect(outcome.result.errors.map((e: any) => [e.message, e.extensions])).toEqual([["registerOperation needs the admin scope; token 'ci' has write", { code: "FORBIDDEN", field: "registerOperation", scope: "admin" }]]);
      expect(await storeCounts(t)).toEqual({ ...before, auditEvents: before.auditEvents + 1 });
    });

    test("tokens that may: read reads, write records (audited with its runId)", async () => {
      expect(await once(bearer(tokens.read), READ)).toEqual({ result: { data: { operations: { edges: [{ node: { name: "gen" } }] } } } });
      const trail = await auditTrail(t);
      const outcome = await once(bearer(tokens.write), WRITE.replace("{ __typename }", "{ ... on RecordExecutionPayload { execution { runId } } }"));
      const runId = (outcome as any).result.data.recordExecution.execution.runId;
      expect(runId).toMatch(/^run_/);
      expect((await auditTrail(t)).slice(trail.length)).toEqual([{ actor: "ci", via: "WS", action: "recordExecution", targets: [runId], outcome: "OK" }]);
    });

    test("a token revoked while connected: its next operation on the same socket is UNAUTHENTICATED", async () => {
      const doomed = await t.issue(["read"], { name: "doomed" });
      let connections = 0;
      const client = wsClient(bearer(doomed), undefined, 60_000);
      client.on("connected", () => (connections += 1));
      try {
        expect(await run(client, READ)).toEqual({ result: { data: { operations: { edges: [{ node: { name: "gen" } }] } } } });
        await t.app.auth.revokeToken((await t.app.auth.tokens.findBySecret(doomed))!.id);
        const refused = (await run(client, READ)) as { errors: any[] };
        expect(refused.errors.map((e) => [e.message, e.extensions])).toEqual([["the API token has been revoked", { code: "UNAUTHENTICATED", reason: "REVOKED" }]]);
        expect(connections).toBe(1);
      } finally {
        await client.dispose();
      }
    });
  });

  test("over a real socket, every 401 challenge is a valid HTTP header (ASCII only)", async () => {
    for (const authorization of ["Bearer nope", `Bearer ${generateTokenSecret()}`, `Bearer ${tokens.revoked}`, `Bearer ${tokens.expired}`, ""]) {
      const answer = await rawHttp({ host: `127.0.0.1:${port}`, ...(authorization ? { authorization } : {}) });
      expect([answer.status, JSON.parse(answer.body).errors[0].extensions.code]).toEqual([401, "UNAUTHENTICATED"]);
      expect(answer.challenge).toMatch(/^Bearer realm="provgraph"/);
    }
  });

  describe("cross-origin WebSocket handshakes (cross-site WebSocket hijacking)", () => {
    test("Origin: http://evil.example is refused at the upgrade (403 ORIGIN_NOT_ALLOWED), even with a valid token", async () => {
      const before = await storeCounts(t);
      const answer = await rawUpgrade({ origin: "http://evil.example" });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({
        errors: [{ message: "WebSocket connections from origin 'http://evil.example' are refused: only this server's own origin and CORS_ORIGINS may connect", extensions: { code: "ORIGIN_NOT_ALLOWED" } }],
      });
      // graphql-ws sees the handshake fail: no connection, no result.
      const outcome = await once(bearer(tokens.write), WRITE, "http://evil.example");
      expect(Object.keys(outcome)).toEqual(["closed"]);
      expect(await storeCounts(t)).toEqual(before);
    });

    test("Origin: null (a sandboxed frame) is refused too", async () => {
      expect((await rawUpgrade({ origin: "null" })).status).toBe(403);
    });

    test("the server's own origin (GraphiQL) connects", async () => {
      expect(await once(bearer(tokens.read), READ, `http://127.0.0.1:${port}`)).toEqual({ result: { data: { operations: { edges: [{ node: { name: "gen" } }] } } } });
    });
  });

  test("an upgrade to another path than /graphql is 404 NOT_FOUND naming where graphql-ws is (ws alone answers a bare 400)", async () => {
    for (const path of ["/x/graphql", "/graphql/", "/"]) {
      const answer = await rawUpgrade({}, path);
      expect([answer.status, JSON.parse(answer.body)]).toEqual([404, { errors: [{ message: `no WebSocket is served at ${path}: graphql-ws is at /graphql`, extensions: { code: "NOT_FOUND" } }] }]);
    }
    expect((await rawUpgrade({}, "/graphql?x=1")).status).toBe(101);
  });

  describe("the Host header (DNS rebinding) on a loopback-bound server", () => {
    test("Host: attacker.example is refused on HTTP (403 HOST_NOT_ALLOWED) and on the upgrade, even with a valid token", async () => {
      const answer = await rawHttp({ host: `attacker.example:${port}`, authorization: `Bearer ${tokens.read}` });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({ errors: [{ message: `Host 'attacker.example:${port}' is not this server's: add it to ALLOWED_HOSTS to serve it`, extensions: { code: "HOST_NOT_ALLOWED" } }] });
      expect((await rawUpgrade({ host: `attacker.example:${port}` })).status).toBe(403);
    });

    test.each(["127.0.0.1:<port>", "localhost", "[::1]:4000", "LOCALHOST:1", "provgraph.internal"])("Host: %s (loopback names, ALLOWED_HOSTS) is served", async (host) => {
      const answer = await rawHttp({ host: host.replace("<port>", String(port)), authorization: `Bearer ${tokens.read}` });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ data: { operations: { edges: [{ node: { name: "gen" } }] } } });
    });

    test("a name that merely contains a loopback name is refused", async () => {
      for (const host of ["localhost.attacker.example", "127.0.0.1.nip.io", "provgraph.internal.attacker.example"]) expect((await rawHttp({ host, authorization: `Bearer ${tokens.read}` })).status).toBe(403);
    });
  });

  function rawHttp(headers: Record<string, string>): Promise<{ status: number; body: string; challenge?: string }> {
    const body = JSON.stringify({ query: READ });
    return new Promise((resolve, reject) => {
      const request = http.request(
        { host: "127.0.0.1", port, path: "/graphql", method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers } },
        (response) => {
          let text = "";
          response.on("data", (chunk) => (text += chunk));
          response.on("end", () => resolve({ status: response.statusCode!, body: text, challenge: response.headers["www-authenticate"] }));
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  }

  function rawUpgrade(headers: Record<string, string>, path = "/graphql"): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, "graphql-transport-ws", { headers });
      socket.on("unexpected-response", (_request, response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, body: text }));
      });
      socket.on("open", () => {
        socket.close();
        resolve({ status: 101, body: "" });
      });
      socket.on("error", (error) => (error.message.startsWith("Unexpected server response") ? undefined : reject(error)));
    });
  }
});

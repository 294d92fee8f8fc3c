import { generateTokenSecret } from "../../src/auth";
import { auditTrail, createTokenTestApp, type HttpRequest, sseEvents, storeCounts, type TokenTestApp } from "../support/auth";
import { draft, registerOperation } from "../support/recording";

/**
 * Every token boundary over HTTP and SSE (Yoga's built-in, Accept: text/event-stream): the
 * documented status, WWW-Authenticate challenge and code, and nothing written.
 */
describe("token boundaries over HTTP and SSE", () => {
  let t: TokenTestApp;
  const tokens: Record<"read" | "write" | "admin" | "revoked" | "expired", string> = { read: "", write: "", admin: "", revoked: "", expired: "" };

  const READ = "{ operations(first: 5) { edges { node { name } } } }";
  const WRITE = `mutation { recordExecution(input: { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [{ originalName: "x.csv", contentHash: "${draft("x.csv").contentHash}" }] }] }) { __typename } }`;
  const ADMIN = {
    registerOperation: `mutation { registerOperation(input: { name: "other", version: "1", kind: CREATOR, inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] }) { __typename } }`,
    createApiToken: `mutation { createApiToken(input: { name: "sneaky", scopes: ["admin"] }) { token } }`,
    revokeApiToken: "", // filled in beforeAll with the admin token's id
    apiTokens: "{ apiTokens { edges { node { id } } } }",
    auditLog: "{ auditLog { edges { node { id } } } }",
  };

  beforeAll(async () => {
    t = await createTokenTestApp();
    await registerOperation(t, { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    tokens.admin = t.adminToken;
    tokens.read = await t.issue(["read"], { name: "reader" });
    tokens.write = await t.issue(["write"], { name: "ci" });
    tokens.revoked = await t.issue(["admin"], { name: "old" });
    tokens.expired = await t.issue(["admin"], { name: "temp", expiresAt: new Date(Date.now() - 60_000) });
    const old = await t.app.auth.tokens.findBySecret(tokens.revoked);
    const revoked = await t.gql(`mutation($id: ID!) { revokeApiToken(id: $id) { status } }`, { id: old!.id });
    expect(revoked.data).toEqual({ revokeApiToken: { status: "REVOKED" } });
    const admin = await t.app.auth.tokens.findBySecret(t.adminToken);
    ADMIN.revokeApiToken = `mutation { revokeApiToken(id: "${admin!.id}") { id } }`;
  });
  afterAll(() => t.close());

  const unauthenticated: [string, () => Partial<HttpRequest>, string, string][] = [
    ["no token", () => ({ token: null }), "MISSING", 'Bearer realm="provgraph"'],
    ["a malformed token", () => ({ authorization: "Bearer not-a-token" }), "MALFORMED", 'Bearer realm="provgraph", error="invalid_token", error_description="the credentials are not an API token: send \'Authorization: Bearer pgt_...\'"'],
    ["another scheme", () => ({ authorization: "Basic dXNlcjpwYXNz" }), "MALFORMED", 'Bearer realm="provgraph", error="invalid_token", error_description="the credentials are not an API token: send \'Authorization: Bearer pgt_...\'"'],
    ["an unknown token", () => ({ token: generateTokenSecret() }), "UNKNOWN", 'Bearer realm="provgraph", error="invalid_token", error_description="the API token is not known to this server"'],
    ["a revoked token", () => ({ token: tokens.revoked }), "REVOKED", 'Bearer realm="provgraph", error="invalid_token", error_description="the API token has been revoked"'],
    ["an expired token", () => ({ token: tokens.expired }), "EXPIRED", 'Bearer realm="provgraph", error="invalid_token", error_description="the API token has expired"'],
  ];
  const MESSAGES: Record<string, string> = {
    MISSING: "this server requires an API token: send 'Authorization: Bearer pgt_…' (over graphql-ws: connectionParams.authorization)",
    MALFORMED: "the credentials are not an API token: send 'Authorization: Bearer pgt_…'",
    UNKNOWN: "the API token is not known to this server",
    REVOKED: "the API token has been revoked",
    EXPIRED: "the API token has expired",
  };

  describe.each([
    ["HTTP", {}],
    ["SSE", { accept: "text/event-stream" }],
  ])("over %s", (_transport, headers: Record<string, string>) => {
    test.each(unauthenticated)("%s: 401 UNAUTHENTICATED with WWW-Authenticate, for reads and writes alike, and nothing written", async (_name, credentials, reason, challenge) => {
      const before = await storeCounts(t);
      for (const query of [READ, WRITE, ADMIN.registerOperation]) {
        const answer = await t.send({ ...credentials(), headers, graphql: { query } });
        expect(answer.status).toBe(401);
        expect(answer.headers.get("www-authenticate")).toBe(challenge);
        expect(answer.json).toEqual({ errors: [{ message: MESSAGES[reason], extensions: { code: "UNAUTHENTICATED", reason } }] });
      }
      // Refused before anything runs: not even an audit entry.
      expect(await storeCounts(t)).toEqual(before);
    });

    test("a read token writing: 403 FORBIDDEN naming write, nothing recorded, the refusal audited", async () => {
      const before = await storeCounts(t);
      const trail = await auditTrail(t);
      const answer = await t.send({ token: tokens.read, headers, graphql: { query: WRITE } });
      expect(answer.status).toBe(403);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="provgraph", error="insufficient_scope", scope="write"');
      const body = headers.accept ? sseEvents(answer.text)[0].data : answer.json;
      expect(body.data).toBeNull();
      expect(body.errors.map((e: any) => [e.message, e.extensions])).toEqual([
        ["recordExecution needs the write scope; token 'reader' has read", { code: "FORBIDDEN", field: "recordExecution", scope: "write" }],
      ]);
      expect(await storeCounts(t)).toEqual({ ...before, auditEvents: before.auditEvents + 1 });
      expect((await auditTrail(t)).slice(trail.length)).toEqual([{ actor: "reader", via: "HTTP", action: "recordExecution", targets: [], outcome: "FORBIDDEN" }]);
    });

    test.each(Object.keys(ADMIN))("a write token doing admin work (%s): 403 FORBIDDEN naming admin, nothing written", async (field) => {
      const before = await storeCounts(t);
      const answer = await t.send({ token: tokens.write, headers, graphql: { query: ADMIN[field as keyof typeof ADMIN] } });
      expect(answer.status).toBe(403);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="provgraph", error="insufficient_scope", scope="admin"');
      const body = headers.accept ? sseEvents(answer.text)[0].data : answer.json;
      expect(body.errors.map((e: any) => [e.message, e.extensions])).toEqual([[`${field} needs the admin scope; token 'ci' has write`, { code: "FORBIDDEN", field, scope: "admin" }]]);
      // A refused mutation leaves its audit entry; a refused query leaves nothing.
      const mutation = ADMIN[field as keyof typeof ADMIN].startsWith("mutation");
      expect(await storeCounts(t)).toEqual({ ...before, auditEvents: before.auditEvents + (mutation ? 1 : 0) });
    });
  });

  test("each scope does what it grants: read reads; write records and reads; admin does everything", async () => {
    expect((await t.gqlAs(tokens.read, READ)).data).toEqual({ operations: { edges: [{ node: { name: "gen" } }] } });
    expect((await t.gqlAs(tokens.write, READ)).status).toBe(200);
    const before = await storeCounts(t);
    const recorded = await t.gqlAs(tokens.write, WRITE);
    expect(recorded).toEqual({ status: 200, data: { recordExecution: { __typename: "RecordExecutionPayload" } } });
    expect((await storeCounts(t)).executions).toBe(before.executions + 1);
    const registered = await t.gqlAs(tokens.admin, ADMIN.registerOperation);
    expect(registered).toEqual({ status: 200, data: { registerOperation: { __typename: "Operation" } } });
    expect((await t.gqlAs(tokens.admin, WRITE)).data).toEqual({ recordExecution: { __typename: "RecordExecutionPayload" } });
  });

  test("a request mixing what the token may and may not do: 403 and FORBIDDEN (apiTokens is non-null, so data is null)", async () => {
    const answer = await t.gqlAs(tokens.read, "{ operations(first: 1) { edges { node { name } } } apiTokens { edges { node { id } } } }");
    expect(answer.status).toBe(403);
    expect(answer.data).toBeNull();
    expect(answer.errors!.map((e) => e.extensions!.code)).toEqual(["FORBIDDEN"]);
  });

  test("the scheme is case-insensitive and the bare token is accepted", async () => {
    for (const authorization of [`bearer ${tokens.read}`, `BEARER  ${tokens.read}`, tokens.read]) {
      expect((await t.send({ authorization, graphql: { query: READ } })).status).toBe(200);
    }
  });

  test("/healthz and /readyz need no token", async () => {
    expect((await t.send({ token: null, path: "/healthz" })).json).toEqual({ status: "ok" });
    expect((await t.send({ token: null, path: "/readyz" })).status).toBe(200);
  });
});

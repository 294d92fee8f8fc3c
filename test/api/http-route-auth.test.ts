import { authorizeHttpRequest, generateTokenSecret } from "../../src/auth";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * authorizeHttpRequest: the door plain HTTP routes (POST /api/v1/lineage) use — the same tokens,
 * the same boundaries as GraphQL, answered as HTTP.
 */
describe("authorizeHttpRequest for plain HTTP routes", () => {
  let t: TokenTestApp;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    t = await createTokenTestApp();
    tokens.read = await t.issue(["read"], { name: "dashboard" });
    tokens.write = await t.issue(["write"], { name: "airflow" });
    tokens.revoked = await t.issue(["write"], { name: "old" });
    tokens.expired = await t.issue(["write"], { name: "temp", expiresAt: new Date(Date.now() - 1000) });
    await t.app.auth.revokeToken((await t.app.auth.tokens.findBySecret(tokens.revoked))!.id);
  });
  afterAll(() => t.close());

  const lineageRequest = (authorization?: string) =>
    new Request("http://provgraph.test/api/v1/lineage", { method: "POST", headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) }, body: "{}" });

  test.each([
    ["no token", undefined, "MISSING", 'Bearer realm="provgraph"'],
    ["a malformed token", "Bearer 12345", "MALFORMED", 'Bearer realm="provgraph", error="invalid_token", error_description="the credentials are not an API token: send \'Authorization: Bearer pgt_...\'"'],
    ["an unknown token", `Bearer ${generateTokenSecret()}`, "UNKNOWN", 'Bearer realm="provgraph", error="invalid_token", error_description="the API token is not known to this server"'],
    ["a revoked token", () => `Bearer ${tokens.revoked}`, "REVOKED", 'Bearer realm="provgraph", error="invalid_token", error_description="the API token has been revoked"'],
    ["an expired token", () => `Bearer ${tokens.expired}`, "EXPIRED", 'Bearer realm="provgraph", error="invalid_token", error_description="the API token has expired"'],
  ])("%s: a 401 answer with WWW-Authenticate and UNAUTHENTICATED", async (_name, authorization, reason, challenge) => {
    const header = typeof authorization === "function" ? authorization() : authorization;
    const outcome = await authorizeHttpRequest(t.app.auth, lineageRequest(header), "write");
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect([outcome.error.code, outcome.error.http.status]).toEqual(["UNAUTHENTICATED", 401]);
    expect(outcome.response.status).toBe(401);
    expect(outcome.response.headers.get("www-authenticate")).toBe(challenge);
    expect(outcome.response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect((await outcome.response.json()).errors.map((e: any) => e.extensions)).toEqual([{ code: "UNAUTHENTICATED", reason }]);
  });

  test("a read token: 403 FORBIDDEN naming write (insufficient_scope)", async () => {
    const outcome = await authorizeHttpRequest(t.app.auth, lineageRequest(`Bearer ${tokens.read}`), "write");
    if (outcome.ok) throw new Error("expected a refusal");
    expect(outcome.response.status).toBe(403);
    expect(outcome.response.headers.get("www-authenticate")).toBe('Bearer realm="provgraph", error="insufficient_scope", scope="write"');
    expect(await outcome.response.json()).toEqual({
      errors: [{ message: "/api/v1/lineage needs the write scope; token 'dashboard' has read", extensions: { code: "FORBIDDEN", field: "/api/v1/lineage", scope: "write" } }],
    });
  });

  test("a write or admin token passes, as itself", async () => {
    expect(await authorizeHttpRequest(t.app.auth, lineageRequest(`Bearer ${tokens.write}`), "write")).toEqual({ ok: true, principal: { kind: "token", name: "airflow", tokenId: expect.stringMatching(/^tok_/), scopes: ["write"], expiresAt: null } });
    expect((await authorizeHttpRequest(t.app.auth, lineageRequest(`Bearer ${t.adminToken}`), "write")).ok).toBe(true);
  });

  test("in open mode, a request without a token acts as admin", async () => {
    const open: TestApp = await createTestApp();
    try {
      expect(await authorizeHttpRequest(open.app.auth, lineageRequest(), "write")).toEqual({ ok: true, principal: { kind: "open", name: "open mode", tokenId: null } });
    } finally {
      await open.close();
    }
  });
});

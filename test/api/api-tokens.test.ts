import crypto from "node:crypto";
import { TokenStore } from "../../src/auth";
import { auditTrail, createTokenTestApp, storeCounts, type TokenTestApp } from "../support/auth";

const CREATE = `mutation($input: CreateApiTokenInput!) {
  createApiToken(input: $input) { token apiToken { id name scopes status createdBy lastUsedAt expiresAt revokedAt } }
}`;
const REVOKE = "mutation($id: ID!) { revokeApiToken(id: $id) { id status revokedAt } }";
const WHO_CAN_READ = "{ operations(first: 1) { edges { cursor } } }";

describe("API tokens through the admin API", () => {
  let t: TokenTestApp;
  beforeAll(async () => {
    t = await createTokenTestApp();
  });
  afterAll(() => t.close());

  test("createApiToken shows a pgt_ token once (256 random bits); only its SHA-256 is stored; it works with its scopes", async () => {
    const created = await t.gql(CREATE, { input: { name: "ci", scopes: ["write", "read", "write"], expiresAt: "2099-01-01T00:00:00.000Z" } });
    expect(created.errors).toBeUndefined();
    const { token, apiToken } = created.data!.createApiToken;
    expect(token).toMatch(/^pgt_[A-Za-z0-9_-]{43}$/);
    expect(apiToken).toEqual({ id: expect.stringMatching(/^tok_[0-9a-f-]{36}$/), name: "ci", scopes: ["read", "write"], status: "ACTIVE", createdBy: "bootstrap", lastUsedAt: null, expiresAt: "2099-01-01T00:00:00.000Z", revokedAt: null });
    const row = await t.app.database.prisma.apiToken.findUniqueOrThrow({ where: { id: apiToken.id } });
    expect(row.secretHash).toBe(crypto.createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.stringify(row)).not.toContain(token.slice(4));
    expect((await t.gqlAs(token, WHO_CAN_READ)).status).toBe(200);
    expect((await t.gqlAs(token, "{ apiTokens { edges { cursor } } }")).status).toBe(403);
  });

  test("apiTokens lists tokens newest first without secrets: the type has no field that could hold one", async () => {
    const fields = await t.gql(`{ __type(name: "ApiToken") { fields { name } } }`);
    expect(fields.data!.__type.fields.map((f: { name: string }) => f.name).sort()).toEqual(["createdAt", "createdBy", "expiresAt", "id", "lastUsedAt", "name", "revokedAt", "scopes", "status"]);
    await t.gql(CREATE, { input: { name: "first", scopes: ["read"] } });
    await t.gql(CREATE, { input: { name: "second", scopes: ["read"] } });
    const page = await t.gql("{ apiTokens(first: 2) { edges { node { name } } pageInfo { hasNextPage endCursor } } }");
    expect(page.data!.apiTokens.edges.map((e: any) => e.node.name)).toEqual(["second", "first"]);
    expect(page.data!.apiTokens.pageInfo.hasNextPage).toBe(true);
    const next = await t.gql("query($after: String) { apiTokens(first: 500, after: $after) { edges { node { name } } } }", { after: page.data!.apiTokens.pageInfo.endCursor });
    expect(next.data!.apiTokens.edges.map((e: any) => e.node.name)).toEqual(["ci", "bootstrap"]);
  });

  test.each([
    [{ name: "x", scopes: ["superuser"] }, "scopes", "scopes: 'superuser' is not a scope: expected read, write, admin, metrics, clearance:<TAG> or purpose:<NAME> (TAG, NAME: 1-64 letters, digits, '_', '.' or '-')"],
    [{ name: "x", scopes: [] }, "scopes", "scopes: must name at least one scope: read, write, admin, metrics, clearance:<TAG> or purpose:<NAME> (TAG, NAME: 1-64 letters, digits, '_', '.' or '-')"],
    [{ name: "x", scopes: ["clearance:"] }, "scopes", "scopes: 'clearance:' is not a scope: expected read, write, admin, metrics, clearance:<TAG> or purpose:<NAME> (TAG, NAME: 1-64 letters, digits, '_', '.' or '-')"],
    [{ name: "  ", scopes: ["read"] }, "name", "name: must not be empty"],
    [{ name: "a\u0007b", scopes: ["read"] }, "name", "name: contains the control character U+0007 at index 1"],
    [{ name: "x", scopes: ["read"], expiresAt: "2001-01-01T00:00:00.000Z" }, "expiresAt", "expiresAt: must be in the future"],
  ])("%j is INVALID_ARGUMENT naming the field; no token is written (the attempt is audited)", async (input, field, message) => {
    const before = await storeCounts(t);
    const answer = await t.gql(CREATE, { input });
    expect(answer.errors!.map((e) => [e.message, e.extensions])).toEqual([[message, { code: "INVALID_ARGUMENT", field, reason: message.slice(field.length + 2) }]]);
    expect(await storeCounts(t)).toEqual({ ...before, auditEvents: before.auditEvents + 1 });
    expect((await auditTrail(t)).at(-1)).toEqual({ actor: "bootstrap", via: "HTTP", action: "createApiToken", targets: [], outcome: "INVALID_ARGUMENT" });
  });

  test("a token can grant only the clearances it holds (FORBIDDEN naming the clearance)", async () => {
    const answer = await t.gql(CREATE, { input: { name: "pii", scopes: ["read", "clearance:PII"] } });
    expect(answer.errors!.map((e) => [e.message, e.extensions])).toEqual([
      ["a token can only grant the clearances it holds: 'bootstrap' does not hold clearance:PII", { code: "FORBIDDEN", field: "scopes", scope: "clearance:PII" }],
    ]);
    const cleared = await t.issue(["admin", "clearance:PII"], { name: "dpo" });
    const granted = await t.gqlAs(cleared, CREATE, { input: { name: "pii", scopes: ["read", "clearance:PII"] } });
    expect(granted.data!.createApiToken.apiToken).toMatchObject({ name: "pii", scopes: ["read", "clearance:PII"], createdBy: "dpo" });
  });

  test("revokeApiToken: refused at once, revoking again keeps the first time, unknown and malformed ids are errors", async () => {
    const secret = (await t.gql(CREATE, { input: { name: "short-lived", scopes: ["read"] } })).data!.createApiToken;
    expect((await t.gqlAs(secret.token, WHO_CAN_READ)).status).toBe(200);
    const revoked = await t.gql(REVOKE, { id: secret.apiToken.id });
    expect(revoked.data!.revokeApiToken).toEqual({ id: secret.apiToken.id, status: "REVOKED", revokedAt: expect.any(String) });
    const refused = await t.gqlAs(secret.token, WHO_CAN_READ);
    expect([refused.status, refused.errors![0].extensions]).toEqual([401, { code: "UNAUTHENTICATED", reason: "REVOKED" }]);
    expect((await t.gql(REVOKE, { id: secret.apiToken.id })).data!.revokeApiToken.revokedAt).toBe(revoked.data!.revokeApiToken.revokedAt);
    const unknown = "tok_01a23083-05cc-724b-8d36-04e215ad46e4";
    expect((await t.gql(REVOKE, { id: unknown })).errors![0].extensions).toEqual({ code: "NOT_FOUND", kind: "API token", id: unknown, field: "id" });
    expect((await auditTrail(t)).at(-1)).toEqual({ actor: "bootstrap", via: "HTTP", action: "revokeApiToken", targets: [unknown], outcome: "NOT_FOUND" });
    expect((await t.gql(REVOKE, { id: "tok_1" })).errors![0].extensions).toEqual({ code: "INVALID_ID", field: "id", id: "tok_1", expected: "API token" });
    const bySecret = await t.gql(REVOKE, { id: secret.token });
    expect(bySecret.errors![0]).toMatchObject({ message: "id: this is a token's secret, not its id: pass the tok_… id (apiTokens lists them)", extensions: { code: "INVALID_ARGUMENT", field: "id" } });
    expect(JSON.stringify(bySecret)).not.toContain(secret.token);
    // Neither does the audit trail keep a secret passed where an id belongs.
    expect((await auditTrail(t)).at(-1)).toEqual({ actor: "bootstrap", via: "HTTP", action: "revokeApiToken", targets: ["pgt_****"], outcome: "INVALID_ARGUMENT" });
  });
});

describe("token timing: expiry, last use, revocations made elsewhere", () => {
  let t: TokenTestApp;
  let now = Date.parse("2030-01-01T00:00:00.000Z");
  beforeAll(async () => {
    t = await createTokenTestApp({ app: { auth: { now: () => now } } });
  });
  afterAll(() => t.close());

  const lastUsedAt = async (secret: string) => {
    await t.app.auth.authenticator.drain();
    return (await t.app.auth.tokens.findBySecret(secret))!.lastUsedAt?.toISOString() ?? null;
  };

  test("a token stops working at its expiry", async () => {
    const secret = await t.issue(["read"], { name: "until-noon", expiresAt: new Date("2030-01-01T12:00:00.000Z") });
    now = Date.parse("2030-01-01T11:59:59.000Z");
    expect((await t.gqlAs(secret, WHO_CAN_READ)).status).toBe(200);
    now = Date.parse("2030-01-01T12:00:00.000Z");
    const refused = await t.gqlAs(secret, WHO_CAN_READ);
    expect([refused.status, refused.errors![0].extensions]).toEqual([401, { code: "UNAUTHENTICATED", reason: "EXPIRED" }]);
  });

  test("lastUsedAt is written at most once a minute per token, not on every request", async () => {
    now = Date.parse("2030-01-02T00:00:00.000Z");
    const secret = await t.issue(["read"], { name: "busy" });
    expect(await lastUsedAt(secret)).toBeNull();
    const touch = jest.spyOn(t.app.auth.tokens, "touch");
    expect((await t.gqlAs(secret, WHO_CAN_READ)).status).toBe(200);
    expect(await lastUsedAt(secret)).toBe("2030-01-02T00:00:00.000Z");
    for (const seconds of [1, 30, 59]) {
      now = Date.parse("2030-01-02T00:00:00.000Z") + seconds * 1000;
      expect((await t.gqlAs(secret, WHO_CAN_READ)).status).toBe(200);
    }
    expect(await lastUsedAt(secret)).toBe("2030-01-02T00:00:00.000Z");
    expect(touch).toHaveBeenCalledTimes(1);
    now = Date.parse("2030-01-02T00:01:00.000Z");
    expect((await t.gqlAs(secret, WHO_CAN_READ)).status).toBe(200);
    expect(await lastUsedAt(secret)).toBe("2030-01-02T00:01:00.000Z");
    expect(touch).toHaveBeenCalledTimes(2);
    touch.mockRestore();
  });

  test("a revocation made by another process (the CLI) is honoured once the 2 s token cache lapses", async () => {
    now = Date.parse("2030-01-03T00:00:00.000Z");
    const secret = await t.issue(["read"], { name: "elsewhere" });
    expect((await t.gqlAs(secret, WHO_CAN_READ)).status).toBe(200);
    // What the CLI does: the same table, another TokenStore, this server's cache untouched.
    await new TokenStore(t.app.database.prisma).revoke((await t.app.auth.tokens.findBySecret(secret))!.id);
    now += 1_999;
    expect((await t.gqlAs(secret, WHO_CAN_READ)).status).toBe(200);
    now += 1;
    const refused = await t.gqlAs(secret, WHO_CAN_READ);
    expect([refused.status, refused.errors![0].extensions]).toEqual([401, { code: "UNAUTHENTICATED", reason: "REVOKED" }]);
  });
});

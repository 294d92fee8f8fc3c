import { type App, buildApp } from "../../src/app";
import { AuthSetupError, generateTokenSecret, TokenStore } from "../../src/auth";
import { loadConfig } from "../../src/config";
import { auditTrail, sendRequest } from "../support/auth";
import { draft, registerOperation } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";
import { createTestDatabaseUrl } from "../support/test-database";

const READ = "{ operations(first: 5) { edges { node { name } } } }";
const GEN = { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };

describe("open mode: loopback and no token ever created", () => {
  let t: TestApp;
  let now = 1_000_000;
  beforeAll(async () => {
    t = await createTestApp({ app: { auth: { now: () => now } } });
  });
  afterAll(() => t.close());

  test("requests without a token act as admin; admin mutations are audited as 'open mode', plain writes are not", async () => {
    expect(t.app.authMode).toBe("open");
    const op = await registerOperation(t, GEN);
    const recorded = await t.gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, {
      input: { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft("a.csv")] }] },
    });
    expect(recorded.data).toEqual({ recordExecution: { __typename: "RecordExecutionPayload" } });
    expect(await auditTrail(t)).toEqual([{ actor: "open mode", via: "HTTP", action: "registerOperation", targets: [op.id], outcome: "OK" }]);
  });

  test("looking for tokens made elsewhere costs no counted statement", async () => {
    const probe = jest.spyOn(t.app.auth.tokens, "anyExists");
    now += 10_000; // past the probe interval: this request probes the token table
    const before = t.app.database.statementCount();
    await t.gql(READ);
    const probed = t.app.database.statementCount() - before;
    expect(probe).toHaveBeenCalledTimes(1);
    const again = t.app.database.statementCount();
    await t.gql(READ);
    expect(probe).toHaveBeenCalledTimes(1);
    expect(probed).toBe(t.app.database.statementCount() - again);
    probe.mockRestore();
  });

  test("a token created by another process (the CLI) ends open mode within the 1 s probe interval", async () => {
    const secret = (await new TokenStore(t.app.database.prisma).create({ name: "cli-made", scopes: ["read"], createdBy: "cli:test" })).secret;
    // Still inside the interval since the last probe: open.
    expect((await sendRequest(t, { graphql: { query: READ } })).status).toBe(200);
    now += 1_000;
    const refused = await sendRequest(t, { graphql: { query: READ } });
    expect([refused.status, refused.json.errors[0].extensions]).toEqual([401, { code: "UNAUTHENTICATED", reason: "MISSING" }]);
    expect((await sendRequest(t, { token: secret, graphql: { query: READ } })).status).toBe(200);
  });
});

describe("leaving open mode through the API", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("createApiToken in open mode: from the next request on, tokens are required; revoking every token does not reopen", async () => {
    const created = await t.gql(`mutation { createApiToken(input: { name: "first-admin", scopes: ["admin"] }) { token apiToken { id createdBy } } }`);
    const { token, apiToken } = created.data!.createApiToken;
    expect(apiToken.createdBy).toBe("open mode");
    const refused = await sendRequest(t, { graphql: { query: READ } });
    expect([refused.status, refused.headers.get("www-authenticate"), refused.json.errors[0].extensions.code]).toEqual([401, 'Bearer realm="provgraph"', "UNAUTHENTICATED"]);
    expect((await sendRequest(t, { token, graphql: { query: READ } })).status).toBe(200);
    await sendRequest(t, { token, graphql: { query: `mutation { revokeApiToken(id: "${apiToken.id}") { status } }` } });
    expect((await sendRequest(t, { graphql: { query: READ } })).status).toBe(401);
    expect((await sendRequest(t, { token, graphql: { query: READ } })).status).toBe(401);
  });

  test("a request that carries a bad token is refused even in open mode", async () => {
    const open = await createTestApp();
    try {
      const answer = await sendRequest(open, { token: generateTokenSecret(), graphql: { query: READ } });
      expect([answer.status, answer.json.errors[0].extensions]).toEqual([401, { code: "UNAUTHENTICATED", reason: "UNKNOWN" }]);
      expect((await sendRequest(open, { graphql: { query: READ } })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe("start-up modes", () => {
  let database: { url: string; drop: () => Promise<void> };
  const apps: App[] = [];
  const start = async (env: Record<string, string>) => {
    const app = await buildApp(loadConfig({ DATABASE_URL: database.url, PORT: "0", LOG_LEVEL: "silent", ...env }));
    apps.push(app);
    return app;
  };
  beforeEach(async () => {
    database = await createTestDatabaseUrl();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.stop();
    await database.drop();
  });

  test("a public HOST with no token refuses to serve, with one line saying how to create a token", async () => {
    const app = await start({ HOST: "0.0.0.0" });
    expect(app.authMode).toBe("refused");
    await expect(app.start()).rejects.toThrow(
      new AuthSetupError("HOST 0.0.0.0 is not a loopback address and no API token exists: create one with 'provgraph token create --scope admin --name admin' (same DATABASE_URL), or set PROVGRAPH_BOOTSTRAP_TOKEN"),
    );
    // In-process it answers nothing either: no token can exist to pass.
    const answer = await app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: READ }) });
    expect(answer.status).toBe(401);
  });

  test("PROVGRAPH_BOOTSTRAP_TOKEN makes an admin token once (hashed), across restarts; a revoked one stays revoked", async () => {
    const secret = generateTokenSecret();
    const first = await start({ HOST: "0.0.0.0", PROVGRAPH_BOOTSTRAP_TOKEN: secret });
    expect(first.authMode).toBe("tokens");
    const tokens = await first.database.prisma.apiToken.findMany();
    expect(tokens.map((row) => [row.name, row.scopes, row.createdBy])).toEqual([["bootstrap", '["admin"]', "PROVGRAPH_BOOTSTRAP_TOKEN"]]);
    await first.stop();
    const second = await start({ PROVGRAPH_BOOTSTRAP_TOKEN: secret });
    expect(second.authMode).toBe("tokens");
    expect(await second.database.prisma.apiToken.count()).toBe(1);
    await second.auth.revokeToken(tokens[0].id);
    await second.stop();
    const third = await start({ PROVGRAPH_BOOTSTRAP_TOKEN: secret });
    expect((await third.database.prisma.apiToken.findMany()).map((row) => row.revokedAt !== null)).toEqual([true]);
    const refused = await third.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` }, body: JSON.stringify({ query: READ }) });
    expect(refused.status).toBe(401);
  });

  test("a token in the database means tokens are required on loopback from the start", async () => {
    const open = await start({});
    expect(open.authMode).toBe("open");
    await open.auth.tokens.create({ name: "x", scopes: ["read"], createdBy: "test" });
    await open.stop();
    expect((await start({})).authMode).toBe("tokens");
  });
});

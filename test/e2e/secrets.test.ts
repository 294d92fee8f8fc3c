import fs from "node:fs";
import { createClient } from "graphql-ws";
import pg from "pg";
import WebSocket from "ws";
import { generateTokenSecret } from "../../src/auth";
import { sqliteFilePath } from "../../src/db/database-url";
import { type ServerProcess, startServer } from "../support/server-process";
import { createTestDatabaseUrl, testProvider } from "../support/test-database";
import { ensureBuilt } from "../support/build";
import { runTokenCli } from "../support/token-cli";

/**
 * Secrets never leave: a server run at the most verbose log level that handles tokens in every way
 * (bootstrap, created through the API and the CLI, used over HTTP and graphql-ws, sent malformed,
 * unknown, revoked, echoed back in variables and ids, on PostgreSQL with a password in
 * DATABASE_URL) prints none of them, and neither the SQLite file nor the PostgreSQL tables hold
 * a token's plaintext.
 */
describe("secrets in logs, errors and the database", () => {
  let database: { url: string; drop: () => Promise<void> };
  let server: ServerProcess;
  let databaseUrl: string;
  const password = `pw${generateTokenSecret().slice(4, 20)}`;
  const secrets: string[] = [];
  const cliOutput: string[] = [];

  const post = async (body: unknown, token?: string) => {
    const response = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    ensureBuilt();
    database = await createTestDatabaseUrl();
    databaseUrl = database.url;
    if (testProvider === "postgres") {
      // The test server trusts loopback, so any password connects; what matters is that it is in the URL.
      const url = new URL(database.url);
      url.password = password;
      databaseUrl = url.toString();
    }
    const admin = generateTokenSecret();
    secrets.push(admin);
    server = await startServer({ PORT: "0", DATABASE_URL: databaseUrl, PROVGRAPH_BOOTSTRAP_TOKEN: admin, LOG_LEVEL: "trace" });

    const created = await post({ query: `mutation { createApiToken(input: { name: "ci", scopes: ["write"] }) { token apiToken { id } } }` }, admin);
    const write = created.body.data.createApiToken.token as string;
    secrets.push(write);
    const cli = await runTokenCli(["create", "--scope", "read", "--name", "dashboard"], { DATABASE_URL: databaseUrl });
    const read = cli.stdout.trim();
    secrets.push(read);
    cliOutput.push(cli.stderr);
    const unknown = generateTokenSecret();
    secrets.push(unknown);

    expect((await post({ query: "{ operations(first: 1) { edges { cursor } } }" }, read)).status).toBe(200);
    expect((await post({ query: `mutation { registerOperation(input: { name: "x", version: "1", kind: CREATOR, inputs: [], outputs: [] }) { __typename } }` }, write)).status).toBe(403);
    expect((await post({ query: "{ operations(first: 1) { edges { cursor } } }" }, unknown)).status).toBe(401);
    expect((await post({ query: "{ operations(first: 1) { edges { cursor } } }" }, `${write}x`)).status).toBe(401);
    // Secrets where ids and values belong: echoed to the caller who sent them, never to the log.
    const echoed = await post({ query: "query($n: Int) { operations(first: $n) { edges { cursor } } }", variables: { n: write } }, admin);
    expect(echoed.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    expect((await post({ query: `mutation { revokeApiToken(id: "${read}") { id } }` }, admin)).body.errors[0].extensions.code).toBe("INVALID_ARGUMENT");
    expect((await post({ query: `{ execution(runId: "${admin}") { runId } }` }, admin)).body.errors[0].extensions.code).toBe("INVALID_ID");
    await post({ query: `mutation { revokeApiToken(id: "${created.body.data.createApiToken.apiToken.id}") { id } }` }, admin);
    expect((await post({ query: "{ operations(first: 1) { edges { cursor } } }" }, write)).status).toBe(401);

    for (const authorization of [`Bearer ${read}`, `Bearer ${unknown}`]) {
      const client = createClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true, connectionParams: { authorization } });
      await new Promise<void>((resolve) => client.subscribe({ query: "{ operations(first: 1) { edges { cursor } } }" }, { next: () => undefined, error: () => resolve(), complete: () => resolve() }));
      await client.dispose();
    }
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 900_000);
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await database.drop();
  });

  test("the run did what it should have logged: refusals, client errors, debug lines", () => {
    const output = server.output();
    expect(output).toContain('"msg":"request refused"');
    expect(output).toContain('"msg":"WebSocket connection refused"');
    expect(output).toContain('"msg":"request answered with client errors"');
    expect(output).toContain('"level":20'); // debug lines (Yoga's own) were written too
    // The caller's own mistakes quoted a secret; the log line masked it.
    expect(output).toContain("pgt_****");
  });

  test("nothing the server printed contains a token or the database password", () => {
    const output = server.output() + cliOutput.join("");
    for (const secret of secrets) {
      expect([secret, output.includes(secret)]).toEqual([secret, false]);
      expect([secret, output.includes(secret.slice(4))]).toEqual([secret, false]);
    }
    expect(output.includes(password)).toBe(false);
  });

  test("the database holds no token's plaintext", async () => {
    let stored: string;
    if (testProvider === "sqlite") {
      const file = sqliteFilePath(database.url);
      stored = [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString("latin1")).join("");
      expect(stored).toContain("ApiToken");
    } else {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const tables = (await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).rows.map((row) => row.tablename);
        expect(tables).toEqual(expect.arrayContaining(["ApiToken", "AuditEvent"]));
        const rows: string[] = [];
        for (const table of tables) rows.push(...(await client.query<{ row: string }>(`SELECT t::text AS row FROM "${table}" t`)).rows.map((row) => row.row));
        stored = rows.join("\n");
        expect(stored).toContain("dashboard");
      } finally {
        await client.end();
      }
    }
    for (const secret of secrets) {
      expect([secret, stored.includes(secret)]).toEqual([secret, false]);
      expect([secret, stored.includes(secret.slice(4))]).toEqual([secret, false]);
    }
  });
});

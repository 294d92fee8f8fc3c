import os from "node:os";
import { generateTokenSecret } from "../../src/auth";
import { type ServerProcess, spawnServer, startServer } from "../support/server-process";
import { ensureBuilt } from "../support/build";
import { runTokenCli } from "../support/token-cli";
import { createTestDatabaseUrl } from "../support/test-database";
import { freePort } from "../support/free-port";

/** provgraph as a process: start-up modes, and the token CLI against a running server's database. */
const logLines = (output: string) => output.split("\n").filter((line) => line.startsWith('{"level":')).map((line) => JSON.parse(line));
const nonLogLines = (output: string) => output.split("\n").filter((line) => line !== "" && !line.startsWith('{"level":'));
const READ = JSON.stringify({ query: "{ operations(first: 1) { edges { cursor } } }" });


async function stop(server: ServerProcess | undefined) {
  if (server && server.child.exitCode === null) {
    server.child.kill("SIGTERM");
    await server.exited;
  }
}

describe("start-up modes", () => {
  let database: { url: string; drop: () => Promise<void> };
  let server: ServerProcess | undefined;
  // the token commands run the real `provgraph` command, compiled
  beforeAll(() => ensureBuilt(), 900_000);
  beforeEach(async () => {
    database = await createTestDatabaseUrl();
  });
  afterEach(async () => {
    await stop(server);
    server = undefined;
    await database.drop();
  });

  test("a public HOST with no token: one line saying how to create a token, exit 1, nothing served", async () => {
    const port = await freePort();
    const run = spawnServer({ HOST: "0.0.0.0", PORT: String(port), DATABASE_URL: database.url });
    expect(await run.exited).toBe(1);
    expect(nonLogLines(run.output())).toEqual([
      "provgraph: HOST 0.0.0.0 is not a loopback address and no API token exists: create one with 'provgraph token create --scope admin --name admin' (same DATABASE_URL), or set PROVGRAPH_BOOTSTRAP_TOKEN",
    ]);
    expect(run.output()).not.toMatch(/\n\s+at /);
    expect(run.output()).not.toContain("listening");
  });

  test("loopback with no token: open mode, said in exactly one warn line", async () => {
    server = await startServer({ PORT: "0", DATABASE_URL: database.url });
    const lines = logLines(server.output());
    expect(lines.filter((line) => line.level >= 40)).toEqual([
      {
        level: 40,
        time: expect.any(Number),
        service: "provgraph",
        host: "127.0.0.1",
        auth: "open",
        msg: "OPEN MODE: no API token exists, so every request to this loopback-only server acts as admin. Create a token to require tokens: provgraph token create --scope admin --name admin",
      },
    ]);
    expect(lines.find((line) => /listening/.test(line.msg)).auth).toBe("open");
    expect((await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: READ })).status).toBe(200);
  });

  test("`npm run token -- create` against a running open-mode server: tokens are required within a second; list; revoke", async () => {
    server = await startServer({ PORT: "0", DATABASE_URL: database.url });
    const created = await runTokenCli(["create", "--scope", "write", "--name", "ci"], { DATABASE_URL: database.url }, "npm");
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^pgt_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/^created tok_[0-9a-f-]{36} 'ci' \(write\), never expires, on .*\nThe token, printed on stdout, is shown only now \(only its hash is stored\): keep it in your secret store\.\n$/);
    expect(created.stderr).not.toContain(token);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const anonymous = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: READ });
    expect([anonymous.status, anonymous.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="provgraph"']);
    const withToken = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: READ });
    expect(withToken.status).toBe(200);

    const listed = await runTokenCli(["list"], { DATABASE_URL: database.url });
    const [header, row] = listed.stdout.trim().split("\n");
    expect(header.split(/\s{2,}/)).toEqual(["ID", "NAME", "SCOPES", "STATUS", "CREATED", "CREATED BY", "LAST USED", "EXPIRES"]);
    expect(row.split(/\s{2,}/)).toEqual([expect.stringMatching(/^tok_/), "ci", "write", "ACTIVE", expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), `cli:${os.userInfo().username}`, expect.stringMatching(/Z$/), "-"]);
    expect(listed.stdout).not.toContain(token);

    const revoked = await runTokenCli(["revoke", "ci"], { DATABASE_URL: database.url });
    expect([revoked.code, revoked.stdout]).toEqual([0, expect.stringMatching(/^revoked tok_[0-9a-f-]{36} 'ci' at /)]);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const refused = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: READ });
    expect([refused.status, ((await refused.json()) as any).errors[0].extensions]).toEqual([401, { code: "UNAUTHENTICATED", reason: "REVOKED" }]);
    expect(server.output()).not.toContain(token);
  });

  test("the token command's mistakes are one line and their documented exit code: 2 for a bad value, 6 for an unknown token", async () => {
    const env = { DATABASE_URL: database.url };
    expect(await runTokenCli(["create", "--scope", "root", "--name", "x"], env)).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "provgraph: scopes: 'root' is not a scope: expected read, write, admin, metrics, clearance:<TAG> or purpose:<NAME> (TAG, NAME: 1-64 letters, digits, '_', '.' or '-')\n",
    });
    expect(await runTokenCli(["revoke", "nobody"], env)).toMatchObject({ code: 6, stderr: "provgraph: no active token is named 'nobody'\n" });
    expect(await runTokenCli(["create", "--scope", "read", "--name", "x", "--expires", "soon"], env)).toMatchObject({ code: 2, stderr: "provgraph: --expires 'soon' is neither a duration (30d, 12h, 90m) nor an ISO date\n" });
    expect(await runTokenCli(["create", "--name", "x"], env)).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: required option '--scope <scope\.\.\.>' not specified\n/) });
    const generated = await runTokenCli(["generate"], {});
    expect([generated.code, generated.stdout]).toEqual([0, expect.stringMatching(/^pgt_[A-Za-z0-9_-]{43}\n$/)]);
  });

  test("a public HOST with PROVGRAPH_BOOTSTRAP_TOKEN: tokens required, GraphiQL and introspection off", async () => {
    const port = await freePort();
    const secret = generateTokenSecret();
    server = await startServer({ HOST: "0.0.0.0", PORT: String(port), DATABASE_URL: database.url, PROVGRAPH_BOOTSTRAP_TOKEN: secret });
    expect(logLines(server.output()).filter((line) => line.level >= 40)).toEqual([]);
    const local = `http://127.0.0.1:${port}/graphql`;
    expect((await fetch(local, { method: "POST", headers: { "content-type": "application/json" }, body: READ })).status).toBe(401);
    const answer = await fetch(local, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` }, body: READ });
    expect([answer.status, await answer.json()]).toEqual([200, { data: { operations: { edges: [] } } }]);
    const page = await fetch(local, { headers: { accept: "text/html", authorization: `Bearer ${secret}` } });
    expect(await page.text()).not.toContain("GraphiQL");
    const introspection = await fetch(local, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` }, body: JSON.stringify({ query: "{ __schema { types { name } } }" }) });
    expect(((await introspection.json()) as any).errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(server.output()).not.toContain(secret);
  });
});


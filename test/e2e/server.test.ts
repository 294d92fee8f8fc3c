import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { createTestDatabaseUrl } from "../support/test-database";
import { type ServerProcess, spawnServer, startServer } from "../support/server-process";
import { freePort } from "../support/free-port";


/** The output lines that are not provgraph's JSON log lines. */
const nonLogLines = (output: string) => output.split("\n").filter((line) => line !== "" && !line.startsWith('{"level":'));

async function post(url: string, query: string) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
  return { status: response.status, body: (await response.json()) as any };
}

describe("provgraph as a process", () => {
  let server: ServerProcess;
  let port: number;
  let database: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    port = await freePort();
    database = await createTestDatabaseUrl();
    server = await startServer({ PORT: String(port), DATABASE_URL: database.url });
  });
  afterAll(async () => {
    if (server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await database.drop();
  });

  test("listens on PORT and uses DATABASE_URL (migrated at start-up)", async () => {
    expect(server.url).toBe(`http://127.0.0.1:${port}/graphql`);
    const { body } = await post(server.url, "{ executions(first: 5) { edges { node { runId } } } }");
    expect(body).toEqual({ data: { executions: { edges: [] } } });
    if (database.url.startsWith("file:")) expect(fs.existsSync(database.url.slice("file:".length))).toBe(true);
  });

  test("serves GraphiQL to browsers, /healthz and /readyz", async () => {
    const page = await fetch(server.url, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("GraphiQL");
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).status).toBe("ready");
    expect((await fetch(`http://127.0.0.1:${port}/healthz`, { method: "HEAD" })).status).toBe(200);
    // A probe is a GET: another method is 405, not an answer.
    for (const path of ["/healthz", "/readyz"]) {
      const posted = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST" });
      expect([posted.status, posted.headers.get("allow"), (await posted.json()).error.code]).toEqual([405, "GET, HEAD", "METHOD_NOT_ALLOWED"]);
    }
  });

  test("answers GraphQL over graphql-ws on the same port and path", async () => {
    const client = createClient({ url: server.url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const result = await new Promise<unknown>((resolve, reject) => {
        let value: unknown;
        client.subscribe({ query: "{ operations(first: 1) { edges { cursor } } }" }, { next: (v) => (value = v), error: reject, complete: () => resolve(value) });
      });
      expect(result).toEqual({ data: { operations: { edges: [] } } });
    } finally {
      await client.dispose();
    }
  });

  test("SIGTERM while a request is in flight: the request completes, then the process exits 0", async () => {
    const body = JSON.stringify({ query: "{ executions(first: 1) { edges { cursor } } }" });
    const half = Math.floor(body.length / 2);
    const responded = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request(
        { host: "127.0.0.1", port, path: "/graphql", method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
        (response) => {
          let text = "";
          response.on("data", (chunk) => (text += chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      request.on("error", reject);
      // Send half the body, signal the server, then finish: the request is in flight across SIGTERM.
      request.write(body.slice(0, half), () => {
        setTimeout(() => {
          server.child.kill("SIGTERM");
          setTimeout(() => request.end(body.slice(half)), 300);
        }, 100);
      });
    });
    const response = await responded;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({ data: { executions: { edges: [] } } });
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain("shutting down");
  });
});

describe("start-up failures are one clear line and exit code 1", () => {
  test("an unreachable PostgreSQL names the URL with its password masked", async () => {
    const closedPort = await freePort();
    const run = spawnServer({ PORT: "0", DATABASE_URL: `postgresql://provgraph:hunter2@127.0.0.1:${closedPort}/prov` });
    expect(await run.exited).toBe(1);
    const lines = run.output().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^provgraph: cannot use database postgresql://provgraph:\\*{4}@127\\.0\\.0\\.1:${closedPort}/prov: .*ECONNREFUSED`));
    expect(run.output()).not.toContain("hunter2");
  });

  test("a busy port is one line naming the port, exit 1", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as net.AddressInfo;
    try {
      const folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-busy-")), "data");
      const run = spawnServer({ PORT: String(port), DATABASE_URL: `file:${path.join(folder, "busy.db")}` });
      expect(await run.exited).toBe(1);
      // the port is checked before anything else: one line, no stack, no log line, no database folder or file created
      expect(run.output()).toBe(`provgraph: port ${port} is in use\n`);
      expect(fs.existsSync(folder)).toBe(false);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  test("a HOST that is not this machine's is one line naming it, exit 1", async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never assigned to a local interface.
    const folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-host-")), "data");
    const run = spawnServer({ PORT: "0", HOST: "192.0.2.1", DATABASE_URL: `file:${path.join(folder, "host.db")}` });
    expect(await run.exited).toBe(1);
    expect(run.output()).toBe("provgraph: HOST 192.0.2.1 is not an address of this machine\n");
    expect(fs.existsSync(folder)).toBe(false);
  });

  test("a bad PORT says which variable and why", async () => {
    const run = spawnServer({ PORT: "eighty", DATABASE_URL: `file:${path.join(os.tmpdir(), "never.db")}` });
    expect(await run.exited).toBe(1);
    expect(run.output().trim()).toBe("provgraph: invalid configuration: PORT must be a whole number, got 'eighty'");
  });
});

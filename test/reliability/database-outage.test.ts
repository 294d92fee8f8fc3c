import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Client, Pool } from "pg";
import { type App, buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { isDatabaseUnavailable } from "../../src/db/unavailable";
import { createOwnPostgres, type OwnPostgres } from "../support/own-postgres";
import { draft, RECORD_EXECUTION, REGISTER_OPERATION } from "../support/recording";
import { runEvent } from "../support/openlineage";
import { SseReader } from "../support/sse";
import { wsClient, wsSubscribe } from "../support/ws-feed";

const generator = { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "sample", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
const recording = (name: string) => ({ operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft(name)] }] });
const UNAVAILABLE = { code: "DATABASE_UNAVAILABLE", retryable: true, retryAfterSeconds: 5 };
const MESSAGE = "the database is unavailable; retry in 5 s";

/**
 * Issue 13, point 3: with PostgreSQL down, every surface answers a typed, retryable
 * DATABASE_UNAVAILABLE (HTTP 503 + Retry-After over HTTP), never INTERNAL_SERVER_ERROR, and no
 * answer names the database's host or port; once it is back, the same app serves again. A
 * PostgreSQL server of the test's own, stopped and started by the test.
 */
describe("a database outage (PostgreSQL stopped under a running server)", () => {
  let pg: OwnPostgres;
  let app: App;
  /** An app in open mode that looks for tokens on every request (its token checks need the database). */
  let probing: App;
  let url: string;
  let origin: string;

  const post = async (body: unknown, headers: Record<string, string> = {}, path = "/graphql") => {
    const response = await fetch(`${origin}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, retryAfter: response.headers.get("retry-after"), text, json: JSON.parse(text) };
  };
  const gql = (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) => post({ query, variables }, headers);
  /** No answer may say where the database is. */
  const leaksNothing = (text: string) => expect([text.includes(String(pg.port)), text.includes("127.0.0.1"), /prisma|invocation|ECONNREFUSED/i.test(text)]).toEqual([false, false, false]);

  beforeAll(async () => {
    pg = await createOwnPostgres();
    // Open mode probes for tokens once a second; a long probe interval lets the requests below reach execution.
    app = await buildApp(loadConfig({ DATABASE_URL: pg.url, PORT: "0", LOG_LEVEL: "silent" }), { auth: { openModeProbeMs: 3_600_000 } });
    url = await app.start();
    origin = new URL(url).origin;
    expect((await gql(REGISTER_OPERATION, { input: generator })).json.data.registerOperation.__typename).toBe("Operation");
    expect((await gql(RECORD_EXECUTION, { input: recording("before.csv") })).json.data.recordExecution.__typename).toBe("RecordExecutionPayload");
    probing = await buildApp(loadConfig({ DATABASE_URL: pg.url, PORT: "0", LOG_LEVEL: "silent", MIGRATE_ON_START: "false" }), { auth: { openModeProbeMs: 0 } });
    await pg.stop("fast");
  }, 60_000);
  afterAll(async () => {
    await probing?.stop();
    await app?.stop();
    await pg?.destroy();
  });

  test("/graphql: a query answers 503 with Retry-After and DATABASE_UNAVAILABLE, with either Accept", async () => {
    for (const accept of ["application/json", "application/graphql-response+json"]) {
      const answer = await gql("{ executions(first: 5) { edges { node { runId } } } }", undefined, { accept });
      expect([answer.status, answer.retryAfter]).toEqual([503, "5"]);
      expect(answer.json.errors).toEqual([{ message: MESSAGE, locations: [{ line: 1, column: 3 }], path: ["executions"], extensions: UNAVAILABLE }]);
      leaksNothing(answer.text);
    }
  });

  test("/graphql: recordExecution answers 503 DATABASE_UNAVAILABLE", async () => {
    const answer = await gql(RECORD_EXECUTION, { input: recording("during.csv") });
    expect([answer.status, answer.retryAfter, answer.json.errors.map((e: any) => e.extensions)]).toEqual([503, "5", [UNAVAILABLE]]);
    leaksNothing(answer.text);
  });

  test("OpenLineage routes: one event and a batch answer 503 with Retry-After, each event DATABASE_UNAVAILABLE", async () => {
    const single = await post(runEvent(), {}, "/api/v1/lineage");
    expect([single.status, single.retryAfter, single.json]).toEqual([503, "5", { error: { code: "DATABASE_UNAVAILABLE", message: MESSAGE, pointer: null, reason: null, retryable: true, retryAfterSeconds: 5 } }]);
    const batch = await post([runEvent(), runEvent()], {}, "/api/v1/lineage/batch");
    expect([batch.status, batch.retryAfter, batch.json.stored, batch.json.refused, batch.json.results.map((r: any) => [r.status, r.error.code])]).toEqual([
      503,
      "5",
      0,
      2,
      [
        ["REFUSED", "DATABASE_UNAVAILABLE"],
        ["REFUSED", "DATABASE_UNAVAILABLE"],
      ],
    ]);
    leaksNothing(single.text + batch.text);
  });

  test("the evidence route answers 503 with Retry-After and DATABASE_UNAVAILABLE", async () => {
    const response = await fetch(`${origin}/api/v1/evidence/art_${"0".repeat(40)}`);
    const text = await response.text();
    expect([response.status, response.headers.get("retry-after"), JSON.parse(text)]).toEqual([503, "5", { error: { code: "DATABASE_UNAVAILABLE", message: MESSAGE, retryable: true, retryAfterSeconds: 5 } }]);
    leaksNothing(text);
  });

  test("SSE: a subscription gets one typed error event, then complete", async () => {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify({ query: "subscription { runRecorded { sequence } }" }) });
    const messages = await new SseReader(response.body!).take(2);
    expect(messages.map((m) => m.event)).toEqual(["next", "complete"]);
    expect(messages[0].data.errors.map((e: any) => [e.message, e.extensions])).toEqual([[MESSAGE, UNAVAILABLE]]);
  });

  test("graphql-ws: a subscription and a query get DATABASE_UNAVAILABLE", async () => {
    const client = wsClient(url);
    try {
      const feed = wsSubscribe(client, "subscription { runRecorded { sequence } }");
      const query = wsSubscribe(client, "{ executions(first: 1) { edges { node { runId } } } }");
      const ended = [await feed.ended, await query.ended];
      const codes = [...feed.results, ...query.results].flatMap((r) => r.errors ?? []).map((e: any) => e.extensions);
      const refused = ended.flatMap((e) => (Array.isArray(e.error) ? e.error : [])).map((e: any) => e.extensions);
      expect([...codes, ...refused]).toEqual([UNAVAILABLE, UNAVAILABLE]);
    } finally {
      await client.dispose();
    }
  });

  test("/readyz answers 503 with a plain body; /healthz stays 200", async () => {
    const ready = await fetch(`${origin}/readyz`);
    const text = await ready.text();
    expect([ready.status, ready.headers.get("retry-after"), JSON.parse(text)]).toEqual([503, "5", { status: "unavailable", code: "DATABASE_UNAVAILABLE", reason: "the database cannot be reached", retryAfterSeconds: 5 }]);
    leaksNothing(text);
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
  });

  test("a token check that needs the database answers 503 before anything runs (HTTP), 1013 on graphql-ws", async () => {
    const response = await probing.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ __typename }" }) });
    const text = await response.text();
    expect([response.status, response.headers.get("retry-after"), JSON.parse(text)]).toEqual([503, "5", { errors: [{ message: MESSAGE, extensions: UNAVAILABLE }] }]);
    leaksNothing(text);
    const probingUrl = await probing.start();
    const client = wsClient(probingUrl);
    try {
      const { error } = await wsSubscribe(client, "{ __typename }").ended;
      expect([(error as { code?: number }).code, (error as { reason?: string }).reason]).toEqual([1013, `DATABASE_UNAVAILABLE: ${MESSAGE}`]);
    } finally {
      await client.dispose();
    }
  });

  test("once PostgreSQL is back, the same server answers again: /readyz, queries, recordings", async () => {
    await pg.start();
    const deadline = Date.now() + 20_000;
    let ready = 0;
    while (Date.now() < deadline && ready !== 200) {
      ready = (await fetch(`${origin}/readyz`)).status;
      if (ready !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ready).toBe(200);
    const recorded = await gql(RECORD_EXECUTION, { input: recording("after.csv") });
    expect([recorded.status, recorded.json.data.recordExecution.__typename]).toEqual([200, "RecordExecutionPayload"]);
    const listed = await gql("{ executions(first: 5) { edges { node { runId } } } }");
    expect([listed.status, listed.json.data.executions.edges.length]).toEqual([200, 2]);
  });
});

// The classifier behind DATABASE_UNAVAILABLE, on errors the real drivers raise.
describe("which errors mean the database is unavailable", () => {
  let pg: OwnPostgres;
  beforeAll(async () => {
    pg = await createOwnPostgres();
  }, 60_000);
  afterAll(() => pg?.destroy());

  const failure = async (run: () => Promise<unknown> | unknown): Promise<unknown> => {
    try {
      await run();
    } catch (error) {
      return error;
    }
    throw new Error("expected a failure");
  };

  test("PostgreSQL: refused, terminated, pool timeout, and Prisma's forms of them — yes; a refused statement — no", async () => {
    const closed = new URL(pg.url);
    closed.port = String(await closedPort());
    const refused = await failure(async () => {
      const client = new Client({ connectionString: closed.toString() });
      await client.connect();
    });
    // A backend terminated under its session (what a restart or failover does to an idle connection).
    const victim = new Client({ connectionString: pg.url });
    await victim.connect();
    victim.on("error", () => undefined);
    const killer = new Client({ connectionString: pg.url });
    await killer.connect();
    await killer.query("SELECT pg_terminate_backend($1)", [(await victim.query("SELECT pg_backend_pid() AS pid")).rows[0].pid]);
    const terminated = await failure(() => victim.query("SELECT 1"));
    // No connection to spare within the pool's timeout.
    // The one connection is opened with time to spare (a busy machine took over 100 ms to connect);
    // only the wait for a second one is cut short (pg-pool reads the option at each connect).
    const pool = new Pool({ connectionString: pg.url, max: 1, connectionTimeoutMillis: 30_000 });
    const held = await pool.connect();
    pool.options.connectionTimeoutMillis = 100;
    const poolTimeout = await failure(() => pool.query("SELECT 1"));
    held.release();
    await pool.end();
    const prismaDown = openDatabase(closed.toString());
    const prismaRefused = await failure(() => prismaDown.prisma.$queryRawUnsafe("SELECT 1"));
    await prismaDown.close();
    const divisionByZero = await failure(() => killer.query("SELECT 1/0"));
    const syntax = await failure(() => killer.query("SELEC 1"));
    await killer.end();
    expect([refused, terminated, poolTimeout, prismaRefused, divisionByZero, syntax].map(isDatabaseUnavailable)).toEqual([true, true, true, true, false, false]);
  });

  test("SQLite: cannot open the file, busy past the timeout — yes; a constraint — no", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-unavailable-"));
    const cannotOpen = (() => {
      try {
        // A path SQLite cannot open as a database file: a directory.
        new BetterSqlite3(dir);
      } catch (error) {
        return error;
      }
    })();
    const file = path.join(dir, "busy.db");
    const a = new BetterSqlite3(file);
    const b = new BetterSqlite3(file, { timeout: 0 });
    a.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    a.exec("BEGIN IMMEDIATE");
    const busy = (() => {
      try {
        b.exec("BEGIN IMMEDIATE");
      } catch (error) {
        return error;
      }
    })();
    a.exec("INSERT INTO t VALUES (1)");
    a.exec("COMMIT");
    const constraint = (() => {
      try {
        a.exec("INSERT INTO t VALUES (1)");
      } catch (error) {
        return error;
      }
    })();
    a.close();
    b.close();
    fs.rmSync(dir, { recursive: true, force: true });
    expect([cannotOpen, busy, constraint].map((e) => (e as { code?: string }).code)).toEqual(["SQLITE_CANTOPEN", "SQLITE_BUSY", "SQLITE_CONSTRAINT_PRIMARYKEY"]);
    expect([cannotOpen, busy, constraint].map(isDatabaseUnavailable)).toEqual([true, true, false]);
  });
});

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

import { type ChildProcess, spawn } from "node:child_process";
import { migrateDatabase } from "../../src/db/migrate";
import { FEED_POLL_INTERVAL_MS } from "../../src/services/feeds";
import { draft, RECORD_EXECUTION, REGISTER_OPERATION } from "../support/recording";
import { redisAvailability } from "../support/redis";
import { type ServerProcess, startServer } from "../support/server-process";
import { createTestDatabaseUrl, testProvider } from "../support/test-database";
import { type WsFeed, wsClient, wsSubscribe } from "../support/ws-feed";

const FEED = `subscription { runRecorded { sequence execution { runId } } }`;

/**
 * A Redis server of this test's own on a fixed loopback port, so it can be killed and started
 * again where the instances look for it. Stopped by its PID.
 */
class OwnRedis {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  constructor(readonly port: number) {}
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    const child = spawn("redis-server", ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
      child.stdout!.on("data", (chunk) => {
        output += chunk;
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      void this.exited.then(() => reject(new Error(`redis-server exited:\n${output}`)));
    });
  }
  /** As an outage: SIGKILL, no goodbye to the clients. */
  async kill(): Promise<void> {
    this.child?.kill("SIGKILL");
    await this.exited;
    this.child = undefined;
  }
}

/**
 * Two instances on PostgreSQL sharing feed notices through Redis, and Redis killed: each instance
 * reads the feed log itself while Redis cannot be reached, so subscribers on one instance go on
 * receiving what the other records; /readyz says so in its body (still 200); a new instance starts
 * without Redis; when Redis is back, notices are pushed again.
 */
const redisInstalled = redisAvailability();
const unavailable = !redisInstalled.available ? redisInstalled.reason : undefined;
(unavailable === undefined ? describe : describe.skip)(`feeds while Redis is down (${testProvider})`, () => {
  // This file's own port range (43000–43999), one port per run.
  const redis = new OwnRedis(43000 + (process.pid % 900));
  const servers: ServerProcess[] = [];
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    await redis.start();
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    await migrateDatabase(database.url);
    env = { DATABASE_URL: database.url, PORT: "0", REDIS_URL: redis.url, MIGRATE_ON_START: "false", LOG_LEVEL: "info" };
    servers.push(...(await Promise.all([startServer(env, 120_000), startServer(env, 120_000)])));
  }, 300_000);
  afterAll(async () => {
    for (const server of servers) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await redis.kill();
    await drop?.();
  }, 60_000);

  async function post(server: ServerProcess, query: string, variables: Record<string, unknown>) {
    const response = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: any; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }
  const gen = async (server: ServerProcess, name: string) =>
    (await post(server, RECORD_EXECUTION, { input: { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(name)] }] } })).recordExecution.execution.runId as string;
  const readyz = async (server: ServerProcess) => {
    const response = await fetch(new URL("/readyz", server.url));
    return { status: response.status, body: (await response.json()) as any };
  };
  const untilMode = async (server: ServerProcess, mode: "push" | "polling", timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ready = await readyz(server);
      if (ready.body.feeds?.mode === mode) return ready;
      if (Date.now() > deadline) throw new Error(`/readyz never said ${mode}: ${JSON.stringify(ready.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** Records a run on `from` and waits for it on `feed`: how long after the recording answered it arrived (ms). */
  const delivered = async (from: ServerProcess, feed: WsFeed, name: string) => {
    const seen = feed.results.length;
    const runId = await gen(from, name);
    const answered = Date.now();
    // An earlier run another step recorded may still be on its way to this subscriber (it hears every
    // instance): wait for this one among what arrives; order and once-each are checked at the end.
    for (let count = seen + 1; ; count++) {
      const arrived = (await feed.until(count, 15_000)).slice(seen);
      if (arrived.some((result) => result.data.runRecorded.execution.runId === runId)) return Date.now() - answered;
    }
  };

  test("subscribers on A receive what B records before, during and after a Redis outage; /readyz says degraded (200) meanwhile; an instance starts without Redis", async () => {
    const [a, b] = servers;
    await post(a, REGISTER_OPERATION, { input: { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] } });
    expect(await untilMode(a, "push")).toEqual({ status: 200, body: expect.objectContaining({ status: "ready", feeds: { via: "redis", mode: "push" } }) });
    const clientA = wsClient(a.url);
    const onA = wsSubscribe(clientA, FEED, {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    await delivered(b, onA, "before.csv");

    // Redis dies. Each instance notices, says so, and reads the feed log itself.
    await redis.kill();
    const outageStarted = Date.now();
    for (const server of [a, b]) {
      const ready = await untilMode(server, "polling");
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: "degraded", database: "postgres", feeds: { via: "redis", mode: "polling", reason: "redis cannot be reached: this instance reads the feed log itself" } });
      expect(Date.parse(ready.body.feeds.since)).toBeLessThanOrEqual(Date.now());
    }
    const lags: number[] = [];
    for (let i = 0; i < 5; i++) lags.push(await delivered(b, onA, `outage_${i}.csv`));

    // A new instance starts while Redis is down: degraded, not gone; its subscribers hear A's runs.
    const c = await startServer(env, 120_000);
    servers.push(c);
    expect((await readyz(c)).body).toMatchObject({ status: "degraded", feeds: { mode: "polling" } });
    const clientC = wsClient(c.url);
    const onC = wsSubscribe(clientC, FEED, {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    lags.push(await delivered(a, onC, "outage_c.csv"));
    // Every run recorded during the outage arrived while Redis was still down: read from the log, no notice could carry them.
    expect(await readyz(a)).toMatchObject({ body: { feeds: { mode: "polling" } } });
    // Polling every FEED_POLL_INTERVAL_MS, a run arrives within about that (the bound here is loose: two cores are shared).
    console.log(`feeds while Redis was down: delivery ${lags.join(", ")} ms after the recording answered (poll every ${FEED_POLL_INTERVAL_MS} ms), outage ${Date.now() - outageStarted} ms`);
    for (const lag of lags) expect(lag).toBeLessThan(5_000);

    // Redis is back: push again, on every instance, the new one included.
    await redis.start();
    for (const server of [a, b, c]) expect(await untilMode(server, "push")).toMatchObject({ status: 200, body: { status: "ready", feeds: { via: "redis", mode: "push" } } });
    await delivered(b, onA, "after.csv");
    await delivered(b, onC, "after_c.csv");
    for (const server of [a, b, c]) expect(server.output()).toContain("feeds: Redis connection is back; notices are pushed again");
    expect(c.output()).toContain("feeds: cannot reach Redis; reading the feed log until it can");

    // Each subscriber saw every run once, in order.
    const runIds = (feed: WsFeed) => feed.results.map((r) => r.data.runRecorded.sequence);
    for (const feed of [onA, onC]) expect(runIds(feed)).toEqual([...new Set(runIds(feed))].sort((x, y) => x - y));
    onA.stop();
    onC.stop();
    await Promise.all([clientA.dispose(), clientC.dispose()]);
  }, 300_000);
});

import { maskUrlPassword } from "../../src/config";
import { migrateDatabase } from "../../src/db/migrate";
import { draft, RECORD_EXECUTION, REGISTER_OPERATION } from "../support/recording";
import { redisAvailability, startTestRedis, type TestRedis } from "../support/redis";
import { type ServerProcess, startServer } from "../support/server-process";
import { SseReader } from "../support/sse";
import { createTestDatabaseUrl, testProvider } from "../support/test-database";
import { wsClient, wsSubscribe } from "../support/ws-feed";

const FEED = `subscription($since: FeedSince) { runRecorded(since: $since) { sequence execution { runId } } }`;
const redis = redisAvailability();

/**
 * Two server processes on one database and one Redis, as behind a load balancer: a subscriber on
 * either instance receives the runs recorded through the other, in the same (commit) order.
 * PostgreSQL only (a *.pg.test.ts file: jest.config.js runs these when TEST_DATABASE_URL is set, as in
 * .ci/run's second pass): a SQLite file is served by one process (docs/operating/several-instances.md;
 * test/e2e/sqlite-one-process.test.ts).
 */
// Redis is required in CI (redisAvailability throws there); on a developer machine without it, the suite says why it did not run.
const unavailable = !redis.available ? redis.reason : undefined;
(unavailable === undefined ? describe : describe.skip)(`several instances through Redis (${testProvider})${unavailable === undefined ? "" : ` — skipped: ${unavailable}`}`, () => {
  let broker: TestRedis;
  let a: ServerProcess;
  let b: ServerProcess;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    broker = await startTestRedis();
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    await migrateDatabase(database.url);
    const env = { DATABASE_URL: database.url, PORT: "0", REDIS_URL: broker.url, MIGRATE_ON_START: "false", LOG_LEVEL: "info" };
    // Two processes compiling through tsx at once on a busy machine: give them time.
    [a, b] = await Promise.all([startServer(env, 120_000), startServer(env, 120_000)]);
  }, 300_000);
  afterAll(async () => {
    for (const server of [a, b]) {
      server?.child.kill("SIGTERM");
      await server?.exited;
    }
    await broker?.stop();
    await drop?.();
  });

  async function post(server: ServerProcess, query: string, variables: Record<string, unknown>) {
    const response = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: any; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }
  const gen = async (server: ServerProcess, name: string) =>
    (await post(server, RECORD_EXECUTION, { input: { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(name)] }] } })).recordExecution.execution.runId as string;

  test("each instance logs that it shares feeds through Redis, its password masked", () => {
    const password = new URL(broker.url).password;
    for (const server of [a, b]) {
      expect(server.output()).toContain(`"redis":"${maskUrlPassword(broker.url)}"`);
      if (password) expect(server.output()).not.toContain(password);
    }
  });

  test("a subscriber on B receives the runs recorded through A (and A's those through B), in one order", async () => {
    await post(a, REGISTER_OPERATION, { input: { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] } });
    const clientB = wsClient(b.url);
    const onB = wsSubscribe(clientB, FEED, {});
    const response = await fetch(a.url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify({ query: FEED }) });
    const onA = await new SseReader(response.body!).ready();
    await new Promise((resolve) => setTimeout(resolve, 300));

    const recorded = [await gen(a, "mi_1.csv"), await gen(b, "mi_2.csv"), await gen(a, "mi_3.csv"), await gen(a, "mi_4.csv")];
    const seenOnB = (await onB.until(4)).map((result) => result.data.runRecorded);
    const seenOnA = (await onA.take(4)).map((message) => message.data.data.runRecorded);
    expect(seenOnB.map((event) => event.execution.runId)).toEqual(recorded);
    expect(seenOnA).toEqual(seenOnB);
    const sequences = seenOnB.map((event) => event.sequence);
    expect(sequences).toEqual([sequences[0], sequences[0] + 1, sequences[0] + 2, sequences[0] + 3]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(onB.results).toHaveLength(4);
    expect(await onA.idle(100)).toEqual([]);

    // Resuming on B after what it saw: the runs recorded through A meanwhile, once each.
    onB.stop();
    await clientB.dispose();
    const missed = [await gen(a, "mi_5.csv"), await gen(a, "mi_6.csv")];
    const clientB2 = wsClient(b.url);
    const resumed = wsSubscribe(clientB2, FEED, { since: { sequence: sequences[3] } });
    await resumed.until(2);
    const after = await gen(a, "mi_7.csv");
    expect((await resumed.until(3)).map((result) => result.data.runRecorded.execution.runId)).toEqual([...missed, after]);
    resumed.stop();
    await clientB2.dispose();
    await onA.cancel();
  });
});

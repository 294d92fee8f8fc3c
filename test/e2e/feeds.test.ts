import { type App, buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { artifactIdFor } from "../../src/services/ids";
import { draft, RECORD_EXECUTION, REGISTER_OPERATION, sha256Of } from "../support/recording";
import { SseReader } from "../support/sse";
import { createTestDatabaseUrl, testProvider } from "../support/test-database";
import { wsClient, wsSubscribe } from "../support/ws-feed";

const generate = { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
const transform = { name: "transform", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "result", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] };
const idOf = (name: string) => artifactIdFor("csv", sha256Of(name));
const FEED = `subscription($filter: RunFeedFilter, $since: FeedSince) { runRecorded(filter: $filter, since: $since) { sequence execution { runId operation { name } } } }`;

/** Feeds over real sockets: graphql-ws and GraphQL over SSE on the HTTP server's port and path, fed by another client's recordings. */
describe(`feeds over real sockets (${testProvider})`, () => {
  let app: App;
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    app = await buildApp(loadConfig({ DATABASE_URL: database.url, PORT: "0", LOG_LEVEL: "silent", WS_KEEPALIVE_MS: "200" }));
    url = await app.start();
    await post(REGISTER_OPERATION, { input: generate });
    await post(REGISTER_OPERATION, { input: transform });
  });
  afterAll(async () => {
    await app.stop();
    await drop();
  });

  /** The recording client: plain HTTP, a connection of its own. */
  async function post(query: string, variables: Record<string, unknown>) {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: any; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }
  const record = async (input: Record<string, unknown>) => (await post(RECORD_EXECUTION, { input })).recordExecution;
  const gen = async (name: string) => (await record({ operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(name)] }] })).execution.runId as string;
  const tx = async (input: string, output: string) =>
    record({ operation: "transform", operationVersion: "1", inputs: [{ role: "data", artifactIds: [idOf(input)] }], outputs: [{ role: "result", artifacts: [draft(output)] }] });
  async function sse(query: string, variables: Record<string, unknown>) {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify({ query, variables }) });
    expect([response.status, response.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    return new SseReader(response.body!).ready();
  }
  const live = () => app.services.feeds.stats().live;
  async function waitForLive(n: number) {
    for (let i = 0; i < 200 && live() !== n; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(live()).toBe(n);
  }

  test("a graphql-ws client and an SSE client with a filter receive exactly the matching runs, in commit order; a rejected mutation produces no event", async () => {
    const client = wsClient(url);
    const ws = wsSubscribe(client, FEED, { filter: { operation: "transform" } });
    const stream = await sse(FEED, { filter: { operation: "transform" } });
    await waitForLive(2);

    await gen("e_a.csv");
    const matching: string[] = [];
    matching.push((await tx("e_a.csv", "e_a_1.csv")).execution.runId);
    const rejected = await tx("e_a.csv", "unrelated.csv");
    expect(rejected.__typename).toBe("LineageCompletenessError");
    await gen("e_b.csv");
    matching.push((await tx("e_b.csv", "e_b_1.csv")).execution.runId);
    matching.push((await tx("e_a_1.csv", "e_a_1_2.csv")).execution.runId);

    const overWs = (await ws.until(3)).map((result) => result.data.runRecorded);
    const overSse = (await stream.take(3)).map((message) => message.data.data.runRecorded);
    expect(overWs.map((event) => event.execution)).toEqual(matching.map((runId) => ({ runId, operation: { name: "transform" } })));
    expect(overSse).toEqual(overWs);
    const sequences = overWs.map((event) => event.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    // Nothing else: not the generate runs, not the rejected one.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ws.results).toHaveLength(3);
    expect(await stream.idle(100)).toEqual([]);
    // Every run the server recorded in between has its sequence: 2 generate + 3 transform, none for the rejection.
    expect(sequences[2] - sequences[0]).toBe(3);

    ws.stop();
    await stream.cancel();
    await client.dispose();
    await waitForLive(0);
  });

  test("a subscriber that reconnects with since gets the runs it missed exactly once, then the live feed (graphql-ws and SSE)", async () => {
    let client = wsClient(url);
    let ws = wsSubscribe(client, FEED, {});
    await waitForLive(1);
    const seen = await gen("r_1.csv");
    const [first] = await ws.until(1);
    expect(first.data.runRecorded.execution.runId).toBe(seen);
    await client.dispose();
    await waitForLive(0);

    const missed = [await gen("r_2.csv"), await gen("r_3.csv")];
    client = wsClient(url);
    ws = wsSubscribe(client, FEED, { since: { sequence: first.data.runRecorded.sequence } });
    const stream = await sse(FEED, { since: { sequence: first.data.runRecorded.sequence } });
    const after = await gen("r_4.csv");
    const expected = [...missed, after];
    expect((await ws.until(3)).map((result) => result.data.runRecorded.execution.runId)).toEqual(expected);
    expect((await stream.take(3)).map((message) => message.data.data.runRecorded.execution.runId)).toEqual(expected);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ws.results).toHaveLength(3);
    expect(await stream.idle(100)).toEqual([]);
    const sequences = ws.results.map((result) => result.data.runRecorded.sequence);
    expect(sequences).toEqual([first.data.runRecorded.sequence + 1, first.data.runRecorded.sequence + 2, first.data.runRecorded.sequence + 3]);
    ws.stop();
    await stream.cancel();
    await client.dispose();
  });

  test("keep-alive on both transports: graphql-ws pings (WS_KEEPALIVE_MS), SSE comment lines", async () => {
    let pings = 0;
    const client = wsClient(url, { onPing: () => (pings += 1) });
    const ws = wsSubscribe(client, FEED, {});
    const stream = await sse(FEED, {});
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(pings).toBeGreaterThanOrEqual(3);
    // Yoga pings SSE every 12 s (every 300 ms under NODE_ENV=test, as here): ":" comment lines between events.
    expect(await stream.idle(0)).toEqual([]);
    expect(stream.raw.split(":\n\n").length - 1).toBeGreaterThanOrEqual(3);
    ws.stop();
    await stream.cancel();
    await client.dispose();
  });

  test("a refused subscription answers a coded error over graphql-ws and keeps the socket", async () => {
    const client = wsClient(url);
    const refused = wsSubscribe(client, `subscription { runStatusChanged(runId: "nope") { status } }`);
    expect(await refused.ended).toEqual({});
    expect(refused.results).toEqual([
      { errors: [{ message: "runId: 'nope' is not a valid run (run_… or an OpenLineage run UUID) id", locations: [{ line: 1, column: 16 }], path: ["runStatusChanged"], extensions: { code: "INVALID_ID", field: "runId", id: "nope", expected: "run (run_… or an OpenLineage run UUID)" } }] },
    ]);
    const next = wsSubscribe(client, FEED, {});
    await waitForLive(1);
    const runId = await gen("k_1.csv");
    expect((await next.until(1))[0].data.runRecorded.execution.runId).toBe(runId);
    next.stop();
    await client.dispose();
  });
});

describe(`feeds when the server stops (${testProvider})`, () => {
  test("every subscription ends with FEED_CLOSED over both transports, and open SSE streams do not hold the stop for the grace period", async () => {
    const database = await createTestDatabaseUrl();
    const app = await buildApp(loadConfig({ DATABASE_URL: database.url, PORT: "0", LOG_LEVEL: "silent", SHUTDOWN_GRACE_MS: "20000" }));
    const url = await app.start();
    try {
      const client = wsClient(url);
      const ws = wsSubscribe(client, FEED, {});
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify({ query: FEED }) });
      const stream = await new SseReader(response.body!).ready();
      for (let i = 0; i < 200 && app.services.feeds.stats().live < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const started = Date.now();
      await app.stop();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(ws.results).toEqual([{ data: null, errors: [expect.objectContaining({ path: ["runRecorded"], extensions: { code: "FEED_CLOSED" } })] }]);
      const [closed, complete] = await stream.take(2);
      expect(closed.data).toEqual({ data: null, errors: [expect.objectContaining({ extensions: { code: "FEED_CLOSED" } })] });
      expect(complete.event).toBe("complete");
      await client.dispose();
    } finally {
      await app.stop();
      await database.drop();
    }
  });
});

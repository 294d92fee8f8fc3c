import fs from "node:fs";
import http from "node:http";
import WebSocket from "ws";
import { RECORD_EXECUTION, REGISTER_OPERATION, draft } from "../support/recording";
import { type ServerProcess, startServer } from "../support/server-process";
import { parseSse } from "../support/sse";
import { createTestDatabaseUrl, testProvider } from "../support/test-database";
import { wsClient, wsSubscribe } from "../support/ws-feed";

const LIMIT = 50;
const RUNS = 1000;
/** Big params make each event ~64 KB: 1,000 of them are more than the server's heap may hold (--max-old-space-size below). */
const PARAMS = { blob: "x".repeat(64_000) };
const HEAP_MB = 80;
const FEED = `subscription { runRecorded { sequence execution { runId params } } }`;

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/**
 * Backpressure over real sockets, the server in a process of its own: two subscribers that stop
 * reading (one graphql-ws, one SSE) are cut off at FEED_QUEUE_LIMIT while a normal subscriber
 * receives every run, and the server's memory stays flat.
 */
describe(`a subscriber that never reads (${testProvider})`, () => {
  let server: ServerProcess;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    // --trace-gc: V8 prints the heap after each collection; the live heap after full ones is what a leak would grow.
    // A heap smaller than what the stalled subscribers are sent: a server that queued it all would die of it.
    // The server as shipped (dist/): through tsx the compiler alone keeps ~57 MB of this heap live, and
    // a busy machine's in-flight requests then reached the bound and killed a server that queued nothing.
    // No keep-alive pings in this test: a socket that stops reading also stops answering them, and would be closed for that.
    server = await startServer(
      { DATABASE_URL: database.url, PORT: "0", FEED_QUEUE_LIMIT: String(LIMIT), LOG_LEVEL: "info", WS_KEEPALIVE_MS: "0" },
      120_000,
      ["--trace-gc", `--max-old-space-size=${HEAP_MB}`],
      true,
    );
  });
  afterAll(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
    await drop();
  });

  /** The live heap (MB) after each full collection V8 reported, of the server's main thread. */
  function fullCollections(): number[] {
    const lines = [...server.output().matchAll(/\[(\d+):(0x[0-9a-f]+)\]\s+\d+ ms: Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(/g)];
    // The first isolate to report is the main thread's (the heavy-read worker threads start later, each with an isolate of its own).
    const main = lines[0]?.[2];
    return lines.filter((match) => match[2] === main).map((match) => Number(match[3]));
  }

  async function post(query: string, variables: Record<string, unknown>) {
    const response = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: any; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }

  /** A graphql-ws client that subscribes, then stops reading its socket (resume() reads what is left). */
  async function stalledWs(): Promise<{ messages: any[]; resume(): void; closed: Promise<void> }> {
    const socket = new WebSocket(server.url.replace(/^http/, "ws"), "graphql-transport-ws");
    const messages: any[] = [];
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(JSON.stringify({ type: "connection_init" }));
    await new Promise<void>((resolve) => socket.once("message", () => resolve()));
    socket.on("message", (data) => messages.push(JSON.parse(String(data))));
    socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: FEED } }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const tcp = (socket as unknown as { _socket: import("node:net").Socket })._socket;
    tcp.pause();
    return { messages, resume: () => tcp.resume(), closed: new Promise((resolve) => socket.once("close", () => resolve())) };
  }

  /** An SSE client that reads the stream's first bytes, then stops reading. */
  async function stalledSse(): Promise<{ text(): string; resume(): void; ended: Promise<void> }> {
    let text = "";
    let response: http.IncomingMessage | undefined;
    let ended!: Promise<void>;
    await new Promise<void>((resolve) => {
      const request = http.request(server.url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" } }, (res) => {
        response = res;
        ended = new Promise((done) => res.once("end", () => done()));
        res.once("data", (chunk) => {
          text += chunk;
          res.pause();
          res.on("data", (more) => (text += more));
          resolve();
        });
      });
      request.end(JSON.stringify({ query: FEED }));
    });
    return { text: () => text, resume: () => response!.resume(), ended };
  }

  test(`both are cut off past ${LIMIT} waiting events with FEED_OVERFLOW, the reading subscriber gets all ${RUNS} runs, memory stays flat`, async () => {
    await post(REGISTER_OPERATION, { input: { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] } });
    const client = wsClient(server.url);
    const reading = wsSubscribe(client, FEED);
    const slowWs = await stalledWs();
    const slowSse = await stalledSse();
    await new Promise((resolve) => setTimeout(resolve, 200));

    const pid = server.child.pid!;
    const collectionsBefore = fullCollections().length;
    const rss: number[] = [];
    const recorded: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const result = await post(RECORD_EXECUTION, { input: { operation: "generate", operationVersion: "1", params: PARAMS, inputs: [], outputs: [{ role: "out", artifacts: [draft(`slow_${i}.csv`)] }] } });
      recorded.push(result.recordExecution.execution.runId);
      if (i % 50 === 49) rss.push(rssMb(pid));
    }
    const received = await reading.until(RUNS, 60_000);
    expect(received.map((result) => result.data.runRecorded.execution.runId)).toEqual(recorded);
    expect(received.every((result) => result.data.runRecorded.execution.params.blob.length === PARAMS.blob.length)).toBe(true);

    // Flat: 1,000 runs × 64 KB (64 MB of events) went to each stalled subscriber; the server keeps at most
    // LIMIT of them for each. The live heap after each full collection stays level, and so does the RSS.
    const live = fullCollections().slice(collectionsBefore);
    expect(live.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...live) - Math.min(...live)).toBeLessThan(15);
    expect(Math.max(...live)).toBeLessThan(HEAP_MB);
    expect(Math.max(...rss.slice(2)) - rss[2]).toBeLessThan(40);

    // The stalled ones read again: what the sockets held, in order, then the error, then the end; nothing after.
    slowWs.resume();
    slowSse.resume();
    await slowSse.ended;
    for (let i = 0; i < 100 && !slowWs.messages.some((m) => m.type === "complete"); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const wsNext = slowWs.messages.filter((m) => m.type === "next");
    expect(slowWs.messages.map((m) => m.type)).toEqual([...wsNext.map(() => "next"), "complete"]);
    const wsEvents = wsNext.slice(0, -1).map((m) => m.payload.data.runRecorded.sequence);
    expect(wsNext[wsNext.length - 1].payload).toEqual({
      data: null,
      errors: [expect.objectContaining({ path: ["runRecorded"], extensions: { code: "FEED_OVERFLOW", limit: LIMIT } })],
    });
    const { messages: sseMessages } = parseSse(slowSse.text());
    const sseEvents = sseMessages.filter((m) => m.data?.data).map((m) => m.data.data.runRecorded.sequence);
    expect(sseMessages.slice(sseEvents.length).map((m) => [m.event, m.data?.errors?.[0]?.extensions?.code ?? null])).toEqual([
      ["next", "FEED_OVERFLOW"],
      ["complete", null],
    ]);
    const first = received[0].data.runRecorded.sequence;
    for (const events of [wsEvents, sseEvents]) {
      expect(events).toEqual(Array.from({ length: events.length }, (_, i) => first + i));
      expect(events.length).toBeGreaterThan(0);
      expect(events.length).toBeLessThan(RUNS - LIMIT);
    }

    // The server closed each exactly at the bound: the event that overflowed came LIMIT + 1 after the last one handed out.
    const overflows = server
      .output()
      .split("\n")
      .filter((line) => line.includes("fell behind its queue's bound"))
      .map((line) => JSON.parse(line));
    expect(overflows.map((line) => line.offered - line.given)).toEqual([LIMIT + 1, LIMIT + 1]);
    expect(overflows.map((line) => line.given).sort((a, b) => a - b)).toEqual([wsEvents[wsEvents.length - 1], sseEvents[sseEvents.length - 1]].sort((a, b) => a - b));

    reading.stop();
    await client.dispose();
  }, 180_000);
});

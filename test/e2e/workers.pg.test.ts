import { execFileSync } from "node:child_process";
import http from "node:http";
import type { Client } from "graphql-ws";
import { draft } from "../support/recording";
import { startServer, type ServerProcess } from "../support/server-process";
import { createTestDatabaseUrl } from "../support/test-database";
import { wsClient, wsSubscribe, type WsFeed } from "../support/ws-feed";

const FEED = `subscription { runRecorded { sequence execution { runId } } }`;
const REGISTER = `mutation($i: RegisterOperationInput!) { registerOperation(input: $i) { __typename } }`;
const RECORD = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename ... on RecordExecutionPayload { execution { runId } } } }`;

/** The process (pid) that holds the server side of each loopback connection to `port`, by the client's local port. */
function serverPids(port: number): Map<number, number> {
  const lines = execFileSync("ss", ["-tnpH", "state", "established", `( sport = :${port} )`], { encoding: "utf8" }).split("\n").filter(Boolean);
  const owners = new Map<number, number>();
  for (const line of lines) {
    const peer = /\s(\S+):(\d+)\s+users:\(\("[^"]*",pid=(\d+)/.exec(line);
    if (peer) owners.set(Number(peer[2]), Number(peer[3]));
  }
  return owners;
}

/** A keep-alive HTTP connection of its own (one socket): which worker answers it stays the same. */
function connection(url: string) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let localPort = 0;
  const post = (query: string, variables: unknown) =>
    new Promise<any>((resolve, reject) => {
      const body = JSON.stringify({ query, variables });
      const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { "content-type": "application/json" } }, (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => {
          const parsed = JSON.parse(text);
          if (parsed.errors) reject(new Error(text));
          else resolve(parsed.data);
        });
      });
      request.on("socket", (socket) => socket.once("connect", () => (localPort = socket.localPort!)));
      request.on("error", reject);
      request.end(body);
    });
  return { post, localPort: () => localPort, close: () => agent.destroy() };
}

/**
 * WORKERS=2 on PostgreSQL: two server processes on one port. Subscribers on each worker hear every
 * run, whichever worker recorded it, each run once and in order (without Redis: the primary relays
 * the feed notices). PostgreSQL only (a *.pg.test.ts file): SQLite refuses WORKERS > 1.
 */
describe("WORKERS=2: runs recorded through either worker reach the subscribers of both", () => {
  let server: ServerProcess;
  let drop: () => Promise<void>;
  const clients: Client[] = [];
  beforeAll(async () => {
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    server = await startServer({ DATABASE_URL: database.url, PORT: "0", WORKERS: "2" }, 180_000);
  }, 200_000);
  afterAll(async () => {
    for (const client of clients) await client.dispose();
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await drop();
  });

  test("two workers answer on one port; each one's subscribers get every run, recorded through either, once and in order", async () => {
    const port = Number(new URL(server.url).port);
    // The primary says "listening" once both workers' sockets listen; a worker's own log line of it
    // may reach the shared output a moment later.
    const workerPidsNow = () => new Set([...server.output().matchAll(/"pid":(\d+)[^\n]*"msg":"worker listening"/g)].map((match) => Number(match[1])));
    for (let waited = 0; workerPidsNow().size < 2 && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    const workerPids = [...workerPidsNow()];
    expect(workerPids.length).toBe(2);

    // Connections are handed to the workers in turn: open some until both hold subscribers and both hold a writer.
    const feeds: { feed: WsFeed; pid: number }[] = [];
    const known = new Set<number>();
    for (let i = 0; i < 8 && new Set(feeds.map((f) => f.pid)).size < 2; i++) {
      const client = wsClient(server.url);
      clients.push(client);
      const feed = wsSubscribe(client, FEED);
      // The new socket: the one connection to the port not seen before.
      let pid: number | undefined;
      for (let wait = 0; wait < 200 && pid === undefined; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const fresh = [...serverPids(port)].find(([localPort]) => !known.has(localPort));
        if (fresh) {
          known.add(fresh[0]);
          pid = fresh[1];
        }
      }
      feeds.push({ feed, pid: pid! });
    }
    const writers: { post: ReturnType<typeof connection>["post"]; pid: number; close(): void }[] = [];
    for (let i = 0; i < 8 && new Set(writers.map((w) => w.pid)).size < 2; i++) {
      const writer = connection(server.url);
      await writer.post(REGISTER, { i: { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] } });
      writers.push({ ...writer, pid: serverPids(port).get(writer.localPort())! });
    }
    expect(new Set(writers.map((w) => w.pid))).toEqual(new Set(workerPids));

    // Subscribed when a run reaches every subscriber.
    for (let warm = 0; feeds.some(({ feed }) => feed.results.length === 0); warm++) {
      if (warm === 100) throw new Error("the subscriptions never started");
      await writers[0].post(RECORD, { input: { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(`warm_${warm}.csv`)] }] } });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seen = feeds.map(({ feed }) => feed.results.length);
    const recorded: string[] = [];
    for (let i = 0; i < 10; i++) {
      const writer = writers[i % writers.length];
      const data = await writer.post(RECORD, { input: { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(`run_${i}.csv`)] }] } });
      recorded.push(data.recordExecution.execution.runId);
    }
    const owners = new Set(feeds.map((f) => f.pid));
    expect(owners).toEqual(new Set(workerPids));
    for (const [i, { feed }] of feeds.entries()) {
      const results = (await feed.until(seen[i] + recorded.length, 30_000)).slice(seen[i]);
      expect(results.map((result) => result.data.runRecorded.execution.runId)).toEqual(recorded);
      const sequences = results.map((result) => result.data.runRecorded.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    }
    for (const writer of writers) writer.close();
    for (const { feed } of feeds) feed.stop();
  }, 180_000);
});

import type { Client } from "graphql-ws";
import { sharedFrameEncodings } from "../../src/http/shared-frames";
import { draft, recordOk, registerOperation } from "../support/recording";
import { SseReader } from "../support/sse";
import { createTestApp, type TestApp } from "../support/test-app";
import { testProvider } from "../support/test-database";
import { wsClient, wsSubscribe, type WsFeed } from "../support/ws-feed";

const generate = { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
const FEED = `subscription($f: RunFeedFilter) { runRecorded(filter: $f) { sequence execution { runId operation { name } } } }`;

/** A run published to many subscribers of one selection is encoded once; each subscriber still gets its own, whole message. */
describe(`fan-out encodes once per distinct selection (${testProvider})`, () => {
  let t: TestApp;
  let url: string;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    url = await t.app.start();
    await registerOperation(t, generate);
  });
  afterAll(async () => {
    for (const client of clients) await client.dispose();
    await t.close();
  });

  const gen = async (name: string) => (await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(name)] }] })).runId as string;

  /** Until a run reaches no subscriber any more (a subscription ends when the server hears its client stop it). */
  const noSubscriberLeft = async () => {
    for (let i = 0; i < 50; i++) {
      const before = sharedFrameEncodings();
      await gen(`after_${i}.csv`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (sharedFrameEncodings() === before) return;
    }
    throw new Error("subscriptions still open");
  };

  test("graphql-ws: 20 subscribers of one selection and 5 of another, on 5 sockets: two encodings per run, and every subscriber gets it under its own id", async () => {
    for (let i = 0; i < 5; i++) clients.push(wsClient(url));
    const same: WsFeed[] = Array.from({ length: 20 }, (_, i) => wsSubscribe(clients[i % 5], FEED, { f: { operation: "generate" } }));
    const other: WsFeed[] = Array.from({ length: 5 }, (_, i) => wsSubscribe(clients[i], FEED.replace("sequence", "sequence committedAt"), { f: { operation: "generate" } }));
    // Subscribed once a run reaches all of them (a socket subscribes when its message arrives).
    for (let warm = 0; [...same, ...other].some((feed) => feed.results.length === 0); warm++) {
      if (warm === 50) throw new Error("the subscriptions never started");
      await gen(`warm_${warm}.csv`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seen = [...same, ...other].map((feed) => feed.results.length);
    const before = sharedFrameEncodings();
    const runId = await gen("shared.csv");
    for (const [i, feed] of [...same, ...other].entries()) {
      const results = await feed.until(seen[i] + 1);
      expect(results[seen[i]].data.runRecorded.execution).toEqual({ runId, operation: { name: "generate" } });
    }
    expect(other[0].results.at(-1).data.runRecorded.committedAt).toEqual(expect.any(String));
    expect(sharedFrameEncodings() - before).toBe(2);
    for (const feed of [...same, ...other]) feed.stop();
    await noSubscriberLeft();
  });

  test("SSE: 10 subscribers of one selection: one encoding per run, the same event to each", async () => {
    const subscribe = async () => {
      const response = await t.app.yoga.fetch("http://provgraph.test/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ query: FEED, variables: { f: { operation: "generate" } } }),
      });
      return new SseReader(response.body!).ready();
    };
    const readers = await Promise.all(Array.from({ length: 10 }, subscribe));
    const before = sharedFrameEncodings();
    const runId = await gen("sse.csv");
    for (const reader of readers) expect((await reader.take(1))[0].data.data.runRecorded.execution).toEqual({ runId, operation: { name: "generate" } });
    expect(sharedFrameEncodings() - before).toBe(1);
    for (const reader of readers) await reader.cancel();
  });
});

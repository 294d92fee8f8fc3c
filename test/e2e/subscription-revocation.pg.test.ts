import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { createTokenTestApp, sendRequest, type TokenTestApp } from "../support/auth";
import { createSecondInstance } from "../support/instances";
import { SseReader } from "../support/sse";
import type { TestApp } from "../support/test-app";

/**
 * Two instances on one PostgreSQL database: a token revoked through one ends the subscriptions it
 * holds open on the other within 5 s (each instance reads its subscriptions' tokens again every 2 s),
 * over SSE and graphql-ws alike, with UNAUTHENTICATED REVOKED as the last result.
 * PostgreSQL only (a *.pg.test.ts file): a SQLite file is served by one process.
 */
describe("a revocation on one instance ends the token's subscriptions on the other", () => {
  let a: TokenTestApp;
  let b: TestApp;
  const urls = new Map<TestApp, string>();
  const QUERY = "subscription { runRecorded { sequence } }";

  beforeAll(async () => {
    a = await createTokenTestApp();
    b = await createSecondInstance(a);
    urls.set(a, await a.app.start());
    urls.set(b, await b.app.start());
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  /** A subscriber's last result and how its stream ended, once it has ended (in an object: an awaited promise would wait for it). */
  type Ending = { ended: Promise<{ last: unknown; how: string }> };

  async function overSse(on: TestApp, token: string): Promise<Ending> {
    const response = await on.app.yoga.fetch("http://provgraph.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: QUERY }),
    });
    const reader = await new SseReader(response.body!).ready();
    const ended = (async () => {
      const [last, complete] = await reader.take(2, 10_000);
      return { last: last.data, how: complete.event };
    })();
    return { ended };
  }

  async function overWs(on: TestApp, token: string): Promise<Ending> {
    const client = createClient({ url: urls.get(on)!.replace("http", "ws"), webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0, lazy: true });
    let last: unknown;
    const ending = new Promise<{ last: unknown; how: string }>((resolve) => {
      client.subscribe({ query: QUERY }, { next: (value) => void (last = value), error: (error) => resolve({ last, how: `error ${JSON.stringify(error)}` }), complete: () => resolve({ last, how: "complete" }) });
    });
    void ending.then(() => client.dispose());
    return { ended: ending };
  }

  const instances = () => ({ A: a as TestApp, B: b });
  test.each([
    ["SSE", "B", "A", overSse],
    ["SSE", "A", "B", overSse],
    ["graphql-ws", "A", "B", overWs],
    ["graphql-ws", "B", "A", overWs],
  ] as const)("over %s on instance %s, revoked through instance %s: ended within 5 s with UNAUTHENTICATED REVOKED", async (_transport, subscribedOn, revokedOn, open) => {
    const on = instances()[subscribedOn];
    const through = instances()[revokedOn];
    const token = await a.issue(["read"], { name: `dashboard-${subscribedOn}-${_transport}` });
    const { ended: ending } = await open(on, token);
    while (on.app.auth.watch.watched === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const id = (await a.app.auth.tokens.findBySecret(token))!.id;
    const revoked = await sendRequest(through, { token: a.adminToken, graphql: { query: `mutation { revokeApiToken(id: "${id}") { status } }` } });
    expect(revoked.json.data).toEqual({ revokeApiToken: { status: "REVOKED" } });
    const revokedAt = Date.now();
    const ended = await ending;
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
    expect(ended).toEqual({ last: { errors: [{ message: "the API token has been revoked", extensions: { code: "UNAUTHENTICATED", reason: "REVOKED" } }] }, how: "complete" });
    expect(on.app.auth.watch.watched).toBe(0);
  });
});

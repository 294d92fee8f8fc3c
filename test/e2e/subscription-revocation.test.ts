import { createClient } from "graphql-ws";
import v8 from "node:v8";
import vm from "node:vm";
import WebSocket from "ws";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { draft, recordOk, registerOperation } from "../support/recording";
import { SseReader } from "../support/sse";

/**
 * A live subscription ends with its token: revoked through this server, revoked elsewhere (the
 * CLI, another instance: the token row changes under it), or expired — its last message is
 * UNAUTHENTICATED with reason REVOKED or EXPIRED, within 5 s, over SSE and graphql-ws alike, and
 * nothing recorded afterwards reaches it. Others' subscriptions go on. And one socket holds at most
 * WS_MAX_SUBSCRIPTIONS operations at once.
 */
describe("subscriptions end when their token is revoked or expires", () => {
  let t: TokenTestApp;
  let url: string;
  let runs = 0;
  const QUERY = "subscription { runRecorded { execution { runId } } }";

  beforeAll(async () => {
    t = await createTokenTestApp({ env: { WS_MAX_SUBSCRIPTIONS: "3" } });
    url = await t.app.start();
    await registerOperation(t, { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
  });
  afterAll(() => t.close());

  const record = async () => (await recordOk(t, { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft(`r${++runs}.csv`)] }] })).runId as string;
  const revokeElsewhere = async (token: string) => {
    // As the CLI or another instance would: the row changes, this server is not told.
    await t.app.auth.tokens.revoke((await t.app.auth.tokens.findBySecret(token))!.id);
  };
  const revokeHere = async (token: string) => {
    const id = (await t.app.auth.tokens.findBySecret(token))!.id;
    expect((await t.gql(`mutation { revokeApiToken(id: "${id}") { status } }`)).data).toEqual({ revokeApiToken: { status: "REVOKED" } });
  };

  /** A subscriber over one transport: the results it received, and when and how its stream ended. */
  interface Subscriber {
    results(): unknown[];
    ended: Promise<{ at: number; how: string }>;
    stop(): void;
  }

  async function overSse(token: string): Promise<Subscriber> {
    const response = await t.app.yoga.fetch("http://provgraph.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: QUERY }),
    });
    const reader = await new SseReader(response.body!).ready();
    const results: unknown[] = [];
    const ended = (async () => {
      try {
        for (;;) {
          const [message] = await reader.take(1, 60_000);
          if (message.event === "complete") return { at: Date.now(), how: "complete" };
          results.push(message.data);
        }
      } catch (error) {
        return { at: Date.now(), how: String(error) };
      }
    })();
    return { results: () => results, ended, stop: () => void reader.cancel() };
  }

  async function overWs(token: string): Promise<Subscriber> {
    const client = createClient({ url: url.replace("http", "ws"), webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0, lazy: true });
    const results: unknown[] = [];
    const ended = new Promise<{ at: number; how: string }>((resolve) => {
      client.subscribe({ query: QUERY }, { next: (value) => void results.push(value), error: (error) => resolve({ at: Date.now(), how: `error ${JSON.stringify(error)}` }), complete: () => resolve({ at: Date.now(), how: "complete" }) });
    });
    void ended.then(() => client.dispose());
    return { results: () => results, ended, stop: () => void client.dispose() };
  }

  /** Records runs until the subscriber has heard one (it is live then); returns the run it heard first. */
  async function heard(subscriber: Subscriber): Promise<unknown> {
    for (;;) {
      const runId = await record();
      const deadline = Date.now() + 1_000;
      while (Date.now() < deadline) {
        const first = subscriber.results()[0];
        if (first) return first;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      void runId;
    }
  }

  const UNAUTHENTICATED = (reason: string) => ({ errors: [{ message: reason === "REVOKED" ? "the API token has been revoked" : "the API token has expired", extensions: { code: "UNAUTHENTICATED", reason } }] });

  describe.each([
    ["SSE", overSse],
    ["graphql-ws", overWs],
  ])("over %s", (_transport, open) => {
    test("revoked through this server: ended at once with REVOKED, and nothing recorded afterwards reaches it; another token's subscription goes on", async () => {
      const token = await t.issue(["read"], { name: "dashboard" });
      const other = await t.issue(["read"], { name: "other" });
      const subscriber = await open(token);
      const bystander = await open(other);
      try {
        await heard(subscriber);
        await heard(bystander);
        // Both have heard everything recorded so far: what they hear next is what comes after.
        const sync = await record();
        const hears = (s: Subscriber, runId: string) => JSON.stringify(s.results()).includes(runId);
        while (!hears(subscriber, sync) || !hears(bystander, sync)) await new Promise((resolve) => setTimeout(resolve, 20));
        const [heardBefore, bystanderBefore] = [subscriber.results().length, bystander.results().length];
        const before = await record();
        while (subscriber.results().length === heardBefore || bystander.results().length === bystanderBefore) await new Promise((resolve) => setTimeout(resolve, 20));
        await revokeHere(token);
        const revokedAt = Date.now();
        const ended = await subscriber.ended;
        const after = await record();
        expect(ended.how).toBe("complete");
        expect(ended.at - revokedAt).toBeLessThan(5_000);
        expect(subscriber.results().slice(heardBefore)).toEqual([{ data: { runRecorded: { execution: { runId: before } } } }, UNAUTHENTICATED("REVOKED")]);
        // The bystander hears both runs.
        while (bystander.results().length < bystanderBefore + 2) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(bystander.results().slice(bystanderBefore)).toEqual([before, after].map((runId) => ({ data: { runRecorded: { execution: { runId } } } })));
      } finally {
        bystander.stop();
      }
    });

    test("revoked elsewhere (the CLI, another instance): ended within 5 s with REVOKED", async () => {
      const token = await t.issue(["read"], { name: "dashboard-2" });
      const subscriber = await open(token);
      const first = await heard(subscriber);
      await revokeElsewhere(token);
      const revokedAt = Date.now();
      const ended = await subscriber.ended;
      expect(ended.how).toBe("complete");
      expect(ended.at - revokedAt).toBeLessThan(5_000);
      expect(subscriber.results()).toEqual([first, UNAUTHENTICATED("REVOKED")]);
    });

    test("expired: ended within 5 s of the expiry with EXPIRED", async () => {
      const expiresAt = new Date(Date.now() + 4_000);
      const token = await t.issue(["read"], { name: "short-lived", expiresAt });
      const subscriber = await open(token);
      const first = await heard(subscriber);
      const ended = await subscriber.ended;
      expect(ended.how).toBe("complete");
      expect(ended.at - expiresAt.getTime()).toBeGreaterThanOrEqual(-50);
      expect(ended.at - expiresAt.getTime()).toBeLessThan(5_000);
      expect(subscriber.results()).toEqual([first, UNAUTHENTICATED("EXPIRED")]);
    });
  });

  test("nothing is left watched once subscriptions end", async () => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(t.app.auth.watch.watched).toBe(0);
  });

  describe("WS_MAX_SUBSCRIPTIONS (here 3) operations open at once on one socket", () => {
    test("a fourth is refused with TOO_MANY_SUBSCRIPTIONS and the limit, the socket stays open, and once one completes another is taken", async () => {
      const token = await t.issue(["read"], { name: "many" });
      const client = createClient({ url: url.replace("http", "ws"), webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0, lazy: true });
      const liveBefore = t.app.services.feeds.stats().live;
      const until = async (live: number) => {
        while (t.app.services.feeds.stats().live !== liveBefore + live) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      const subscribe = () => {
        let outcome: (value: string) => void = () => undefined;
        const ended = new Promise<string>((resolve) => (outcome = resolve));
        const stop = client.subscribe({ query: QUERY }, { next: () => undefined, error: (error) => outcome(JSON.stringify(error)), complete: () => outcome("complete") });
        return { ended, stop };
      };
      const open = [subscribe(), subscribe(), subscribe()];
      await until(3);
      const refused = subscribe();
      expect(JSON.parse(await refused.ended)).toEqual([
        {
          message: "This socket has 3 operations open (subscriptions, and queries still running); at most 3 are accepted at once. Complete one first, or open another socket.",
          extensions: { code: "TOO_MANY_SUBSCRIPTIONS", limit: 3 },
        },
      ]);
      open[0].stop();
      await until(2);
      const taken = subscribe();
      await until(3);
      const runId = await record();
      expect(runId).toMatch(/^run_/);
      for (const s of [open[1], open[2], taken]) s.stop();
      await until(0);
      await client.dispose();
    });
  });

  // Heavy: 5,000 messages, a fresh app (a fresh database on PostgreSQL); generous on a loaded machine.
  test("5,000 subscriptions asked for on one socket (the default cap, 100): 100 are taken, 4,900 refused with TOO_MANY_SUBSCRIPTIONS, the socket stays open, and the heap holds 100 subscriptions' worth", async () => {
    const app = await createTokenTestApp();
    // The heap after a full collection, before and after: what the socket's subscriptions hold on to.
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const retained = () => (gc(), gc(), process.memoryUsage().heapUsed);
    try {
      const server = await app.app.start();
      const before = retained();
      const ws = new WebSocket(server.replace("http", "ws"), "graphql-transport-ws");
      await new Promise((resolve) => ws.on("open", resolve));
      ws.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${app.adminToken}` } }));
      const counts: Record<string, number> = {};
      const codes = new Set<string>();
      await new Promise<void>((resolve) =>
        ws.on("message", (raw) => {
          const message = JSON.parse(String(raw));
          counts[message.type] = (counts[message.type] ?? 0) + 1;
          if (message.type === "connection_ack") resolve();
          if (message.type === "error") for (const error of message.payload) codes.add(error.extensions.code);
        }),
      );
      for (let i = 0; i < 5_000; i++) ws.send(JSON.stringify({ id: String(i), type: "subscribe", payload: { query: QUERY } }));
      while ((counts.error ?? 0) < 4_900 || app.app.services.feeds.stats().live < 100) await new Promise((resolve) => setTimeout(resolve, 50));
      expect([counts.error, [...codes], app.app.services.feeds.stats().live, ws.readyState]).toEqual([4_900, ["TOO_MANY_SUBSCRIPTIONS"], 100, WebSocket.OPEN]);
      // 5,000 live subscriptions on one socket held about 100 MB; 100 of them hold a few.
      expect((retained() - before) / 2 ** 20).toBeLessThan(25);
      ws.close();
    } finally {
      await app.close();
    }
  }, 180_000);
});

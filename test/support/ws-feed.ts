import { type Client, createClient } from "graphql-ws";
import WebSocket from "ws";

/** One graphql-ws subscription's results as they arrive, with the way it ended. */
export interface WsFeed {
  results: any[];
  ended: Promise<{ error?: unknown }>;
  /** Waits until `n` results have arrived. */
  until(n: number, timeoutMs?: number): Promise<any[]>;
  stop(): void;
}

/** `onPing`: each WebSocket ping frame the server sends (its keep-alive; the ws library answers the pong). */
export function wsClient(httpUrl: string, options: { onPing?: () => void } = {}): Client {
  return createClient({
    url: httpUrl.replace(/^http/, "ws"),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    // The server closing the socket (it stops, it drops a stalled client) is what some tests are about.
    onNonLazyError: () => undefined,
    on: { connected: (socket) => (socket as WebSocket).on("ping", () => options.onPing?.()) },
  });
}

export function wsSubscribe(client: Client, query: string, variables?: Record<string, unknown>): WsFeed {
  const results: any[] = [];
  const waiters: (() => void)[] = [];
  let stop = () => undefined as void;
  const ended = new Promise<{ error?: unknown }>((resolve) => {
    stop = client.subscribe(
      { query, variables },
      {
        next: (value) => {
          results.push(value);
          for (const wake of waiters.splice(0)) wake();
        },
        error: (error) => resolve({ error }),
        complete: () => resolve({}),
      },
    );
  });
  return {
    results,
    ended,
    stop: () => stop(),
    async until(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (results.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} results, got ${results.length}: ${JSON.stringify(results).slice(0, 2000)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return results.slice(0, n);
    },
  };
}

import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { Redis } from "ioredis";
import { maskUrlPassword } from "../config";
import type { Logger } from "../logger";

/** How long start-up waits for Redis before it goes on without it (reading the feed log meanwhile). */
const FIRST_ATTEMPT_MS = 2_000;

export interface RedisEventTarget {
  eventTarget: ReturnType<typeof createRedisEventTarget>;
  /** Runs `listener` each time that client is ready again after losing its connection (or after starting without one). */
  onReconnect(client: "publish" | "subscribe", listener: () => void): () => void;
  /** Since when a connection has been down (null: both are up): notices neither go out nor come in meanwhile. */
  downSince(): Date | null;
  close(): Promise<void>;
}

/**
 * Two ioredis connections (a subscribed connection can do nothing else) behind Yoga's Redis event
 * target. They reconnect by themselves, for as long as it takes: Redis unreachable at start-up or
 * later is an outage to wait out, not a reason to stop (docs/operating/outages.md). A publish that
 * fails meanwhile is logged, never thrown at the commit that announced it (the next notice, or the
 * reconnect, covers it); the subscription waits in the subscribing client's queue until it is back.
 */
export async function connectRedisEventTarget(url: string, logger: Logger): Promise<RedisEventTarget> {
  const where = maskUrlPassword(url);
  const common = { lazyConnect: true, connectionName: "provgraph-feeds" };
  const clients = {
    // A notice that cannot go out now is stale by the time Redis is back: fail it at once (the reconnect re-announces).
    publish: new Redis(url, { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 0 }),
    // SUBSCRIBE waits for the connection, however long (ioredis subscribes again after each reconnect).
    subscribe: new Redis(url, { ...common, maxRetriesPerRequest: null }),
  };
  const reconnectListeners = { publish: new Set<() => void>(), subscribe: new Set<() => void>() };
  const down = { publish: new Date() as Date | null, subscribe: new Date() as Date | null };
  // A client whose first attempt failed: reaching Redis later is a reconnection (what was published meanwhile was not heard).
  const lateStart = { publish: false, subscribe: false };
  // One warning per outage for notices that could not be published, not one per commit.
  let publishFailing = false;
  for (const [role, client] of Object.entries(clients) as ["publish" | "subscribe", Redis][]) {
    let connected = false;
    let reported = false;
    client.on("error", (error: Error) => {
      // ioredis retries with back-off and emits an error per attempt: one line per outage.
      if (reported) return;
      reported = true;
      logger.warn({ redis: where, client: role, err: error.message }, connected ? "feeds: lost the Redis connection; reading the feed log until it is back" : "feeds: cannot reach Redis; reading the feed log until it can");
    });
    client.on("close", () => (down[role] ??= new Date()));
    client.on("ready", () => {
      reported = false;
      down[role] = null;
      if (role === "publish") publishFailing = false;
      if (connected || lateStart[role]) logger.info({ redis: where, client: role }, "feeds: Redis connection is back; notices are pushed again");
      // After an outage, or a start without Redis: what was published meanwhile was not heard.
      if (connected || lateStart[role]) for (const listener of reconnectListeners[role]) listener();
      connected = true;
    });
  }
  // The first attempt, for at most FIRST_ATTEMPT_MS: one that fails is reported by the error handler, and ioredis goes on trying.
  const attempts = (Object.entries(clients) as ["publish" | "subscribe", Redis][]).map(([role, client]) =>
    client.connect().catch(() => {
      lateStart[role] = true;
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(attempts), new Promise((resolve) => (timer = setTimeout(resolve, FIRST_ATTEMPT_MS)))]);
  clearTimeout(timer);
  for (const role of ["publish", "subscribe"] as const) if (down[role] !== null) lateStart[role] = true;
  const publishClient = new Proxy(clients.publish, {
    get(target, prop) {
      if (prop === "publish") {
        return (channel: string, message: string) =>
          target.publish(channel, message).catch((error: Error) => {
            if (publishFailing) return;
            publishFailing = true;
            logger.warn({ redis: where, err: error.message }, "feeds: notices cannot be published to Redis; the other instances read the feed log until it is back");
          });
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  // Yoga's event target does not wait for (UN)SUBSCRIBE: one that fails (the connection closed while it was queued) must not go unhandled.
  const subscribeClient = new Proxy(clients.subscribe, {
    get(target, prop) {
      if (prop === "subscribe" || prop === "unsubscribe") {
        return (channel: string) =>
          target[prop](channel).catch((error: Error) => logger.warn({ redis: where, err: error.message }, `feeds: Redis ${String(prop).toUpperCase()} failed`));
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  logger.info({ redis: where }, "feeds: instances share feed notices through Redis");
  return {
    eventTarget: createRedisEventTarget({ publishClient, subscribeClient }),
    onReconnect: (client, listener) => {
      reconnectListeners[client].add(listener);
      return () => reconnectListeners[client].delete(listener);
    },
    downSince: () => {
      const times = [down.publish, down.subscribe].filter((t): t is Date => t !== null);
      return times.length === 0 ? null : new Date(Math.min(...times.map((t) => t.getTime())));
    },
    close: async () => {
      // QUIT on a connection that is down would wait for it: drop that one instead.
      await Promise.allSettled(Object.values(clients).map((client) => (client.status === "ready" ? client.quit() : Promise.resolve(client.disconnect()))));
    },
  };
}

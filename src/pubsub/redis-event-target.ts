import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { Redis } from "ioredis";
import { maskUrlPassword } from "../config";
import type { Logger } from "../logger";

/** REDIS_URL was given but Redis cannot be reached at start-up: one line a person can act on. */
export class RedisUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot use Redis ${maskUrlPassword(url)}: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = "RedisUnavailableError";
  }
}

export interface RedisEventTarget {
  eventTarget: ReturnType<typeof createRedisEventTarget>;
  /** Runs `listener` each time that client is ready again after losing its connection. */
  onReconnect(client: "publish" | "subscribe", listener: () => void): () => void;
  close(): Promise<void>;
}

/**
 * Two ioredis connections (a subscribed connection can do nothing else) behind Yoga's Redis event
 * target. They reconnect by themselves; a publish that fails meanwhile is logged, never thrown at
 * the commit that announced it (the next notice, or the reconnect, covers it).
 */
export async function connectRedisEventTarget(url: string, logger: Logger): Promise<RedisEventTarget> {
  const where = maskUrlPassword(url);
  const options = { lazyConnect: true, maxRetriesPerRequest: 2, connectionName: "provgraph-feeds" };
  const clients = { publish: new Redis(url, options), subscribe: new Redis(url, options) };
  const reconnectListeners = { publish: new Set<() => void>(), subscribe: new Set<() => void>() };
  // One warning per outage for notices that could not be published, not one per commit.
  let publishFailing = false;
  for (const [role, client] of Object.entries(clients) as ["publish" | "subscribe", Redis][]) {
    let connected = false;
    let reported = false;
    client.on("error", (error: Error) => {
      // ioredis retries with back-off and emits an error per attempt: one line per outage.
      if (reported) return;
      reported = true;
      logger.warn({ redis: where, client: role, err: error.message }, "feeds: lost the Redis connection; reconnecting");
    });
    client.on("ready", () => {
      reported = false;
      if (role === "publish") publishFailing = false;
      if (connected) {
        logger.info({ redis: where, client: role }, "feeds: Redis connection is back");
        for (const listener of reconnectListeners[role]) listener();
      }
      connected = true;
    });
  }
  try {
    await Promise.all([clients.publish.connect(), clients.subscribe.connect()]);
  } catch (error) {
    clients.publish.disconnect();
    clients.subscribe.disconnect();
    throw new RedisUnavailableError(url, error);
  }
  const publishClient = new Proxy(clients.publish, {
    get(target, prop) {
      if (prop === "publish") {
        return (channel: string, message: string) =>
          target.publish(channel, message).catch((error: Error) => {
            if (publishFailing) return;
            publishFailing = true;
            logger.warn({ redis: where, err: error.message }, "feeds: notices cannot be published to Redis; the other instances catch up when it is back");
          });
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  logger.info({ redis: where }, "feeds: instances share feed notices through Redis");
  return {
    eventTarget: createRedisEventTarget({ publishClient, subscribeClient: clients.subscribe }),
    onReconnect: (client, listener) => {
      reconnectListeners[client].add(listener);
      return () => reconnectListeners[client].delete(listener);
    },
    close: async () => {
      await Promise.allSettled([clients.publish.quit(), clients.subscribe.quit()]);
    },
  };
}

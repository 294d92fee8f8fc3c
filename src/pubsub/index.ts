import { createPubSub, type PubSub } from "graphql-yoga";
import type { Logger } from "../logger";
import { FEED_POLL_INTERVAL_MS, type FeedBroadcast, type FeedNotice } from "../services/feeds";
import type { connectRedisEventTarget as ConnectRedisEventTarget } from "./redis-event-target";
import { clusterEventTarget } from "./cluster-event-target";
import cluster from "node:cluster";

export { relayClusterNotices } from "./cluster-event-target";

/** The one channel feed notices travel on. Instances of one deployment share it (and their database). */
export const FEED_CHANNEL = "provgraph:feed";

type FeedTopics = { [FEED_CHANNEL]: [FeedNotice] };

/**
 * The feeds' broadcast (services/feeds FeedBroadcast) over Yoga's pub/sub: in-process by default,
 * or over Redis with REDIS_URL (@graphql-yoga/redis-event-target on ioredis), so every instance
 * behind a load balancer hears that the feed log grew and reads the new entries from it.
 */
export async function createFeedBroadcast(redisUrl: string | null, logger: Logger): Promise<FeedBroadcast> {
  if (redisUrl === null) {
    // Workers of one server (WORKERS=N) without Redis hear one another through the cluster's primary.
    if (cluster.isWorker) return broadcastOver(createPubSub<FeedTopics>({ eventTarget: clusterEventTarget() as never }), async () => undefined);
    return broadcastOver(createPubSub<FeedTopics>(), async () => undefined);
  }
  // Loaded only with REDIS_URL: a single instance never loads ioredis (start-up time).
  const { connectRedisEventTarget } = require("./redis-event-target") as { connectRedisEventTarget: typeof ConnectRedisEventTarget };
  const redis = await connectRedisEventTarget(redisUrl, logger);
  const broadcast = broadcastOver(createPubSub<FeedTopics>({ eventTarget: redis.eventTarget }), redis.close);
  let lastAnnounced = 0;
  const announce = broadcast.announce;
  broadcast.announce = (head) => {
    lastAnnounced = Math.max(lastAnnounced, head);
    announce(head);
  };
  // Notices published while the connection was down were lost: say again how far this instance got,
  // and have this instance's hub look at the log itself (the others' notices may be lost too).
  redis.onReconnect("publish", () => lastAnnounced > 0 && announce(lastAnnounced));
  const listen = broadcast.listen;
  // While Redis is down no notice comes: each listener is told to look at the log itself, every FEED_POLL_INTERVAL_MS.
  const polled = new Set<(notice: FeedNotice) => void>();
  const poll = setInterval(() => {
    if (redis.downSince() !== null) for (const listener of polled) listener({ resync: true });
  }, FEED_POLL_INTERVAL_MS);
  poll.unref();
  broadcast.listen = (listener) => {
    const stop = listen(listener);
    polled.add(listener);
    const stopResync = redis.onReconnect("subscribe", () => listener({ resync: true }));
    return () => {
      stop();
      polled.delete(listener);
      stopResync();
    };
  };
  broadcast.status = () => {
    const since = redis.downSince();
    return since === null ? { via: "redis", mode: "push" } : { via: "redis", mode: "polling", since };
  };
  const close = broadcast.close;
  broadcast.close = async () => {
    clearInterval(poll);
    await close();
  };
  return broadcast;
}

function broadcastOver(pubsub: PubSub<FeedTopics>, close: () => Promise<void>): FeedBroadcast {
  const listening = new Set<AsyncIterator<FeedNotice>>();
  return {
    announce: (head) => pubsub.publish(FEED_CHANNEL, { head }),
    listen: (listener) => {
      const notices = pubsub.subscribe(FEED_CHANNEL)[Symbol.asyncIterator]();
      listening.add(notices);
      void (async () => {
        for (let next = await notices.next(); !next.done; next = await notices.next()) listener(next.value);
      })();
      return () => {
        listening.delete(notices);
        void notices.return?.();
      };
    },
    status: () => ({ via: "none", mode: "push" }),
    close: async () => {
      for (const notices of listening) await notices.return?.();
      listening.clear();
      await close();
    },
  };
}

/**
 * How instances sharing one database tell each other that the feed log grew. Only the newest
 * sequence travels (the entries themselves are read from the log), so a lost or repeated notice
 * costs a read, never an event. Implementations: in-process, or Redis pub/sub (src/pubsub).
 */
export interface FeedBroadcast {
  /** The feed log holds this instance's entries up to `head`. */
  announce(head: number): void;
  /**
   * Hears announcements (this instance's own included). `resync` means some may have been lost
   * (the connection to the broker came back): the listener reads the log's newest sequence itself.
   */
  listen(listener: (notice: FeedNotice) => void): () => void;
  /** How notices travel now (shown by /readyz). */
  status(): FeedSharingStatus;
  close(): Promise<void>;
}

/**
 * How an instance hears of the others' commits: `via` the broker ("none": one instance), in `mode`
 * "push" (notices arrive) or "polling" (the broker cannot be reached since `since`: the instance
 * reads the feed log's head itself every FEED_POLL_INTERVAL_MS, so its subscribers stay at most
 * about that far behind; docs/operating/outages.md).
 */
export interface FeedSharingStatus {
  via: "none" | "redis";
  mode: "push" | "polling";
  since?: Date;
}

/** While the broker is unreachable: how often each instance reads the feed log's head. */
export const FEED_POLL_INTERVAL_MS = 500;

export type FeedNotice = { head: number } | { resync: true };

/** One instance alone: nobody to tell. */
export const singleInstanceBroadcast: FeedBroadcast = {
  announce: () => undefined,
  listen: () => () => undefined,
  status: () => ({ via: "none", mode: "push" }),
  close: async () => undefined,
};

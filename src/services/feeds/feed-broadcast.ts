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
  close(): Promise<void>;
}

export type FeedNotice = { head: number } | { resync: true };

/** One instance alone: nobody to tell. */
export const singleInstanceBroadcast: FeedBroadcast = {
  announce: () => undefined,
  listen: () => () => undefined,
  close: async () => undefined,
};

import { DomainError } from "../errors";

/**
 * A subscriber fell more than its queue's bound behind (it reads slower than runs are recorded):
 * its queued events are dropped, it is told with this error and its subscription ends. It can
 * subscribe again with `since: { sequence: <the last one it received> }` to be replayed what it missed.
 */
export class FeedOverflowError extends DomainError {
  readonly code = "FEED_OVERFLOW";
  constructor(limit: number) {
    super(`this subscriber fell more than ${limit} events behind and was closed; subscribe again with since: { sequence: <the last sequence you received> } to be replayed what it missed`, {
      limit,
    });
  }
}

/** `since` is further back than the feed log keeps (the replay window). */
export class FeedReplayWindowError extends DomainError {
  readonly code = "FEED_REPLAY_WINDOW";
  constructor(field: string, window: number, oldest: number | null, newest: number) {
    super(
      `${field}: a resume replays at most the last ${window} sequences of the feed (now ${oldest ?? newest + 1}…${newest}); re-read what you need with a query, then subscribe without since`,
      { field, window, oldest, newest },
    );
  }
}

/** `since.sequence` is newer than anything the feed log has logged (a sequence from another database?). */
export class FeedPositionUnknownError extends DomainError {
  readonly code = "FEED_POSITION_UNKNOWN";
  constructor(field: string, sequence: number, newest: number) {
    super(`${field}: sequence ${sequence} has not been logged (the newest is ${newest})`, { field, sequence, newest });
  }
}

/** The server is shutting down: the subscription ends; resume (on another instance) with `since`. */
export class FeedClosedError extends DomainError {
  readonly code = "FEED_CLOSED";
  constructor() {
    super("the server is shutting down; subscribe again (to another instance) with since: { sequence: <the last sequence you received> }", {});
  }
}

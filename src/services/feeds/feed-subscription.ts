import type { FeedEntry } from "./feed-entry";
import { FeedOverflowError } from "./feed-errors";
import type { FeedFacts, FeedNeeds } from "./feed-facts";
import type { FeedMatcher } from "./feed-matchers";

/** What a subscription yields: an event (the same object for every subscriber it means the same to), or the error that ends it (the last item). */
export type FeedItem<T> = { event: T } | { error: Error };

/** The side of the hub a subscription talks to (FeedHub). */
export interface FeedSource {
  /** Every entry with a sequence up to this one has been offered to the live subscribers. */
  readonly delivered: number;
  attach(subscriber: FeedSubscriber): void;
  detach(subscriber: FeedSubscriber): void;
  /** Entries after `position`, up to `upTo`, with the facts `needs` asks for (a replay page). */
  replayPage(position: number, upTo: number, needs: FeedNeeds): Promise<{ entries: FeedEntry[]; facts: FeedFacts; complete: boolean }>;
}

/** A live subscriber as the hub sees it. */
export interface FeedSubscriber {
  /** The last sequence this subscriber has been offered (or started after). */
  readonly position: number;
  readonly needs: FeedNeeds;
  offer(entry: FeedEntry, facts: FeedFacts): void;
  /** Ends the subscription with an error (the hub could not evaluate what it needs, the server stops). */
  fail(error: Error): void;
}

/**
 * One subscriber's stream: first the replay (entries after `start` read from the feed log, a page
 * at a time as the consumer reads, nothing held for it meanwhile), then, once it has caught up
 * with the hub, live entries. Live events wait in a queue of at most `queueLimit`; one more and
 * the subscriber is too slow: the queue is dropped and the stream ends with FeedOverflowError.
 * Transports read it only as fast as their socket drains (graphql-ws awaits each send, Yoga's SSE
 * stream waits for `drain`), so the queue is the only thing a slow reader can fill.
 */
export class FeedSubscription<T> implements FeedSubscriber, AsyncIterableIterator<FeedItem<T>> {
  private state: "replaying" | "live" | "ending" | "done";
  private current: number;
  private readonly queue: { sequence: number; item: { event: T } }[] = [];
  private replayed: { sequence: number; item: { event: T } }[] = [];
  /** The sequence of the last event handed to the consumer. */
  private given: number;
  private ending: Error | undefined;
  private waiter: ((result: IteratorResult<FeedItem<T>>) => void) | undefined;
  private settle: () => void = () => undefined;
  /** Resolves once the consumer is done with the subscription: it read past the end (its last result is sent), or returned it. */
  readonly settled: Promise<void> = new Promise((resolve) => (this.settle = resolve));

  /**
   * `start`: the last sequence the subscriber has seen; `replayUntil`: the log's newest sequence when it
   * subscribed (a replay reads at least that far, even when this instance's hub is behind).
   */
  constructor(
    private readonly source: FeedSource,
    private readonly matcher: FeedMatcher<T>,
    private readonly queueLimit: number,
    start: number,
    private readonly replayUntil: number,
    private readonly hooks: { onLive?: () => void; onEnd?: (reason: "overflow" | "error" | "closed", at: { given: number; offered: number; error?: Error }) => void } = {},
  ) {
    this.current = start;
    this.given = start;
    this.state = "replaying";
  }

  get position(): number {
    return this.current;
  }

  get needs(): FeedNeeds {
    return this.matcher.needs;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<FeedItem<T>>> {
    if (this.state === "replaying") {
      try {
        const replayed = await this.replayNext();
        if (replayed !== undefined) return this.give(replayed);
      } catch (error) {
        this.end(error as Error, "error");
      }
    }
    const queued = this.queue.shift();
    if (queued !== undefined) return this.give(queued);
    if (this.state === "ending") return this.finish();
    if (this.state === "done") {
      this.settle();
      return { value: undefined, done: true };
    }
    return new Promise((resolve) => (this.waiter = resolve));
  }

  async return(): Promise<IteratorResult<FeedItem<T>>> {
    if (this.state !== "done") {
      const wasLive = this.state === "live";
      this.state = "done";
      this.queue.length = 0;
      this.replayed = [];
      if (wasLive) this.source.detach(this);
      this.hooks.onEnd?.("closed", { given: this.given, offered: this.current });
    }
    this.wake({ value: undefined, done: true });
    this.settle();
    return { value: undefined, done: true };
  }

  offer(entry: FeedEntry, facts: FeedFacts): void {
    if (this.state !== "live" || entry.sequence <= this.current) return;
    this.current = entry.sequence;
    const item = this.matcher.match(entry, facts);
    if (item === undefined) return;
    if (this.waiter) {
      this.given = entry.sequence;
      return this.wake({ value: item, done: false });
    }
    if (this.queue.length >= this.queueLimit) return this.end(new FeedOverflowError(this.queueLimit), "overflow");
    this.queue.push({ sequence: entry.sequence, item });
  }

  fail(error: Error): void {
    this.end(error, "error");
  }

  /** The next replayed event, or undefined once caught up (the subscription is then live). */
  private async replayNext(): Promise<{ sequence: number; item: { event: T } } | undefined> {
    for (;;) {
      const next = this.replayed.shift();
      if (next !== undefined) return next;
      if (this.state !== "replaying") return undefined;
      const upTo = Math.max(this.source.delivered, this.replayUntil);
      if (this.current >= upTo) {
        // Caught up: from here on the hub offers every entry after `current`, in order.
        this.state = "live";
        this.source.attach(this);
        this.hooks.onLive?.();
        return undefined;
      }
      const page = await this.source.replayPage(this.current, upTo, this.matcher.needs);
      if (this.state !== "replaying") return undefined;
      for (const entry of page.entries) {
        const item = this.matcher.match(entry, page.facts);
        if (item !== undefined) this.replayed.push({ sequence: entry.sequence, item });
      }
      this.current = page.complete ? upTo : page.entries[page.entries.length - 1].sequence;
    }
  }

  private end(error: Error, reason: "overflow" | "error"): void {
    if (this.state === "done" || this.state === "ending") return;
    if (this.state === "live") this.source.detach(this);
    this.state = "ending";
    this.ending = error;
    // What was queued is dropped: the subscriber is told now, and resumes from what it last received.
    this.queue.length = 0;
    this.replayed = [];
    this.hooks.onEnd?.(reason, { given: this.given, offered: this.current, error });
    if (this.waiter) this.wake(this.finish());
  }

  private give(queued: { sequence: number; item: { event: T } }): IteratorResult<FeedItem<T>> {
    this.given = queued.sequence;
    return { value: queued.item, done: false };
  }

  private finish(): IteratorResult<FeedItem<T>> {
    const error = this.ending ?? new Error("feed subscription ended");
    this.ending = undefined;
    this.state = "done";
    return { value: { error }, done: false };
  }

  private wake(result: IteratorResult<FeedItem<T>>): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(result);
  }
}

import type { Db } from "../../db/client";
import type { ArtifactId, RunId } from "../ids";
import type { ClosureReader, LineageDirection } from "../lineage";
import type { CommitPath } from "../recording";
import { DomainError, InvalidArgumentError } from "../errors";
import type { FeedBroadcast, FeedSharingStatus } from "./feed-broadcast";
import { singleInstanceBroadcast } from "./feed-broadcast";
import { FeedClosedError, FeedPositionUnknownError, FeedReplayWindowError } from "./feed-errors";
import { FeedFactReader } from "./feed-facts";
import { FeedHub, type FeedHubStats, type FeedLogger } from "./feed-hub";
import type { FeedLog } from "./feed-log";
import {
  type FeedMatcher,
  type LineageAdded,
  lineageAddedMatcher,
  type RunFilter,
  type RunRecorded,
  runRecordedMatcher,
  type RunStatusChange,
  runStatusMatcher,
} from "./feed-matchers";
import { type FeedItem, FeedSubscription } from "./feed-subscription";

/** Where a resuming subscriber left off: the last sequence it received, or the time of the last event it saw. */
export type FeedSince = { sequence: number } | { time: Date };

export interface FeedOptions {
  /** Events one subscriber may have waiting; one more and it is closed with FEED_OVERFLOW. */
  queueLimit: number;
  /** How many sequences back a `since` may reach; the log keeps that many and prunes older entries. */
  replayWindow: number;
  broadcast?: FeedBroadcast;
  logger?: FeedLogger;
  /** How often the log is pruned to the replay window (ms). */
  pruneIntervalMs?: number;
}

export interface FeedStats extends FeedHubStats {
  /** Subscribers still being replayed what they missed. */
  replaying: number;
  /** Subscriptions closed because they fell behind (since start). */
  overflows: number;
  /** Closures cut at MAX_CLOSURE_NODES while evaluating lineageAdded (since start). */
  closureCuts: number;
}

export const DEFAULT_FEED_OPTIONS: FeedOptions = { queueLimit: 1_000, replayWindow: 100_000 };

const silentLogger: FeedLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Live feeds of what is recorded (DESIGN "feeds"): every committed event goes to the feed log in
 * its transaction (the commit path's journal), then to this instance's subscribers, and, through
 * the broadcast, to the other instances' (which read it from the log). Subscriptions filter,
 * resume from the log, and are bounded per subscriber.
 */
export class Feeds {
  private readonly hub: FeedHub;
  private readonly logger: FeedLogger;
  private readonly broadcast: FeedBroadcast;
  private stopListening: (() => void)[] = [];
  private pruneTimer: NodeJS.Timeout | undefined;
  private readonly open = new Set<FeedSubscription<unknown>>();
  private replaying = 0;
  private overflows = 0;
  private closureCuts = 0;

  constructor(
    private readonly log: FeedLog,
    private readonly commits: CommitPath,
    db: Db,
    closures: ClosureReader,
    private readonly options: FeedOptions = DEFAULT_FEED_OPTIONS,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.broadcast = options.broadcast ?? singleInstanceBroadcast;
    const facts = new FeedFactReader(db, closures, (rootId, direction) => {
      this.closureCuts += 1;
      this.logger.warn({ rootId, direction }, "feed: lineageAdded evaluated on a closure cut at its nearest nodes");
    });
    this.hub = new FeedHub(log, facts, this.logger);
  }

  async start(): Promise<void> {
    await this.hub.start();
    this.stopListening.push(
      this.commits.onCommitted((events, receipts) => {
        if (receipts.length !== events.length) return;
        this.hub.acceptCommitted(events.map((event, i) => ({ sequence: receipts[i].sequence, committedAt: receipts[i].loggedAt, event })));
        this.broadcast.announce(receipts[receipts.length - 1].sequence);
      }),
      this.broadcast.listen((notice) => {
        if ("head" in notice) this.hub.acceptNotice(notice.head);
        else
          this.log.head().then(
            (head) => this.hub.acceptNotice(head),
            (error) => this.logger.error({ err: error }, "feed: cannot read the feed log's head after a reconnect"),
          );
      }),
    );
    this.pruneTimer = setInterval(() => void this.prune(), this.options.pruneIntervalMs ?? 60_000);
    this.pruneTimer.unref();
  }

  /**
   * Ends every subscription (FEED_CLOSED: resume elsewhere) and stops hearing commits and notices.
   * Resolves once each subscriber's transport has sent its last result, or after `drainMs` (a
   * subscriber that does not read will not take it).
   */
  async stop(drainMs = 1_000): Promise<void> {
    clearInterval(this.pruneTimer);
    for (const stop of this.stopListening) stop();
    this.stopListening = [];
    this.hub.stop();
    const open = [...this.open];
    for (const subscription of open) subscription.fail(new FeedClosedError());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(open.map((subscription) => subscription.settled)), new Promise((resolve) => (timer = setTimeout(resolve, drainMs)))]);
    clearTimeout(timer);
    await this.broadcast.close();
  }

  /** How this instance hears of the others' commits (push through the broker, or polling the log while it is down). */
  sharing(): FeedSharingStatus {
    return this.broadcast.status();
  }

  stats(): FeedStats {
    return { ...this.hub.stats(), replaying: this.replaying, overflows: this.overflows, closureCuts: this.closureCuts };
  }

  /** Every run recorded (or ingested) that matches the filter. */
  runRecorded(filter: RunFilter, since?: FeedSince | null): Promise<AsyncIterableIterator<FeedItem<RunRecorded>>> {
    return this.subscribe(runRecordedMatcher(filter), since);
  }

  /** One run's status: when it is recorded, then each change. */
  runStatusChanged(runId: RunId, since?: FeedSince | null): Promise<AsyncIterableIterator<FeedItem<RunStatusChange>>> {
    return this.subscribe(runStatusMatcher(runId), since);
  }

  /** Edges recorded inside the closure of `artifactId` in `direction` (new descendants or ancestors). */
  lineageAdded(artifactId: ArtifactId, direction: LineageDirection, since?: FeedSince | null): Promise<AsyncIterableIterator<FeedItem<LineageAdded>>> {
    return this.subscribe(lineageAddedMatcher({ artifactId, direction }), since);
  }

  /** Drops entries behind the replay window (every instance does it; it is idempotent). */
  async prune(): Promise<number> {
    try {
      const head = await this.log.head();
      if (head <= this.options.replayWindow) return 0;
      // A write like any other: through the commit path, never beside its open transaction.
      return await this.commits.run((tx) => this.log.prune(tx, head - this.options.replayWindow));
    } catch (error) {
      this.logger.error({ err: error }, "feed: cannot prune the feed log");
      return 0;
    }
  }

  private async subscribe<T>(matcher: FeedMatcher<T>, since: FeedSince | null | undefined): Promise<FeedSubscription<T>> {
    const { start, newest } = await this.startOf(since ?? null);
    if (start < newest) this.replaying += 1;
    let replayingCounted = start < newest;
    const subscription: FeedSubscription<T> = new FeedSubscription(this.hub, matcher, this.options.queueLimit, start, newest, {
      onLive: () => {
        if (replayingCounted) this.replaying -= 1;
        replayingCounted = false;
      },
      onEnd: (reason, at) => {
        this.open.delete(subscription as FeedSubscription<unknown>);
        if (reason === "overflow") {
          this.overflows += 1;
          // A client's problem, not ours: info. `given` is the last sequence it was handed, `offered` the one that overflowed.
          this.logger.info({ limit: this.options.queueLimit, given: at.given, offered: at.offered }, "feed: a subscriber fell behind its queue's bound and was closed (FEED_OVERFLOW)");
        } else if (reason === "error" && !(at.error instanceof DomainError)) {
          // Our fault (the log could not be read, say): the subscriber is told INTERNAL_SERVER_ERROR, the log gets the cause.
          this.logger.error({ err: at.error, given: at.given }, "feed: a subscription failed");
        }
        if (replayingCounted) this.replaying -= 1;
        replayingCounted = false;
      },
    });
    this.open.add(subscription as FeedSubscription<unknown>);
    return subscription;
  }

  /**
   * The sequence a subscriber starts after. Without `since`: the newest logged (only what is
   * committed from now on). With a sequence: that one, if logged and within the replay window.
   * With a time: just before the first event logged after it.
   */
  private async startOf(since: FeedSince | null): Promise<{ start: number; newest: number }> {
    const bounds = await this.log.bounds();
    const newest = bounds?.newest ?? 0;
    if (since === null) return { start: newest, newest };
    let start: number;
    if ("sequence" in since) {
      if (!Number.isSafeInteger(since.sequence) || since.sequence < 0) throw new InvalidArgumentError("since.sequence", `must be a whole number, 0 or more, got ${since.sequence}`);
      if (since.sequence > newest) throw new FeedPositionUnknownError("since.sequence", since.sequence, newest);
      start = since.sequence;
    } else {
      const first = await this.log.firstAfter(since.time);
      start = first === null ? newest : first - 1;
      // The first entry kept is the first after `time`, and older ones were pruned: some of those may have been after it too.
      if (first !== null && bounds !== null && first === bounds.oldest && first > 1) throw new FeedReplayWindowError("since.time", this.options.replayWindow, bounds.oldest, newest);
    }
    if (newest - start > this.options.replayWindow) throw new FeedReplayWindowError("since", this.options.replayWindow, bounds?.oldest ?? null, newest);
    return { start, newest };
  }
}

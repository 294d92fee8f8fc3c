import type { FeedEntry } from "./feed-entry";
import { type FeedFactReader, FeedFacts, type FeedNeeds, mergeNeeds, NO_NEEDS } from "./feed-facts";
import type { FeedLog } from "./feed-log";
import type { FeedSource, FeedSubscriber } from "./feed-subscription";
import type { LineageKey } from "./lineage-reach";

/** Entries read from the log per statement (catching up, replaying). */
export const FEED_PAGE = 500;

/**
 * Subscribers offered an entry per turn of the event loop. Each offer sets off that subscriber's
 * GraphQL execution and socket write; between slices the loop serves I/O (the next recording's
 * request among it), so a large fan-out never holds the recording path for more than a slice.
 */
export const FAN_OUT_SLICE = 32;

export interface FeedLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface FeedHubStats {
  /** Subscribers receiving live entries on this instance. */
  live: number;
  /** Every entry up to this sequence has been offered to them. */
  delivered: number;
  /** Statements that read entries this instance did not commit (or heard out of order). */
  catchUpReads: number;
  /** Entries offered to live subscribers, one per subscriber and entry (each one's filter then decides). */
  offers: number;
}

/**
 * One instance's side of the feed: puts entries in sequence order and offers each, once, to every
 * live subscriber, with the facts their filters need read once per batch.
 *
 * Entries arrive from this instance's commits (with their events, no read needed) and, for
 * sequences committed elsewhere, from the log: a notice that the log holds entries up to n (from
 * another instance, through the broadcast), or an entry of ours arriving after a later one, makes
 * the hub read the entries it has not seen. The log hands out sequences in commit order (see
 * FeedLog), so once n is committed, any sequence below n that the log does not hold never will:
 * reading up to n fills every gap, and nothing waits for a sequence that will not come.
 * The hub never moves past an entry it has not seen, so a bogus notice costs one read, nothing more.
 */
export class FeedHub implements FeedSource {
  private ordered = 0;
  private deliveredUpTo = 0;
  private offers = 0;
  private readonly held = new Map<number, FeedEntry>();
  private readonly toDeliver: FeedEntry[] = [];
  private readonly live = new Set<FeedSubscriber>();
  private pumping = false;
  private catchUpTarget = 0;
  private catchingUp = false;
  private latestNotice = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private catchUpReads = 0;

  constructor(
    private readonly log: FeedLog,
    private readonly facts: FeedFactReader,
    private readonly logger: FeedLogger,
  ) {}

  /** Starts after the newest entry logged: subscribers hear what is committed from now on. */
  async start(): Promise<void> {
    const head = await this.log.head();
    this.ordered = this.deliveredUpTo = Math.max(this.ordered, head);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  get delivered(): number {
    return this.deliveredUpTo;
  }

  stats(): FeedHubStats {
    return { live: this.live.size, delivered: this.deliveredUpTo, catchUpReads: this.catchUpReads, offers: this.offers };
  }

  /** Entries this instance just committed, with the sequences the log gave them. */
  acceptCommitted(entries: readonly FeedEntry[]): void {
    for (const entry of entries) {
      if (entry.sequence <= this.ordered) continue;
      // With no live subscriber nobody needs the entries in between: a committed sequence is a safe place to stand.
      if (entry.sequence === this.ordered + 1 || this.live.size === 0) this.acceptInOrder(entry);
      else {
        this.held.set(entry.sequence, entry);
        this.requestCatchUp(entry.sequence);
      }
    }
    this.drainHeld();
    this.pump();
  }

  /** Another instance committed entries up to `head` (or notices may have been lost: head = the log's newest). */
  acceptNotice(head: number): void {
    this.latestNotice = Math.max(this.latestNotice, head);
    if (this.live.size > 0 && head > this.ordered) this.requestCatchUp(head);
  }

  attach(subscriber: FeedSubscriber): void {
    this.live.add(subscriber);
    const position = subscriber.position;
    if (position > this.ordered) {
      if (this.live.size === 1) {
        // Nobody else is waiting for the entries up to `position` (a sequence the log has reached).
        this.ordered = Math.max(this.ordered, position);
        this.deliveredUpTo = Math.max(this.deliveredUpTo, position);
        for (const sequence of this.held.keys()) if (sequence <= position) this.held.delete(sequence);
        this.drainHeld();
      } else this.requestCatchUp(position);
    }
    if (this.latestNotice > this.ordered) this.requestCatchUp(this.latestNotice);
  }

  detach(subscriber: FeedSubscriber): void {
    this.live.delete(subscriber);
  }

  async replayPage(position: number, upTo: number, needs: FeedNeeds): Promise<{ entries: FeedEntry[]; facts: FeedFacts; complete: boolean }> {
    const entries = await this.log.read(position, upTo, FEED_PAGE);
    const facts = await this.facts.prepare(entries, needs);
    return { entries, facts, complete: entries.length < FEED_PAGE };
  }

  private acceptInOrder(entry: FeedEntry): void {
    this.ordered = entry.sequence;
    this.held.delete(entry.sequence);
    this.toDeliver.push(entry);
  }

  private drainHeld(): void {
    for (const sequence of this.held.keys()) if (sequence <= this.ordered) this.held.delete(sequence);
    for (let next = this.held.get(this.ordered + 1); next; next = this.held.get(this.ordered + 1)) this.acceptInOrder(next);
  }

  private requestCatchUp(target: number): void {
    this.catchUpTarget = Math.max(this.catchUpTarget, target);
    if (!this.catchingUp) void this.catchUp();
  }

  private async catchUp(): Promise<void> {
    this.catchingUp = true;
    try {
      while (!this.stopped && this.catchUpTarget > this.ordered) {
        const upTo = this.catchUpTarget;
        const entries = await this.log.read(this.ordered, upTo, FEED_PAGE);
        this.catchUpReads += 1;
        // Our own entries we hold are the same as the log's rows; keep the ones in memory.
        for (const entry of entries) if (entry.sequence > this.ordered) this.acceptInOrder(this.held.get(entry.sequence) ?? entry);
        // Read to the target: what it did not hold up to there is a gap (or the notice lied). Done, unless asked again meanwhile.
        if (entries.length < FEED_PAGE && this.catchUpTarget === upTo) this.catchUpTarget = this.ordered;
        this.drainHeld();
        this.pump();
      }
    } catch (error) {
      this.logger.error({ err: error }, "feed: cannot read the feed log to catch up; retrying in 1 s");
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => this.requestCatchUp(this.catchUpTarget), 1_000);
      this.retryTimer.unref();
    } finally {
      this.catchingUp = false;
    }
  }

  /** Offers the ordered entries to the live subscribers, a batch at a time, its facts read once. */
  private pump(): void {
    if (this.pumping || this.toDeliver.length === 0) return;
    this.deliverBatches().catch((error) => this.logger.error({ err: error }, "feed: delivery failed"));
  }

  private async deliverBatches(): Promise<void> {
    this.pumping = true;
    try {
      while (this.toDeliver.length > 0) {
        const batch = this.toDeliver.splice(0);
        // Filters that need nothing beyond the events (the common case) are served in the same tick.
        let facts = isEmpty(this.liveNeeds()) ? NO_FACTS : await this.factsFor(batch);
        for (const entry of batch) {
          // The live set is iterated as it changes: a subscriber that attaches during a slow fan-out
          // (its position below this entry) is offered the entry too; one that leaves is skipped.
          let offered = 0;
          for (const subscriber of this.live) {
            // It attached after the facts were read, and needs some they lack: read them again, for all.
            if (!facts.covers(subscriber.needs)) facts = await this.factsFor(batch);
            try {
              this.offers += 1;
              subscriber.offer(entry, facts);
            } catch (error) {
              this.logger.error({ err: error, sequence: entry.sequence }, "feed: a subscriber failed on an entry");
              subscriber.fail(error as Error);
            }
            if (++offered % FAN_OUT_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
          }
          this.deliveredUpTo = Math.max(this.deliveredUpTo, entry.sequence);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** The facts the batch's subscribers need, including any that subscribed while they were read. */
  private async factsFor(batch: readonly FeedEntry[]): Promise<FeedFacts> {
    let needs = this.liveNeeds();
    let facts: FeedFacts | undefined;
    for (;;) {
      try {
        facts = await this.facts.prepare(batch, needs);
      } catch (error) {
        // Subscribers that need facts cannot be told what matched: end them (they can resume); the others go on.
        this.logger.error({ err: error, from: batch[0].sequence, to: batch[batch.length - 1].sequence }, "feed: cannot evaluate subscription filters");
        for (const subscriber of [...this.live]) if (!isEmpty(subscriber.needs)) subscriber.fail(error as Error);
        return NO_FACTS;
      }
      const now = this.liveNeeds();
      if (facts.covers(now)) return facts;
      needs = mergeNeeds(needs, now);
    }
  }

  /** What the live subscribers need, together (linear in subscribers: no map is copied per subscriber). */
  private liveNeeds(): FeedNeeds {
    let operationNames = false;
    let namespaces = false;
    let lineage: Map<string, LineageKey> | undefined;
    for (const { needs } of this.live) {
      operationNames ||= needs.operationNames;
      namespaces ||= needs.namespaces;
      for (const [key, value] of needs.lineage) (lineage ??= new Map()).set(key, value);
    }
    return operationNames || namespaces || lineage ? { operationNames, namespaces, lineage: lineage ?? NO_NEEDS.lineage } : NO_NEEDS;
  }
}

const NO_FACTS = new FeedFacts(NO_NEEDS, new Map(), new Map(), new Map());

function isEmpty(needs: FeedNeeds): boolean {
  return !needs.operationNames && !needs.namespaces && needs.lineage.size === 0;
}

import type { Logger } from "../logger";
import type { Principal } from "./principal";
import type { TokenId } from "./token-secret";
import { statusOf, type TokenStore } from "./token-store";

/** Why a watched use of a token ended. */
export type TokenLeaseEnd = "REVOKED" | "EXPIRED";

interface Lease {
  end(reason: TokenLeaseEnd): void;
}

/** The longest a timer may be set for (about 24.8 days); a later expiry re-arms it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Long-lived uses of tokens (subscriptions) and the moment each must end: when its token expires
 * (a timer at its expiry) or is revoked — through this server (at once), or by anyone else sharing
 * the database: the CLI, another instance (the watched tokens are read again every `pollMs`, 2 s by
 * default, while any is watched; nothing is read while none is). A database that cannot be read
 * ends nothing: the next poll tries again.
 */
export class TokenWatch {
  private readonly leases = new Map<TokenId, Set<Lease>>();
  private readonly expiries = new Map<TokenId, NodeJS.Timeout>();
  private poller: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;
  /** Whether the last read failed: an outage is logged once, at its start, not every poll. */
  private failing = false;

  constructor(
    private readonly store: TokenStore,
    private readonly options: { pollMs: number; now: () => number; logger: Logger },
  ) {}

  /** Watches one use of `principal`'s token: `end` is called once, when the token is revoked or expires. Returns its release. */
  watch(principal: Principal, end: (reason: TokenLeaseEnd) => void): () => void {
    if (principal.kind !== "token" || this.stopped) return () => undefined;
    const id = principal.tokenId;
    const lease: Lease = { end };
    let leases = this.leases.get(id);
    if (!leases) this.leases.set(id, (leases = new Set()));
    leases.add(lease);
    if (principal.expiresAt && !this.expiries.has(id)) this.armExpiry(id, principal.expiresAt.getTime());
    this.poller ??= setInterval(() => void this.poll(), this.options.pollMs).unref();
    return () => {
      const current = this.leases.get(id);
      if (!current?.delete(lease) || current.size > 0) return;
      this.forget(id);
    };
  }

  /** The token was revoked through this server: its uses end now. */
  revoked(id: TokenId): void {
    this.endAll(id, "REVOKED");
  }

  /** Watched uses, by token: what the stats and the tests read. */
  get watched(): number {
    let count = 0;
    for (const leases of this.leases.values()) count += leases.size;
    return count;
  }

  /** Stops the timers; what is still watched is left to end with the server. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poller);
    this.poller = undefined;
    for (const timer of this.expiries.values()) clearTimeout(timer);
    this.expiries.clear();
    await this.polling;
  }

  /** Reads the watched tokens again: revoked or expired ones end their uses. */
  poll(): Promise<void> {
    this.polling ??= this.readAgain().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async readAgain(): Promise<void> {
    const ids = [...this.leases.keys()];
    if (ids.length === 0) return;
    try {
      const now = this.options.now();
      const tokens = await this.store.byIds(ids);
      if (this.failing) this.options.logger.info({ tokens: ids.length }, "the tokens of live subscriptions are read again");
      this.failing = false;
      for (const token of tokens) {
        const status = statusOf(token, now);
        if (status !== "ACTIVE") this.endAll(token.id, status);
      }
    } catch (error) {
      if (!this.failing) this.options.logger.warn({ err: error, tokens: ids.length }, "could not read the tokens of live subscriptions again; trying again at every poll");
      this.failing = true;
    }
  }

  private armExpiry(id: TokenId, at: number): void {
    const delay = at - this.options.now();
    if (delay <= 0) {
      queueMicrotask(() => this.endAll(id, "EXPIRED"));
      return;
    }
    const timer = setTimeout(() => (delay > MAX_TIMER_MS ? this.armExpiry(id, at) : this.endAll(id, "EXPIRED")), Math.min(delay, MAX_TIMER_MS));
    timer.unref();
    this.expiries.set(id, timer);
  }

  private endAll(id: TokenId, reason: TokenLeaseEnd): void {
    const leases = this.leases.get(id);
    this.forget(id);
    for (const lease of leases ?? []) lease.end(reason);
  }

  private forget(id: TokenId): void {
    this.leases.delete(id);
    clearTimeout(this.expiries.get(id));
    this.expiries.delete(id);
    if (this.leases.size === 0) {
      clearInterval(this.poller);
      this.poller = undefined;
    }
  }
}

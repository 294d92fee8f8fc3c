import type { Logger } from "../logger";
import { UnauthenticatedError } from "./errors";
import { OPEN_MODE, type Principal } from "./principal";
import { hashTokenSecret, isWellFormedTokenSecret, type TokenId } from "./token-secret";
import { type ApiTokenRecord, statusOf, type TokenStore } from "./token-store";

export interface AuthenticatorOptions {
  /** Bound to a loopback address: the only place open mode is allowed. */
  loopback: boolean;
  logger: Logger;
  now?: () => number;
  /** How long a looked-up token is trusted before it is read again (revocations from other processes). */
  tokenCacheMs?: number;
  /** While in open mode, how often to look for a token created by another process (the CLI). */
  openModeProbeMs?: number;
  /** lastUsedAt is written at most this often per token (and process). */
  lastUsedIntervalMs?: number;
}

interface CachedToken {
  token: ApiTokenRecord;
  readAt: number;
}

/**
 * Turns credentials (an Authorization header, graphql-ws connectionParams.authorization) into the
 * principal a request acts as, or an UnauthenticatedError. The one place tokens are checked:
 * HTTP, SSE, graphql-ws and plain HTTP routes all come through here.
 *
 * Costs per request: one SHA-256 and a map lookup. A token is read from the database when first
 * seen and again after `tokenCacheMs` (2 s), so a revocation made elsewhere (the CLI, another
 * instance) is honoured within that time; one made through this server at once. lastUsedAt is
 * written in the background, at most once a minute per token.
 */
export class Authenticator {
  private readonly now: () => number;
  private readonly tokenCacheMs: number;
  private readonly openModeProbeMs: number;
  private readonly lastUsedIntervalMs: number;
  private readonly cache = new Map<string, CachedToken>();
  private readonly reading = new Map<string, Promise<ApiTokenRecord | null>>();
  private readonly touching = new Set<Promise<void>>();
  /** Monotonic: once a token row exists, open mode is over for good (revoking every token does not reopen it). */
  private tokensExist = false;
  private probedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: TokenStore,
    private readonly options: AuthenticatorOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.tokenCacheMs = options.tokenCacheMs ?? 2_000;
    this.openModeProbeMs = options.openModeProbeMs ?? 1_000;
    this.lastUsedIntervalMs = options.lastUsedIntervalMs ?? 60_000;
  }

  /** Whether requests without a token act as admin: bound to loopback and no token has ever existed. */
  async isOpen(): Promise<boolean> {
    if (!this.options.loopback || this.tokensExist) return false;
    const now = this.now();
    if (now - this.probedAt >= this.openModeProbeMs) {
      this.probedAt = now;
      if (await this.store.anyExists()) this.tokensExist = true;
    }
    return !this.tokensExist;
  }

  /** A token was created through this process: open mode ends now, not at the next probe. */
  noteTokenCreated(): void {
    this.tokensExist = true;
  }

  /** A token was revoked through this process: stop trusting the cached copy. */
  forget(tokenId: TokenId): void {
    for (const [hash, cached] of this.cache) if (cached.token.id === tokenId) this.cache.delete(hash);
  }

  /**
   * `credentials`: the Authorization header ("Bearer pgt_…"), or connectionParams.authorization
   * (the same, or the bare token). Absent: open mode's principal, or MISSING once tokens are required.
   */
  async authenticate(credentials: string | null | undefined): Promise<Principal> {
    if (credentials === null || credentials === undefined || credentials.trim() === "") {
      if (await this.isOpen()) return OPEN_MODE;
      throw new UnauthenticatedError("MISSING");
    }
    const secret = tokenIn(credentials);
    if (secret === undefined) throw new UnauthenticatedError("MALFORMED");
    const token = await this.lookUp(secret);
    if (!token) throw new UnauthenticatedError("UNKNOWN");
    const now = this.now();
    const status = statusOf(token, now);
    if (status === "REVOKED") throw new UnauthenticatedError("REVOKED");
    if (status === "EXPIRED") throw new UnauthenticatedError("EXPIRED");
    this.noteUse(token, now);
    return { kind: "token", name: token.name, tokenId: token.id, scopes: token.scopes, expiresAt: token.expiresAt };
  }

  /** Waits for background lastUsedAt writes (before the database closes). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.touching]);
  }

  private async lookUp(secret: string): Promise<ApiTokenRecord | null> {
    const hash = hashTokenSecret(secret);
    const cached = this.cache.get(hash);
    if (cached && this.now() - cached.readAt < this.tokenCacheMs) return cached.token;
    let pending = this.reading.get(hash);
    if (!pending) {
      pending = this.store.findBySecret(secret).finally(() => this.reading.delete(hash));
      this.reading.set(hash, pending);
    }
    const token = await pending;
    if (!token) {
      this.cache.delete(hash);
      return null;
    }
    this.tokensExist = true;
    // Keep the lastUsedAt this process last wrote if the row has not caught up with it yet.
    const lastUsedAt = latest(token.lastUsedAt, cached?.token.lastUsedAt ?? null);
    const fresh = { ...token, lastUsedAt };
    this.cache.set(hash, { token: fresh, readAt: this.now() });
    return fresh;
  }

  private noteUse(token: ApiTokenRecord, now: number): void {
    if (token.lastUsedAt && now - token.lastUsedAt.getTime() < this.lastUsedIntervalMs) return;
    const at = new Date(now);
    token.lastUsedAt = at;
    const write = this.store.touch(token.id, at).catch((error: unknown) => this.options.logger.warn({ err: error, tokenId: token.id }, "could not record a token's last use"));
    this.touching.add(write);
    void write.finally(() => this.touching.delete(write));
  }
}

/** The token in "Bearer <token>" (any case, any spacing) or a bare token; undefined when there is none. */
function tokenIn(credentials: string): string | undefined {
  const match = /^\s*(?:bearer\s+)?(\S+)\s*$/i.exec(credentials);
  if (!match) return undefined;
  return isWellFormedTokenSecret(match[1]) ? match[1] : undefined;
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() >= b.getTime() ? a : b;
}

import type { TokenId } from "../../src/auth";
import { TokenWatch } from "../../src/auth/token-watch";
import type { ApiTokenRecord, TokenStore } from "../../src/auth/token-store";
import type { Logger } from "../../src/logger";

/** The token watch on its own: what ends a watched use, and what does not. */
describe("TokenWatch", () => {
  const token = (id: string, changes: Partial<ApiTokenRecord> = {}): ApiTokenRecord => ({
    id: id as TokenId,
    name: id,
    scopes: ["read"],
    createdAt: new Date(0),
    createdBy: "test",
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    ...changes,
  });
  const principal = (id: string, expiresAt: Date | null = null) => ({ kind: "token" as const, name: id, tokenId: id as TokenId, scopes: ["read" as const], expiresAt });
  const warnings: unknown[] = [];
  const logger = { warn: (details: unknown) => void warnings.push(details), info: () => undefined } as unknown as Logger;

  test("a poll that cannot read the database ends nothing; the next one that reads a revocation ends the token's uses, and only its", async () => {
    let rows: ApiTokenRecord[] | Error = new Error("connection refused");
    const store = { byIds: async () => (rows instanceof Error ? Promise.reject(rows) : rows) } as unknown as TokenStore;
    const watch = new TokenWatch(store, { pollMs: 60_000, now: Date.now, logger });
    const ended: string[] = [];
    watch.watch(principal("tok_a"), (reason) => ended.push(`a ${reason}`));
    watch.watch(principal("tok_a"), (reason) => ended.push(`a2 ${reason}`));
    watch.watch(principal("tok_b"), (reason) => ended.push(`b ${reason}`));
    await watch.poll();
    await watch.poll();
    // An outage is logged once, however many polls it lasts.
    expect([ended, warnings.length, watch.watched]).toEqual([[], 1, 3]);
    rows = [token("tok_a", { revokedAt: new Date() }), token("tok_b")];
    await watch.poll();
    expect([ended, watch.watched]).toEqual([["a REVOKED", "a2 REVOKED"], 1]);
    await watch.stop();
  });

  test("a released use is not ended; an expiry ends the rest, once", async () => {
    const store = { byIds: async () => [] } as unknown as TokenStore;
    const watch = new TokenWatch(store, { pollMs: 60_000, now: Date.now, logger });
    const ended: string[] = [];
    const release = watch.watch(principal("tok_c", new Date(Date.now() + 50)), (reason) => ended.push(`released ${reason}`));
    watch.watch(principal("tok_c", new Date(Date.now() + 50)), (reason) => ended.push(`kept ${reason}`));
    release();
    await new Promise((resolve) => setTimeout(resolve, 150));
    watch.revoked("tok_c" as TokenId);
    expect([ended, watch.watched]).toEqual([["kept EXPIRED"], 0]);
    // Open mode has no token to watch.
    watch.watch({ kind: "open", name: "open mode", tokenId: null }, () => ended.push("open"));
    expect(watch.watched).toBe(0);
    await watch.stop();
  });
});

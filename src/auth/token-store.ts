import { inChunks } from "../db/chunked-lists";
import { type Db, UNCOUNTED_SQL } from "../db/client";
import { ownTransaction } from "../db/own-transaction";
import { InvalidArgumentError, NotFoundError } from "../services/errors";
import type { KeysetPage } from "../services/pagination";
import { unsafeTextReason } from "../services/safe-text";
import { isScope, normalizeScopes, SCOPE_SYNTAX, type Scope } from "./scopes";
import { generateTokenSecret, hashTokenSecret, isTokenId, newTokenId, type TokenId } from "./token-secret";

export const TOKEN_STATUSES = ["ACTIVE", "EXPIRED", "REVOKED"] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

/** A token as stored, without its hash: what listings show. */
export interface ApiTokenRecord {
  id: TokenId;
  name: string;
  scopes: Scope[];
  createdAt: Date;
  createdBy: string;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface NewToken {
  name: string;
  scopes: readonly string[];
  expiresAt?: Date | null;
  /** Who creates it: a token's name, "open mode", "cli:<user>", "PROVGRAPH_BOOTSTRAP_TOKEN". */
  createdBy: string;
}

export function statusOf(token: ApiTokenRecord, now: number = Date.now()): TokenStatus {
  if (token.revokedAt) return "REVOKED";
  if (token.expiresAt && token.expiresAt.getTime() <= now) return "EXPIRED";
  return "ACTIVE";
}

const MAX_NAME_LENGTH = 100;

/**
 * API tokens in the database (`ApiToken`). Rows are never deleted: revoking stamps revokedAt.
 * Knows no GraphQL; the schema, the CLI and start-up call it.
 */
export class TokenStore {
  constructor(private readonly db: Db) {}

  /** Creates a token and returns its secret: the only time it exists outside the caller's hands. */
  async create(input: NewToken, now: Date = new Date()): Promise<{ secret: string; token: ApiTokenRecord }> {
    return this.createWithSecret(generateTokenSecret(), input, now);
  }

  /** Stores a token whose secret the caller chose (PROVGRAPH_BOOTSTRAP_TOKEN). */
  async createWithSecret(secret: string, input: NewToken, now: Date = new Date()): Promise<{ secret: string; token: ApiTokenRecord }> {
    const { name, scopes, expiresAt } = checkNewToken(input, now);
    const row = await ownTransaction(this.db, (tx) =>
      tx.apiToken.create({
        data: { id: newTokenId(), name, scopes: JSON.stringify(scopes), secretHash: hashTokenSecret(secret), createdAt: now, createdBy: input.createdBy, expiresAt },
      }),
    );
    return { secret, token: toRecord(row) };
  }

  async findBySecret(secret: string): Promise<ApiTokenRecord | null> {
    const row = await this.db.apiToken.findUnique({ where: { secretHash: hashTokenSecret(secret) } });
    return row ? toRecord(row) : null;
  }

  async byId(id: string): Promise<ApiTokenRecord | null> {
    if (!isTokenId(id)) return null;
    const row = await this.db.apiToken.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  async byName(name: string): Promise<ApiTokenRecord[]> {
    const rows = await this.db.apiToken.findMany({ where: { name }, orderBy: { id: "desc" } });
    return rows.map(toRecord);
  }

  /** Newest first: "after" a cursor means older (smaller) ids. */
  async list(page: KeysetPage<TokenId>): Promise<ApiTokenRecord[]> {
    const range: { lt?: string; gt?: string } = {};
    if (page.after) range.lt = page.after;
    if (page.before) range.gt = page.before;
    const rows = await this.db.apiToken.findMany({
      where: page.after || page.before ? { id: range } : {},
      orderBy: { id: page.inverted ? "asc" : "desc" },
      take: page.limit,
    });
    return rows.map(toRecord);
  }

  /** Stamps revokedAt; revoking a revoked token keeps its first revocation time. */
  async revoke(id: string, now: Date = new Date(), field = "id"): Promise<ApiTokenRecord> {
    const existing = await this.byId(id);
    if (!existing) throw new NotFoundError("API token", id, field);
    if (existing.revokedAt) return existing;
    await ownTransaction(this.db, (tx) => tx.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } }));
    return (await this.byId(id))!;
  }

  /** The tokens with these ids as stored now (revoked and expired ones included; unknown ids left out). */
  async byIds(ids: readonly TokenId[]): Promise<ApiTokenRecord[]> {
    // A bounded number of bound values per statement, however many tokens are asked about.
    const rows = await inChunks(ids, (chunk) => this.db.apiToken.findMany({ where: { id: { in: chunk as string[] } } }), 1_000);
    return rows.map(toRecord);
  }

  async touch(id: TokenId, at: Date): Promise<void> {
    await ownTransaction(this.db, (tx) => tx.apiToken.update({ where: { id }, data: { lastUsedAt: at } }));
  }

  /**
   * Whether any token row exists (revoked and expired ones included): the end of open mode. Left
   * out of statementCount(): open mode asks it now and then, whatever the request.
   */
  async anyExists(): Promise<boolean> {
    const rows = await this.db.$queryRawUnsafe<unknown[]>(`${UNCOUNTED_SQL} SELECT 1 AS "one" FROM "ApiToken" LIMIT 1`);
    return rows.length > 0;
  }
}

function checkNewToken(input: NewToken, now: Date): { name: string; scopes: Scope[]; expiresAt: Date | null } {
  const name = input.name.trim();
  if (name === "") throw new InvalidArgumentError("name", "must not be empty");
  if (name.length > MAX_NAME_LENGTH) throw new InvalidArgumentError("name", `must be at most ${MAX_NAME_LENGTH} characters`);
  const unsafe = unsafeTextReason(name);
  if (unsafe) throw new InvalidArgumentError("name", unsafe);
  if (input.scopes.length === 0) throw new InvalidArgumentError("scopes", `must name at least one scope: ${SCOPE_SYNTAX}`);
  for (const scope of input.scopes) {
    if (!isScope(scope)) throw new InvalidArgumentError("scopes", `'${scope.slice(0, 80)}' is not a scope: expected ${SCOPE_SYNTAX}`);
  }
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) throw new InvalidArgumentError("expiresAt", "must be in the future");
  return { name, scopes: normalizeScopes(input.scopes as Scope[]), expiresAt };
}

type TokenRow = { id: string; name: string; scopes: string; createdAt: Date; createdBy: string; lastUsedAt: Date | null; expiresAt: Date | null; revokedAt: Date | null };

function toRecord(row: TokenRow): ApiTokenRecord {
  return {
    id: row.id as TokenId,
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    lastUsedAt: row.lastUsedAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
  };
}

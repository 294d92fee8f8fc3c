import type { Database } from "../db/client";
import type { Logger } from "../logger";
import { AuditLog } from "./audit-log";
import { Authenticator, type AuthenticatorOptions } from "./authenticator";
import { ScopeRequiredError } from "./errors";
import { holds, type Principal } from "./principal";
import { isClearance, isPurposeScope, isScope } from "./scopes";
import type { TokenId } from "./token-secret";
import { type ApiTokenRecord, type NewToken, TokenStore } from "./token-store";
import { TokenWatch } from "./token-watch";

/** Everything the rest of the server needs of auth, over one database. */
export interface AuthServices {
  tokens: TokenStore;
  audit: AuditLog;
  authenticator: Authenticator;
  /** Live subscriptions' tokens: revoked or expired, their subscriptions end (src/auth/subscription-leases.ts). */
  watch: TokenWatch;
  logger: Logger;
  /** Creates a token on behalf of `grantor`, who cannot hand out a clearance or a purpose it does not hold. */
  issueToken(input: Omit<NewToken, "createdBy">, grantor: Principal): Promise<{ secret: string; token: ApiTokenRecord }>;
  revokeToken(id: string): Promise<ApiTokenRecord>;
}

export function createAuthServices(database: Database, options: Omit<AuthenticatorOptions, "logger"> & { logger: Logger }): AuthServices {
  const tokens = new TokenStore(database.prisma);
  const audit = new AuditLog(database.prisma);
  const authenticator = new Authenticator(tokens, options);
  // Revocations made elsewhere reach live subscriptions as soon as they reach new requests (the token cache's time).
  const watch = new TokenWatch(tokens, { pollMs: options.tokenCacheMs ?? 2_000, now: options.now ?? Date.now, logger: options.logger });
  return {
    tokens,
    audit,
    authenticator,
    watch,
    logger: options.logger,
    async issueToken(input, grantor) {
      for (const scope of input.scopes) {
        if (isScope(scope) && (isClearance(scope) || isPurposeScope(scope)) && !holds(grantor, scope)) {
          throw new ScopeRequiredError("scopes", scope, `a token can only grant the ${isClearance(scope) ? "clearances" : "purposes"} it holds: '${grantor.name}' does not hold ${scope}`);
        }
      }
      const created = await tokens.create({ ...input, createdBy: grantor.name });
      authenticator.noteTokenCreated();
      return created;
    },
    async revokeToken(id) {
      const token = await tokens.revoke(id);
      authenticator.forget(token.id as TokenId);
      watch.revoked(token.id as TokenId);
      return token;
    },
  };
}

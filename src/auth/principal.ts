import { grants, type Scope } from "./scopes";
import type { TokenId } from "./token-secret";

/**
 * Who a request acts as. In open mode (loopback, no token has ever existed) every request acts
 * as the open-mode principal, which holds every scope and clearance; otherwise as the token it
 * carries.
 */
export type Principal =
  | { kind: "open"; name: "open mode"; tokenId: null }
  /** `expiresAt`: when the token expires (null: never), as read when the request was authenticated. */
  | { kind: "token"; name: string; tokenId: TokenId; scopes: readonly Scope[]; expiresAt?: Date | null };

export const OPEN_MODE: Principal = Object.freeze({ kind: "open", name: "open mode", tokenId: null });

export function holds(principal: Principal, scope: Scope): boolean {
  return principal.kind === "open" || grants(principal.scopes, scope);
}

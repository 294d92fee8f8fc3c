/**
 * What a token may do. `read` (queries, subscriptions), `write` (recording, ingestion) and `admin`
 * (operations, composites, tags, erasure, tokens, the audit log) nest: admin grants write, write
 * grants read. Clearances (`clearance:<TAG>`, read by policy-tag redaction) stand apart: a token
 * holds one only when it was granted, whatever its other scopes.
 */
export const BASE_SCOPES = ["read", "write", "admin"] as const;
export type BaseScope = (typeof BASE_SCOPES)[number];
export type ClearanceScope = `clearance:${string}`;
export type Scope = BaseScope | ClearanceScope;

const CLEARANCE = /^clearance:[A-Za-z0-9_.-]{1,64}$/;
const RANK: Record<BaseScope, number> = { read: 1, write: 2, admin: 3 };

export const SCOPE_SYNTAX = "read, write, admin or clearance:<TAG> (TAG: 1-64 letters, digits, '_', '.' or '-')";

export function isScope(value: string): value is Scope {
  return (BASE_SCOPES as readonly string[]).includes(value) || CLEARANCE.test(value);
}

export function isClearance(scope: Scope): scope is ClearanceScope {
  return scope.startsWith("clearance:");
}

/** Whether holding `held` grants `needed`. */
export function grants(held: readonly Scope[], needed: Scope): boolean {
  if (isClearance(needed)) return held.includes(needed);
  const rank = RANK[needed];
  return held.some((scope) => !isClearance(scope) && RANK[scope] >= rank);
}

/** The scopes as stored and shown: distinct, base scopes first (read, write, admin), then clearances sorted. */
export function normalizeScopes(scopes: readonly Scope[]): Scope[] {
  const distinct = [...new Set(scopes)];
  const base = BASE_SCOPES.filter((scope) => distinct.includes(scope));
  const clearances = distinct.filter(isClearance).sort();
  return [...base, ...clearances];
}

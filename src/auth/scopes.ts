/**
 * What a token may do. `read` (queries, subscriptions), `write` (recording, ingestion) and `admin`
 * (operations, composites, tags, erasure, tokens, the audit log) nest: admin grants write, write
 * grants read. Clearances (`clearance:<TAG>`, read by policy-tag redaction) and purposes
 * (`purpose:<NAME>`, the purposes a request or a run may act under) stand apart: a token holds one
 * only when it was granted, whatever its other scopes. `metrics` lets a scraper read GET /metrics
 * and nothing else (admin grants it too).
 */
export const BASE_SCOPES = ["read", "write", "admin"] as const;
export type BaseScope = (typeof BASE_SCOPES)[number];
export type ClearanceScope = `clearance:${string}`;
export type PurposeScope = `purpose:${string}`;
export type Scope = BaseScope | ClearanceScope | PurposeScope | "metrics";

const CLEARANCE = /^clearance:[A-Za-z0-9_.-]{1,64}$/;
const PURPOSE_SCOPE = /^purpose:[A-Za-z0-9_.-]{1,64}$/;
const RANK: Record<BaseScope, number> = { read: 1, write: 2, admin: 3 };

export const SCOPE_SYNTAX = "read, write, admin, metrics, clearance:<TAG> or purpose:<NAME> (TAG, NAME: 1-64 letters, digits, '_', '.' or '-')";

export function isScope(value: string): value is Scope {
  return (BASE_SCOPES as readonly string[]).includes(value) || value === "metrics" || CLEARANCE.test(value) || PURPOSE_SCOPE.test(value);
}

export function isClearance(scope: Scope): scope is ClearanceScope {
  return scope.startsWith("clearance:");
}

export function isPurposeScope(scope: Scope): scope is PurposeScope {
  return scope.startsWith("purpose:");
}

/** Whether holding `held` grants `needed`. */
export function grants(held: readonly Scope[], needed: Scope): boolean {
  if (isClearance(needed) || isPurposeScope(needed)) return held.includes(needed);
  if (needed === "metrics") return held.includes("metrics") || held.includes("admin");
  const rank = RANK[needed];
  return held.some((scope) => scope !== "metrics" && !isClearance(scope) && !isPurposeScope(scope) && RANK[scope] >= rank);
}

/** The scopes as stored and shown: distinct, base scopes first (read, write, admin), then metrics, then clearances, then purposes, sorted. */
export function normalizeScopes(scopes: readonly Scope[]): Scope[] {
  const distinct = [...new Set(scopes)];
  const base = BASE_SCOPES.filter((scope) => distinct.includes(scope));
  const clearances = distinct.filter(isClearance).sort();
  const purposes = distinct.filter(isPurposeScope).sort();
  return [...base, ...(distinct.includes("metrics") ? (["metrics"] as const) : []), ...clearances, ...purposes];
}

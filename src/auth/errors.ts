import { DomainError } from "../services/errors";

/** What an auth refusal asks of the HTTP response (Yoga reads `extensions.http`; it is never sent). */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
}

export const AUTH_FAILURE_REASONS = ["MISSING", "MALFORMED", "UNKNOWN", "REVOKED", "EXPIRED"] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

const UNAUTHENTICATED_MESSAGES: Record<AuthFailureReason, string> = {
  MISSING: "this server requires an API token: send 'Authorization: Bearer pgt_…' (over graphql-ws: connectionParams.authorization)",
  MALFORMED: "the credentials are not an API token: send 'Authorization: Bearer pgt_…'",
  UNKNOWN: "the API token is not known to this server",
  REVOKED: "the API token has been revoked",
  EXPIRED: "the API token has expired",
};

const REALM = 'Bearer realm="provgraph"';

/** RFC 6750 error_description: printable ASCII without '"' or '\\' (and HTTP headers cannot carry "…"). */
function headerSafe(text: string): string {
  return text.replace(/…/g, "...").replace(/[^\x20-\x7e]|["\\]/g, "");
}

/** No usable credentials: missing, malformed, unknown, revoked or expired (RFC 6750 invalid_token). */
export class UnauthenticatedError extends DomainError {
  readonly code = "UNAUTHENTICATED";
  readonly http: HttpAnswer;
  constructor(readonly reason: AuthFailureReason) {
    super(UNAUTHENTICATED_MESSAGES[reason], { reason });
    const challenge = reason === "MISSING" ? REALM : `${REALM}, error="invalid_token", error_description="${headerSafe(UNAUTHENTICATED_MESSAGES[reason])}"`;
    this.http = { status: 401, headers: { "WWW-Authenticate": challenge } };
  }
}

/** Authenticated, but the token lacks the scope this needs (RFC 6750 insufficient_scope). */
export class ScopeRequiredError extends DomainError {
  readonly code = "FORBIDDEN";
  readonly http: HttpAnswer;
  constructor(
    readonly field: string,
    readonly scope: string,
    message: string,
  ) {
    super(message, { field, scope });
    this.http = { status: 403, headers: { "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"` } };
  }
}

/**
 * The server cannot start safely: bound to a public address with no way to authenticate.
 * main.ts prints its message as the one start-up line.
 */
export class AuthSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthSetupError";
  }
}

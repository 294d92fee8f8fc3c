import type { Plugin } from "graphql-yoga";
import { type DatabaseOutageError, databaseOutageOf } from "../services/errors";
import type { AuthServices } from "./auth-services";
import { ScopeRequiredError, UnauthenticatedError } from "./errors";
import { holds, type Principal } from "./principal";
import type { Scope } from "./scopes";

const principals = new WeakMap<Request, Principal>();

/** The principal the authentication plugin found for an HTTP request (undefined for graphql-ws, which passes its own). */
export function principalOf(request: Request | undefined): Principal | undefined {
  return request ? principals.get(request) : undefined;
}

/**
 * Authenticates every HTTP request that reaches it (GraphQL over HTTP and SSE, and any route after
 * it) before it is parsed: a missing token once tokens are required, or a malformed, unknown,
 * revoked or expired one, is answered 401 with `WWW-Authenticate: Bearer` and UNAUTHENTICATED,
 * and nothing runs; a token that cannot be checked because the database is down is answered 503
 * DATABASE_UNAVAILABLE with Retry-After. /healthz, /readyz, the GraphiQL page and its assets and CORS preflights are
 * answered before it.
 */
export function useAuthentication(auth: AuthServices): Plugin {
  return {
    async onRequest({ request, endResponse, fetchAPI }) {
      if (request.method === "OPTIONS") return;
      try {
        principals.set(request, await auth.authenticator.authenticate(request.headers.get("authorization")));
      } catch (error) {
        const outage = databaseOutageOf(error);
        if (outage) {
          // The token (or open mode) could not be checked: the database is down, not the caller wrong.
          auth.logger.warn({ transport: "http", code: outage.code, err: error }, "request refused: the database is unavailable");
          endResponse(authErrorResponse(outage, fetchAPI.Response));
          return;
        }
        if (!(error instanceof UnauthenticatedError)) throw error;
        auth.logger.info({ transport: "http", code: error.code, reason: error.reason }, "request refused");
        endResponse(authErrorResponse(error, fetchAPI.Response));
      }
    },
  };
}

export type HttpAuthorization =
  | { ok: true; principal: Principal }
  | { ok: false; error: UnauthenticatedError | ScopeRequiredError | DatabaseOutageError; response: Response };

/**
 * For plain HTTP routes (the OpenLineage endpoint): authenticate `Authorization: Bearer pgt_…`
 * and check that the principal holds `scope`. On failure, `response` is the answer to send (401
 * UNAUTHENTICATED or 403 FORBIDDEN, with WWW-Authenticate, as a GraphQL-style JSON error), and
 * `error` carries its code, message and `http` status and headers for a route that shapes its own.
 */
export async function authorizeHttpRequest(auth: AuthServices, request: Request, scope: Scope, action = new URL(request.url).pathname): Promise<HttpAuthorization> {
  let principal = principalOf(request);
  if (!principal) {
    try {
      principal = await auth.authenticator.authenticate(request.headers.get("authorization"));
    } catch (error) {
      const outage = databaseOutageOf(error);
      if (outage) return { ok: false, error: outage, response: authErrorResponse(outage) };
      if (!(error instanceof UnauthenticatedError)) throw error;
      return { ok: false, error, response: authErrorResponse(error) };
    }
  }
  if (holds(principal, scope)) return { ok: true, principal };
  const held = principal.kind === "token" ? principal.scopes.join(", ") : "every scope";
  const error = new ScopeRequiredError(action, scope, `${action} needs the ${scope} scope; token '${principal.name}' has ${held}`);
  return { ok: false, error, response: authErrorResponse(error) };
}

/** A refusal as its own HTTP response: status, WWW-Authenticate (or Retry-After), and the GraphQL error shape. */
export function authErrorResponse(error: UnauthenticatedError | ScopeRequiredError | DatabaseOutageError, ResponseClass: typeof Response = Response): Response {
  const body = JSON.stringify({ errors: [{ message: error.message, extensions: { code: error.code, ...error.details } }] });
  return new ResponseClass(body, { status: error.http.status, headers: { ...error.http.headers, "content-type": "application/json; charset=utf-8" } });
}

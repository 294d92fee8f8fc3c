import { type AuthFailure, AuthScopeFailureType } from "@pothos/plugin-scope-auth";
import type { GraphQLResolveInfo } from "graphql";
import type { AuthContext } from "../context";
import { ScopeRequiredError, UnauthenticatedError } from "../errors";
import { holds } from "../principal";

/** The scopes fields may ask for, as @pothos/plugin-scope-auth sees them. */
export interface ProvgraphAuthScopes {
  read: boolean;
  write: boolean;
  admin: boolean;
  /** `authScopes: { clearance: "PII" }` needs the clearance:PII scope. */
  clearance: string;
}

/** The builder's `scopeAuth` options: the principal's scopes, and FORBIDDEN naming what was missing. */
export const scopeAuthOptions = {
  authorizeOnSubscribe: true,
  authScopes: (context: AuthContext) => {
    const principal = context.principal;
    return {
      read: holds(principal, "read"),
      write: holds(principal, "write"),
      admin: holds(principal, "admin"),
      clearance: (tag: string) => holds(principal, `clearance:${tag}`),
    };
  },
  unauthorizedError: (_parent: unknown, context: AuthContext, info: GraphQLResolveInfo, result: { failure: AuthFailure }): Error => {
    const principal = context.principal;
    // Requests are authenticated before they run; a context without a principal is refused, not opened.
    if (!principal) return new UnauthenticatedError("MISSING");
    const scope = scopesIn(result.failure).join(" or ") || "another";
    const held = principal.kind === "token" ? principal.scopes.join(", ") : "every scope";
    return new ScopeRequiredError(info.fieldName, scope, `${info.fieldName} needs the ${scope} scope; token '${principal.name}' has ${held}`);
  },
};

function scopesIn(failure: AuthFailure): string[] {
  switch (failure.kind) {
    case AuthScopeFailureType.AuthScope:
      return [failure.scope === "clearance" ? `clearance:${String(failure.parameter)}` : failure.scope];
    case AuthScopeFailureType.AnyAuthScopes:
    case AuthScopeFailureType.AllAuthScopes:
      return [...new Set(failure.failures.flatMap(scopesIn))];
    default:
      return [];
  }
}

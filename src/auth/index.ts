/**
 * Access control: API tokens and scopes, who a request acts as, the audit trail, and the Pothos
 * wiring that enforces scopes (src/auth/pothos, imported by src/builder.ts). Other folders import
 * from here only.
 */
export { AUDIT_CHANNELS, type AuditChannel, type AuditEventRecord, AuditLog, type NewAuditEvent } from "./audit-log";
export { type AuthServices, createAuthServices } from "./auth-services";
export { Authenticator } from "./authenticator";
export type { AuthContext } from "./context";
export { AUTH_FAILURE_REASONS, type AuthFailureReason, AuthSetupError, ScopeRequiredError, UnauthenticatedError } from "./errors";
export { type RefusedRootField, refusedRootFields, useOperationAuthorization } from "./operation-authorization";
export { useSubscriptionLeases } from "./subscription-leases";
export { type TokenLeaseEnd, TokenWatch } from "./token-watch";
export { authErrorResponse, authorizeHttpRequest, type HttpAuthorization, principalOf, useAuthentication } from "./http";
export { holds, OPEN_MODE, type Principal } from "./principal";
export { mayActUnder, PURPOSE_HEADER, purposeOf, purposesOf, statedPurpose, useRequestPurpose } from "./purpose";
export { BASE_SCOPES, grants, isScope, SCOPE_SYNTAX, type Scope } from "./scopes";
export { type AuthMode, authSetupError, CREATE_TOKEN_HINT, prepareAuth } from "./startup";
export { generateTokenSecret, hashTokenSecret, isTokenId, isWellFormedTokenSecret, TOKEN_PREFIX, type TokenId } from "./token-secret";
export { type ApiTokenRecord, statusOf, TOKEN_STATUSES, TokenStore, type TokenStatus } from "./token-store";

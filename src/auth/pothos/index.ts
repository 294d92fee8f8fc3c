import "./global-types";
/** The Pothos side of auth, for src/builder.ts: plugin names (list them before "scopeAuth") and scope-auth options. */
export { AuditPlugin } from "./audit-plugin";
export { DEFAULT_ROOT_FIELD_SCOPES, RootScopeDefaultsPlugin } from "./root-scopes-plugin";
export { guardedFieldsOf, RedactionPlugin, redactedFields, redactionsOf, type Viewer, type Withholding, withheld, withholdingReasons } from "./redaction-plugin";
export { type ProvgraphAuthScopes, scopeAuthOptions } from "./scope-auth";
export const AUDIT_PLUGIN = "provgraphAudit" as const;
export const ROOT_SCOPES_PLUGIN = "provgraphRootScopes" as const;
export const REDACTION_PLUGIN = "provgraphRedaction" as const;

import { type ApiTokenRecord, AUDIT_CHANNELS, type AuditEventRecord, isTokenId, isWellFormedTokenSecret, statusOf, TOKEN_STATUSES, type TokenId } from "../auth";
import { builder } from "./builder";
import { InvalidArgumentError, InvalidIdError } from "../services/errors";
import { resolveKeysetConnection } from "./connection-page";

/** API tokens and the audit trail: admin only. */

const ApiTokenStatusEnum = builder.enumType("ApiTokenStatus", {
  values: {
    ACTIVE: { description: "Neither revoked nor past its expiry: it authenticates." },
    EXPIRED: { description: "Past its `expiresAt` (and not revoked)." },
    REVOKED: { description: "Revoked (by revokeApiToken or the CLI), whether or not it has expired since." },
  } satisfies Record<(typeof TOKEN_STATUSES)[number], { description: string }>,
  description: "ACTIVE tokens authenticate; EXPIRED and REVOKED ones are answered UNAUTHENTICATED.",
});

const ApiTokenObject = builder.objectRef<ApiTokenRecord>("ApiToken").implement({
  description: "An API token, without its secret (shown once, by createApiToken) or the hash stored in its place.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "tok_ + UUIDv7: what revokeApiToken takes." }),
    name: t.exposeString("name", { description: "What it is for, as given when it was created; names need not be unique." }),
    scopes: t.exposeStringList("scopes", { description: "read, write, admin (each granting the ones before it), metrics, clearance:<TAG> and purpose:<NAME>." }),
    status: t.field({ type: ApiTokenStatusEnum, description: "Whether it authenticates now.", resolve: (token) => statusOf(token) }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was created." }),
    createdBy: t.exposeString("createdBy", { description: "The token (or 'open mode', the CLI user, PROVGRAPH_BOOTSTRAP_TOKEN) that created it." }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true, description: "Last authenticated use, to within a minute (written at most once a minute per server)." }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true, description: "When it stops working; null: never." }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true, description: "When it was revoked (the first time); null while it is not." }),
  }),
});

const AuditChannelEnum = builder.enumType("AuditChannel", {
  values: {
    HTTP: { description: "An HTTP request: GraphQL (server-sent events included) or the OpenLineage routes." },
    WS: { description: "An operation over a graphql-ws WebSocket." },
    CLI: { description: "The provgraph command's token commands, run with database access." },
    STARTUP: { description: "Server start-up: creating the admin token `bootstrap` from PROVGRAPH_BOOTSTRAP_TOKEN." },
  } satisfies Record<(typeof AUDIT_CHANNELS)[number], { description: string }>,
  description: "How the audited action arrived.",
});

const AuditEventObject = builder.objectRef<AuditEventRecord>("AuditEvent").implement({
  description: "One entry of the append-only audit trail.",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The entry's place in the trail: later entries have larger ids." }),
    at: t.expose("at", { type: "DateTime", description: "When it was recorded." }),
    actor: t.exposeString("actor", { description: "The token's name, 'open mode', 'cli:<user>' or PROVGRAPH_BOOTSTRAP_TOKEN." }),
    tokenId: t.exposeID("tokenId", { nullable: true, description: "The acting token's id (tok_…); null in open mode, from the CLI and at start-up." }),
    via: t.expose("via", { type: AuditChannelEnum, description: "How the action arrived." }),
    action: t.exposeString("action", { description: "The mutation (the CLI records its commands as the mutations they equal)." }),
    targets: t.exposeStringList("targets", { description: "The ids it touched; when it failed, the ids it was asked to touch." }),
    outcome: t.exposeString("outcome", { description: "OK, or the code it ended with (FORBIDDEN, NOT_FOUND, OPERATION_DECLARATION, …)." }),
    requestId: t.exposeString("requestId", { nullable: true, description: "The request id its log line carries." }),
  }),
});

const CreateApiTokenInput = builder.inputType("CreateApiTokenInput", {
  description: "A token to create: its name, its scopes and, optionally, when it expires.",
  fields: (t) => ({
    name: t.string({ required: true, description: "What the token is for (shown in listings and the audit trail), e.g. ci." }),
    scopes: t.stringList({ required: true, description: "read, write, admin, metrics, clearance:<TAG>, purpose:<NAME>. A token can only grant the clearances and purposes it holds." }),
    expiresAt: t.field({ type: "DateTime", description: "When it stops working; in the future. Absent: never." }),
  }),
});

const CreateApiTokenPayload = builder.objectRef<{ secret: string; token: ApiTokenRecord }>("CreateApiTokenPayload").implement({
  description: "A token just created: its secret, shown this once, and the token as apiTokens lists it.",
  fields: (t) => ({
    token: t.exposeString("secret", { description: "The token (pgt_…), shown this once: only its hash is stored. Send it as Authorization: Bearer <token>." }),
    apiToken: t.field({ type: ApiTokenObject, description: "The token as stored, without its secret: its id is what revokeApiToken takes.", resolve: (payload) => payload.token }),
  }),
});

function tokenIdArg(field: string, value: string): TokenId {
  if (isTokenId(value)) return value;
  // A secret passed by mistake is not echoed back.
  if (isWellFormedTokenSecret(value)) throw new InvalidArgumentError(field, "this is a token's secret, not its id: pass the tok_… id (apiTokens lists them)");
  throw new InvalidIdError(field, value, "API token");
}

builder.mutationFields((t) => ({
  createApiToken: t.field({
    type: CreateApiTokenPayload,
    description: "Creates an API token and returns its secret, once. Needs the admin scope.",
    args: {
      input: t.arg({
        type: CreateApiTokenInput,
        required: true,
        description: "The token to create. A blank name or one over 100 characters, no scope or an unknown one, or an expiry not in the future is INVALID_ARGUMENT; a clearance or purpose you do not hold is FORBIDDEN.",
      }),
    },
    resolve: (_root, { input }, ctx) => ctx.auth.issueToken({ name: input.name, scopes: input.scopes, expiresAt: input.expiresAt ?? null }, ctx.principal),
  }),
  revokeApiToken: t.field({
    type: ApiTokenObject,
    description: "Revokes a token: it is answered UNAUTHENTICATED from now on (within 2 s on other servers sharing the database). Revoking again is a no-op. Needs the admin scope.",
    args: { id: t.arg.id({ required: true, description: "The token's id (tok_…). A malformed id is INVALID_ID, an unknown one NOT_FOUND; a secret (pgt_…) is refused as INVALID_ARGUMENT, without being echoed." }) },
    resolve: (_root, args, ctx) => ctx.auth.revokeToken(tokenIdArg("id", String(args.id))),
  }),
}));

builder.queryFields((t) => ({
  apiTokens: t.connection({
    type: ApiTokenObject,
    authScopes: { admin: true },
    description: "Every API token, newest first, revoked and expired ones included. Needs the admin scope.",
    resolve: (_root, args, ctx) =>
      resolveKeysetConnection<ApiTokenRecord, TokenId>(args, { connection: "apiTokens", keyOf: (token) => token.id, parseKey: (key) => (isTokenId(key) ? key : undefined) }, (page) =>
        ctx.auth.tokens.list(page),
      ),
  }),
  auditLog: t.connection({
    type: AuditEventObject,
    authScopes: { admin: true },
    description: "The audit trail, newest first. Needs the admin scope.",
    resolve: (_root, args, ctx) =>
      resolveKeysetConnection<AuditEventRecord, number>(args, { connection: "auditLog", keyOf: (event) => String(event.id), parseKey: (key) => (/^[1-9]\d{0,15}$/.test(key) ? Number(key) : undefined) }, (page) =>
        ctx.auth.audit.list(page),
      ),
  }),
}));

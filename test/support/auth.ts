import { generateTokenSecret } from "../../src/auth";
import type { AppOptions } from "../../src/app";
import { tableCounts } from "./recording";
import { createTestApp, type GraphQLResponse, type TestApp } from "./test-app";

/** A test app in token mode: PROVGRAPH_BOOTSTRAP_TOKEN made `adminToken` at start-up. */
export interface TokenTestApp extends TestApp {
  adminToken: string;
  /** Stores a token directly (no GraphQL, no checks: an expiry in the past is allowed) and returns its secret. */
  issue(scopes: string[], options?: { name?: string; expiresAt?: Date | null }): Promise<string>;
  /** One HTTP request through yoga.fetch; `token` becomes `Authorization: Bearer <token>`. */
  send(request: HttpRequest): Promise<HttpAnswer>;
  /** A GraphQL POST with `token` (the admin token when omitted; null for none). */
  gqlAs<T = Record<string, any>>(token: string | null, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T> & { status: number }>;
}

export interface HttpRequest {
  token?: string | null;
  /** The Authorization header as given (overrides `token`). */
  authorization?: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Shorthand for a JSON GraphQL body. */
  graphql?: { query: string; variables?: Record<string, unknown> };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON when it is JSON. */
  json: any;
}

export async function createTokenTestApp(options: { env?: Record<string, string>; app?: AppOptions } = {}): Promise<TokenTestApp> {
  const adminToken = generateTokenSecret();
  const t = await createTestApp({ env: { PROVGRAPH_BOOTSTRAP_TOKEN: adminToken, ...options.env }, app: options.app });
  const send = (request: HttpRequest) => sendRequest(t, request);
  return {
    ...t,
    adminToken,
    send,
    issue: async (scopes, { name = scopes.join("+"), expiresAt = null } = {}) => {
      const secret = generateTokenSecret();
      // "Created" a second before an expiry in the past, so the store's future-expiry check lets it through.
      const createdAt = expiresAt && expiresAt.getTime() <= Date.now() ? new Date(expiresAt.getTime() - 1000) : new Date();
      await t.app.auth.tokens.createWithSecret(secret, { name, scopes, expiresAt, createdBy: "test" }, createdAt);
      return secret;
    },
    gqlAs: async (token, query, variables) => {
      const answer = await send({ token, graphql: { query, variables } });
      return { ...answer.json, status: answer.status };
    },
    // The admin token by default: existing helpers (test/support/recording.ts) keep working.
    gql: async (query, variables) => (await send({ token: adminToken, graphql: { query, variables } })).json,
  };
}

export async function sendRequest(t: TestApp, request: HttpRequest): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  else if (request.token) headers.authorization = `Bearer ${request.token}`;
  let body = request.body;
  if (request.graphql) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(request.graphql);
  }
  const response = await t.app.yoga.fetch(`http://provgraph.test${request.path ?? "/graphql"}`, { method: request.method ?? (body === undefined ? "GET" : "POST"), headers, body });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Row counts of the provenance tables and of the two auth tables. */
export async function storeCounts(t: TestApp) {
  const db = t.app.database.prisma;
  return { ...(await tableCounts(t)), apiTokens: await db.apiToken.count(), auditEvents: await db.auditEvent.count() };
}

/** The audit trail, oldest first, as plain rows for exact assertions (ids and times left out). */
export async function auditTrail(t: TestApp) {
  const rows = await t.app.database.prisma.auditEvent.findMany({ orderBy: { id: "asc" } });
  return rows.map((row) => ({ actor: row.actor, via: row.via, action: row.action, targets: JSON.parse(row.targets) as string[], outcome: row.outcome }));
}

/** Splits a text/event-stream body into its events: [{ event, data }]. */
export function sseEvents(text: string): { event: string; data: any }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "" && !block.startsWith(":"))
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event:"))?.slice("event:".length).trim() ?? "message";
      const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice("data:".length).trim()).join("\n");
      return { event, data: data === "" ? null : JSON.parse(data) };
    });
}

/** The row count of every table in the database (whatever tables there are), by table name: one statement once the tables are known. */
export async function everyTableCount(t: TestApp): Promise<Record<string, number>> {
  const db = t.app.database.prisma;
  let tables = tableNames.get(t);
  if (!tables) {
    const rows =
      t.app.database.provider === "sqlite"
        ? await db.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations' ORDER BY name`)
        : await db.$queryRawUnsafe<{ name: string }[]>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations' ORDER BY table_name`);
    tableNames.set(t, (tables = rows.map((row) => row.name)));
  }
  const [row] = await db.$queryRawUnsafe<Record<string, number | bigint>[]>(`SELECT ${tables.map((name, i) => `(SELECT COUNT(*) FROM "${name}") AS "t${i}"`).join(", ")}`);
  return Object.fromEntries(tables.map((name, i) => [name, Number(row[`t${i}`])]));
}

const tableNames = new WeakMap<TestApp, string[]>();

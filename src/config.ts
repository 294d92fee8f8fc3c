import net from "node:net";
import path from "node:path";
import { isWellFormedTokenSecret } from "./auth/token-secret";

/** Every environment variable provgraph reads, validated once at start-up. */
export interface Config {
  port: number;
  host: string;
  /** `file:<path>` (SQLite, the embedded default) or `postgres://…` / `postgresql://…`. */
  databaseUrl: string;
  /**
   * PostgreSQL only: a streaming replica of DATABASE_URL that reads are sent to (DATABASE_READ_URL);
   * null = reads use the primary. Writes, and reads that must see the last commit, stay on the primary.
   */
  databaseReadUrl: string | null;
  /**
   * SQLite only (SQLITE_SYNCHRONOUS): NORMAL (default) — a commit survives a crash of provgraph, and
   * a power loss may take the last commits; FULL — every commit is on disk before it is answered
   * (an fsync per transaction, shared by the recordings group commit puts in it).
   */
  sqliteSynchronous: SqliteSynchronous;
  logLevel: LogLevel;
  /** Apply pending migrations at start-up (default true; `MIGRATE_ON_START=false` to disable). */
  migrateOnStart: boolean;
  /** How long SIGTERM waits for in-flight requests before closing connections (ms). */
  shutdownGraceMs: number;
  /** CORS_ORIGINS: origins (scheme://host[:port]) allowed to call from a browser; unset = CORS off. */
  corsOrigins?: readonly string[];
  /** ALLOWED_HOSTS: Host names served besides the defaults (lower-case, no port). */
  allowedHosts?: readonly string[];
  /** GRAPHIQL: serve GraphiQL; unset = only when bound to loopback. */
  graphiql?: boolean;
  /** INTROSPECTION: answer __schema/__type; unset = only when bound to loopback. */
  introspection?: boolean;
  /** PROVGRAPH_BOOTSTRAP_TOKEN: an admin token created (hashed) at start-up. Never log it. */
  bootstrapToken?: string;
  /** `redis://…` / `rediss://…`: instances share feed notices through Redis pub/sub; null = one instance (in-process). */
  redisUrl: string | null;
  /** Events one subscriber may have waiting before it is closed with FEED_OVERFLOW. */
  feedQueueLimit: number;
  /** How many sequences back a resuming subscriber's `since` may reach (the feed log keeps that many). */
  feedReplayWindow: number;
  /** graphql-ws ping interval (ms); a socket that answers no ping within it is closed. 0 = no pings. */
  wsKeepAliveMs: number;
  /**
   * PROVGRAPH_ERASURE_SECRET: the key of the HMAC that data-subject keys are stored as (declarations,
   * erasure plans, the suppression list); null = subjects cannot be recorded. Never log it.
   */
  erasureSecret: string | null;
  /** Admission control (src/http/admission): heavy requests run at once, wait at most, and how long one may wait (ms). */
  heavyConcurrency: number;
  heavyQueueDepth: number;
  heavyQueueWaitMs: number;
  /** A /graphql or lineage request body this large (or of unknown length) is heavy work. */
  heavyBodyBytes: number;
  /** /graphql bodies declared larger are refused with 413. */
  graphqlMaxBodyBytes: number;
}

export const SQLITE_SYNCHRONOUS_MODES = ["NORMAL", "FULL"] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS_MODES)[number];

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_DATABASE_URL = `file:${path.join("data", "provgraph.db")}`;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`invalid configuration: ${variable} ${reason}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  return {
    port: parsePort(env.PORT),
    host: env.HOST?.trim() || "127.0.0.1",
    databaseUrl: parseDatabaseUrl(env.DATABASE_URL),
    databaseReadUrl: parseDatabaseReadUrl(env.DATABASE_READ_URL, parseDatabaseUrl(env.DATABASE_URL)),
    sqliteSynchronous: parseSqliteSynchronous(env.SQLITE_SYNCHRONOUS, parseDatabaseUrl(env.DATABASE_URL)),
    logLevel: parseLogLevel(env.LOG_LEVEL),
    migrateOnStart: parseBoolean("MIGRATE_ON_START", env.MIGRATE_ON_START, true),
    shutdownGraceMs: parseInteger("SHUTDOWN_GRACE_MS", env.SHUTDOWN_GRACE_MS, 10_000, 0, 600_000),
    corsOrigins: parseList(env.CORS_ORIGINS, parseOrigin),
    allowedHosts: parseList(env.ALLOWED_HOSTS, parseHostName),
    graphiql: parseOptionalBoolean("GRAPHIQL", env.GRAPHIQL),
    introspection: parseOptionalBoolean("INTROSPECTION", env.INTROSPECTION),
    bootstrapToken: parseBootstrapToken(env.PROVGRAPH_BOOTSTRAP_TOKEN),
    redisUrl: parseRedisUrl(env.REDIS_URL),
    feedQueueLimit: parseInteger("FEED_QUEUE_LIMIT", env.FEED_QUEUE_LIMIT, 1_000, 1, 100_000),
    feedReplayWindow: parseInteger("FEED_REPLAY_WINDOW", env.FEED_REPLAY_WINDOW, 100_000, 1, 100_000_000),
    wsKeepAliveMs: parseInteger("WS_KEEPALIVE_MS", env.WS_KEEPALIVE_MS, 12_000, 0, 3_600_000),
    erasureSecret: parseErasureSecret(env.PROVGRAPH_ERASURE_SECRET),
    heavyConcurrency: parseInteger("HEAVY_CONCURRENCY", env.HEAVY_CONCURRENCY, 4, 1, 1_000),
    heavyQueueDepth: parseInteger("HEAVY_QUEUE_DEPTH", env.HEAVY_QUEUE_DEPTH, 64, 0, 100_000),
    heavyQueueWaitMs: parseInteger("HEAVY_QUEUE_WAIT_MS", env.HEAVY_QUEUE_WAIT_MS, 30_000, 1, 3_600_000),
    heavyBodyBytes: parseInteger("HEAVY_BODY_BYTES", env.HEAVY_BODY_BYTES, 256 * 1024, 1, 1024 * 1024 * 1024),
    graphqlMaxBodyBytes: parseInteger("GRAPHQL_MAX_BODY_BYTES", env.GRAPHQL_MAX_BODY_BYTES, 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  };
}

/** The shortest erasure secret accepted: 32 characters (e.g. `openssl rand -base64 32` prints 44). */
export const MIN_ERASURE_SECRET_LENGTH = 32;

/** The value is a secret: a bad one is described, never echoed. */
function parseErasureSecret(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  const value = raw.trim();
  if (value.length < MIN_ERASURE_SECRET_LENGTH) throw new ConfigError("PROVGRAPH_ERASURE_SECRET", `must be at least ${MIN_ERASURE_SECRET_LENGTH} characters (make one with: openssl rand -base64 32)`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new ConfigError("PROVGRAPH_ERASURE_SECRET", "must not contain control characters");
  return value;
}

function parseOptionalBoolean(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  return parseBoolean(name, raw, false);
}

/** Comma- or space-separated; unset or empty = undefined. */
function parseList(raw: string | undefined, parseEntry: (entry: string) => string): string[] | undefined {
  const entries = (raw ?? "").split(/[\s,]+/).filter((entry) => entry !== "");
  return entries.length ? [...new Set(entries.map(parseEntry))] : undefined;
}

function parseOrigin(entry: string): string {
  const refuse = () => new ConfigError("CORS_ORIGINS", `entry '${entry}' is not an origin: expected scheme://host[:port], e.g. https://app.example.com`);
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw refuse();
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || url.pathname !== "/" || url.search || url.hash) throw refuse();
  return url.origin;
}

function parseHostName(entry: string): string {
  const value = entry.toLowerCase();
  const unbracketed = value.replace(/^\[(.*)\]$/, "$1");
  if (net.isIP(unbracketed) !== 0) return unbracketed;
  if (/^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/.test(value)) return value;
  throw new ConfigError("ALLOWED_HOSTS", `entry '${entry}' is not a host name: list names or addresses only, without scheme or port`);
}

/** The value is a secret: a bad one is described, never echoed. */
function parseBootstrapToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  if (!isWellFormedTokenSecret(raw.trim())) {
    throw new ConfigError("PROVGRAPH_BOOTSTRAP_TOKEN", "must be pgt_ followed by at least 22 letters, digits, '-' or '_' (make one with: npm run -s token -- generate)");
  }
  return raw.trim();
}

function parseRedisUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError("REDIS_URL", "is not a valid URL (expected redis://[user:password@]host[:port][/db] or rediss://…)");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw new ConfigError("REDIS_URL", `must start with redis:// or rediss://, got '${maskUrlPassword(value)}'`);
  if (url.hostname === "") throw new ConfigError("REDIS_URL", "names no host");
  if (url.pathname !== "" && url.pathname !== "/" && !/^\/\d+$/.test(url.pathname)) throw new ConfigError("REDIS_URL", `'${url.pathname}' is not a database number (/0, /1, …)`);
  return value;
}

/** A URL with its password replaced, safe to log (REDIS_URL, and any other URL carrying credentials). */
export function maskUrlPassword(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = "****";
    return url.toString();
  } catch {
    return value.replace(/:\/\/([^:@/]*):[^@/]*@/, "://$1:****@");
  }
}

function parsePort(raw: string | undefined): number {
  return parseInteger("PORT", raw, 4000, 0, 65535);
}

function parseInteger(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(value)) return true;
  if (["0", "false", "no", "off"].includes(value)) return false;
  throw new ConfigError(name, `must be true or false, got '${raw}'`);
}

function parseLogLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw.trim() === "") return "info";
  const value = raw.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new ConfigError("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")}, got '${raw}'`);
}

function parseSqliteSynchronous(raw: string | undefined, databaseUrl: string): SqliteSynchronous {
  if (raw === undefined || raw.trim() === "") return "NORMAL";
  const value = raw.trim().toUpperCase();
  if (!(SQLITE_SYNCHRONOUS_MODES as readonly string[]).includes(value)) throw new ConfigError("SQLITE_SYNCHRONOUS", `must be NORMAL or FULL, got '${raw}'`);
  if (!databaseUrl.startsWith("file:")) throw new ConfigError("SQLITE_SYNCHRONOUS", "is for SQLite files; PostgreSQL's durability is its own configuration (fsync, synchronous_commit)");
  return value as SqliteSynchronous;
}

function parseDatabaseReadUrl(raw: string | undefined, databaseUrl: string): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  const value = raw.trim();
  if (!/^postgres(ql)?:\/\//.test(value)) throw new ConfigError("DATABASE_READ_URL", "must be a postgres:// / postgresql:// URL (a streaming replica of DATABASE_URL)");
  if (databaseUrl.startsWith("file:")) throw new ConfigError("DATABASE_READ_URL", "is for PostgreSQL replicas; DATABASE_URL is a SQLite file, whose reads already have a connection of their own");
  try {
    new URL(value);
  } catch {
    throw new ConfigError("DATABASE_READ_URL", "is not a valid PostgreSQL URL");
  }
  return value;
}

function parseDatabaseUrl(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === "") return DEFAULT_DATABASE_URL;
  const value = raw.trim();
  if (value.startsWith("file:")) {
    if (value.length === "file:".length) throw new ConfigError("DATABASE_URL", "names no file after 'file:'");
    return value;
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new ConfigError("DATABASE_URL", "is not a valid PostgreSQL URL");
    }
    return value;
  }
  throw new ConfigError("DATABASE_URL", "must start with file: (SQLite) or postgres:// / postgresql://");
}

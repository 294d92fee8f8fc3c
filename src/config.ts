import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
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
  /**
   * WORKERS: server processes sharing the port (node:cluster; default 1). PostgreSQL only: a SQLite
   * file has one writing process, which the write path's CPU already fills (docs/performance.md).
   */
  workers: number;
  /** Events one subscriber may have waiting before it is closed with FEED_OVERFLOW. */
  feedQueueLimit: number;
  /** How many sequences back a resuming subscriber's `since` may reach (the feed log keeps that many). */
  feedReplayWindow: number;
  /** graphql-ws ping interval (ms); a socket that answers no ping within it is closed. 0 = no pings. */
  wsKeepAliveMs: number;
  /** WS_MAX_SUBSCRIPTIONS: operations open at once on one graphql-ws socket (subscriptions, and queries still running); one more is TOO_MANY_SUBSCRIPTIONS. */
  wsMaxSubscriptions: number;
  /**
   * PROVGRAPH_ERASURE_SECRET: the key of the HMAC that data-subject keys are stored as (declarations,
   * erasure plans, the suppression list); null = subjects cannot be recorded. Never log it.
   */
  erasureSecret: string | null;
  /**
   * PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE: the subject-key namespaces (before a key's first ':')
   * whose keys are compared without regard to case; `*` for every key. Default: none (case kept).
   */
  subjectKeysCaseInsensitive: readonly string[];
  /**
   * PROVGRAPH_SIGNING_KEY (or PROVGRAPH_SIGNING_KEY_FILE): the Ed25519 private key (PKCS#8 PEM) that
   * evidence packages and erasure plans are signed with; null = documents are not signed. A secret: never log it.
   */
  signingKey: string | null;
  /** PROVGRAPH_SIGNING_PREVIOUS_KEYS: public keys signed with before a rotation (each a JWK `x`, base64url), kept for verification. */
  signingPreviousKeys: readonly string[];
  /** Admission control (src/http/admission): heavy requests run at once, wait at most, and how long one may wait (ms). */
  heavyConcurrency: number;
  heavyQueueDepth: number;
  heavyQueueWaitMs: number;
  /** A /graphql or lineage request body this large (or of unknown length) is heavy work. */
  heavyBodyBytes: number;
  /** /graphql bodies declared larger are refused with 413. */
  graphqlMaxBodyBytes: number;
  /** Bodies (/graphql, the lineage routes) must arrive at this many bytes a second on average, after bodyPaceGraceMs; 0: no pace. */
  bodyMinBytesPerSecond: number;
  bodyPaceGraceMs: number;
  /** A graphql-ws message larger is refused: the socket is closed (1009) before the message is parsed. */
  wsMaxMessageBytes: number;
  /**
   * HEAVY_READ_THREADS: worker threads that run heavy reads (graph views, evidence, PROV-JSON,
   * closures; on SQLite, a search lane's rest) off the event loop, each with its own read connection;
   * 0 runs them on the event loop.
   */
  heavyReadThreads: number;
  /** QUERY_BUDGET_MS: how long a request's heavy reads may take together; past it they end with QUERY_TIMEOUT. */
  queryBudgetMs: number;
  /** RESULT_MAX_NODES: the most nodes a graph view (or entries an evidence package) one GraphQL answer carries; beyond, RESULT_TOO_LARGE. */
  resultMaxNodes: number;
  /**
   * HEAP_GROWTH_PERCENT: how much the JavaScript heaps (the event loop's and each heavy-read
   * thread's) may grow between full collections; 0 leaves it to V8, which lets a heap reach several
   * times what it holds before collecting. See heap-tuning.ts.
   */
  heapGrowthPercent: number;
  /**
   * GC_MARKING: how V8 marks a heap for a full collection. `concurrent`: on background threads while
   * JavaScript runs (V8's own way, its flags left as they are); `stepwise`: in small steps on the
   * heap's own thread, the heavy-read threads' young generations smaller; `auto` (the default):
   * stepwise on a machine of two cores or fewer, concurrent above. See heap-tuning.ts.
   */
  gcMarking: GcMarking;
  /**
   * METRICS: GET /metrics (Prometheus text). `off` (default): not served; `token`: for a token with
   * the `metrics` (or `admin`) scope; `public`: for anyone who can reach the port.
   */
  metrics: MetricsMode;
}

/**
 * A heap grows by at most a fifth between full collections: the 20,000-output stall test (a
 * recording, then evidence packages built in a thread) peaked at 700-730 MB with V8's own growth and
 * 470-480 MB with this, for the same server CPU per recording (13.0 vs 13.25 ms, 50 -> 50, interleaved).
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 20;

export const GC_MARKING_MODES = ["auto", "concurrent", "stepwise"] as const;
export type GcMarking = (typeof GC_MARKING_MODES)[number];

/** One heavy-read thread per core beyond the event loop's, at least one, at most four. */
export const DEFAULT_HEAVY_READ_THREADS = Math.max(1, Math.min(4, os.availableParallelism() - 1));

export const METRICS_MODES = ["off", "token", "public"] as const;
export type MetricsMode = (typeof METRICS_MODES)[number];

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
    workers: parseWorkers(env.WORKERS, parseDatabaseUrl(env.DATABASE_URL)),
    metrics: parseChoice("METRICS", env.METRICS, METRICS_MODES, "off"),
    feedQueueLimit: parseInteger("FEED_QUEUE_LIMIT", env.FEED_QUEUE_LIMIT, 1_000, 1, 100_000),
    feedReplayWindow: parseInteger("FEED_REPLAY_WINDOW", env.FEED_REPLAY_WINDOW, 100_000, 1, 100_000_000),
    wsKeepAliveMs: parseInteger("WS_KEEPALIVE_MS", env.WS_KEEPALIVE_MS, 12_000, 0, 3_600_000),
    wsMaxSubscriptions: parseInteger("WS_MAX_SUBSCRIPTIONS", env.WS_MAX_SUBSCRIPTIONS, 100, 1, 100_000),
    erasureSecret: parseErasureSecret(env.PROVGRAPH_ERASURE_SECRET),
    subjectKeysCaseInsensitive: parseList(env.PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE, parseSubjectKeyNamespace) ?? [],
    signingKey: parseSigningKey(env.PROVGRAPH_SIGNING_KEY, env.PROVGRAPH_SIGNING_KEY_FILE),
    signingPreviousKeys: parseList(env.PROVGRAPH_SIGNING_PREVIOUS_KEYS, parsePreviousSigningKey) ?? [],
    heavyConcurrency: parseInteger("HEAVY_CONCURRENCY", env.HEAVY_CONCURRENCY, 4, 1, 1_000),
    heavyQueueDepth: parseInteger("HEAVY_QUEUE_DEPTH", env.HEAVY_QUEUE_DEPTH, 64, 0, 100_000),
    heavyQueueWaitMs: parseInteger("HEAVY_QUEUE_WAIT_MS", env.HEAVY_QUEUE_WAIT_MS, 30_000, 1, 3_600_000),
    heavyBodyBytes: parseInteger("HEAVY_BODY_BYTES", env.HEAVY_BODY_BYTES, 256 * 1024, 1, 1024 * 1024 * 1024),
    graphqlMaxBodyBytes: parseInteger("GRAPHQL_MAX_BODY_BYTES", env.GRAPHQL_MAX_BODY_BYTES, 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    bodyMinBytesPerSecond: parseInteger("BODY_MIN_BYTES_PER_SECOND", env.BODY_MIN_BYTES_PER_SECOND, 32 * 1024, 0, 1024 * 1024 * 1024),
    bodyPaceGraceMs: parseInteger("BODY_PACE_GRACE_MS", env.BODY_PACE_GRACE_MS, 10_000, 100, 300_000),
    wsMaxMessageBytes: parseInteger("WS_MAX_MESSAGE_BYTES", env.WS_MAX_MESSAGE_BYTES, 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    heavyReadThreads: parseInteger("HEAVY_READ_THREADS", env.HEAVY_READ_THREADS, DEFAULT_HEAVY_READ_THREADS, 0, 64),
    queryBudgetMs: parseInteger("QUERY_BUDGET_MS", env.QUERY_BUDGET_MS, 30_000, 100, 3_600_000),
    resultMaxNodes: parseInteger("RESULT_MAX_NODES", env.RESULT_MAX_NODES, 10_000, 1, 1_000_000),
    heapGrowthPercent: parseInteger("HEAP_GROWTH_PERCENT", env.HEAP_GROWTH_PERCENT, DEFAULT_HEAP_GROWTH_PERCENT, 0, 400),
    gcMarking: parseChoice("GC_MARKING", env.GC_MARKING, GC_MARKING_MODES, "auto"),
  };
}

/** One of a few words (case ignored), `fallback` when unset; refused otherwise, naming the words. */
function parseChoice<T extends string>(name: string, raw: string | undefined, choices: readonly T[], fallback: T): T {
  const value = (raw ?? "").trim().toLowerCase();
  if (value === "") return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(name, `must be ${choices.slice(0, -1).join(", ")} or ${choices[choices.length - 1]}, got '${raw}'`);
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

/**
 * The signing key: PKCS#8 PEM text (literal `\n` accepted for one-line environments), or a file
 * holding it. Make one with: openssl genpkey -algorithm ed25519 -out signing-key.pem. A secret: a
 * bad one is described, never echoed.
 */
function parseSigningKey(raw: string | undefined, file: string | undefined): string | null {
  const given = raw !== undefined && raw.trim() !== "";
  const fromFile = file !== undefined && file.trim() !== "";
  if (given && fromFile) throw new ConfigError("PROVGRAPH_SIGNING_KEY", "and PROVGRAPH_SIGNING_KEY_FILE are both set: give the key one way");
  if (!given && !fromFile) return null;
  const variable = given ? "PROVGRAPH_SIGNING_KEY" : "PROVGRAPH_SIGNING_KEY_FILE";
  let pem: string;
  if (given) pem = raw!.trim().replace(/\\n/g, "\n");
  else {
    try {
      pem = fs.readFileSync(file!.trim(), "utf8").trim();
    } catch (error) {
      throw new ConfigError(variable, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`);
    }
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey(pem);
  } catch {
    throw new ConfigError(variable, "is not a private key in PEM (make one with: openssl genpkey -algorithm ed25519 -out signing-key.pem)");
  }
  if (key.asymmetricKeyType !== "ed25519") throw new ConfigError(variable, `is a ${key.asymmetricKeyType ?? "symmetric"} key; documents are signed with Ed25519 (openssl genpkey -algorithm ed25519)`);
  return pem;
}

/** A subject-key namespace (letters, digits, '.', '_', '-'; compared in lower case), or `*` for every key. */
function parseSubjectKeyNamespace(entry: string): string {
  if (entry === "*" || /^[A-Za-z0-9._-]{1,64}$/.test(entry)) return entry.toLowerCase();
  throw new ConfigError("PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE", `entry '${entry.slice(0, 80)}' is not a namespace: 1-64 letters, digits, '.', '_' or '-' (the part of a key before its first ':'), or * for every key`);
}

/** A previous public key: the `x` of its JWK (43 base64url characters: 32 bytes), as GET /api/v1/signing-keys lists it. */
function parsePreviousSigningKey(entry: string): string {
  if (!/^[A-Za-z0-9_-]{43}$/.test(entry)) throw new ConfigError("PROVGRAPH_SIGNING_PREVIOUS_KEYS", `entry '${entry.slice(0, 60)}' is not an Ed25519 public key: give the JWK "x" (43 base64url characters) the key set listed`);
  try {
    crypto.createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: entry }, format: "jwk" });
  } catch {
    throw new ConfigError("PROVGRAPH_SIGNING_PREVIOUS_KEYS", `entry '${entry}' is not an Ed25519 public key`);
  }
  return entry;
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
    throw new ConfigError("PROVGRAPH_BOOTSTRAP_TOKEN", "must be pgt_ followed by at least 22 letters, digits, '-' or '_' (make one with: provgraph token generate)");
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

function parseWorkers(raw: string | undefined, databaseUrl: string): number {
  const workers = parseInteger("WORKERS", raw, 1, 1, 64);
  if (workers > 1 && databaseUrl.startsWith("file:")) {
    throw new ConfigError("WORKERS", `is ${workers}, but a SQLite database is written by one process: WORKERS applies to PostgreSQL (leave it unset, or 1, on SQLite)`);
  }
  return workers;
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

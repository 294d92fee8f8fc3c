import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, DEFAULT_DATABASE_URL, DEFAULT_HEAVY_READ_THREADS, loadConfig, maskUrlPassword } from "../../src/config";
import { maskDatabaseUrl } from "../../src/db/database-url";

describe("configuration from the environment", () => {
  test("defaults: port 4000 on loopback, SQLite under ./data, info logs, migrate on start", () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: "127.0.0.1",
      databaseUrl: DEFAULT_DATABASE_URL,
      databaseReadUrl: null,
      sqliteSynchronous: "NORMAL",
      logLevel: "info",
      migrateOnStart: true,
      shutdownGraceMs: 10_000,
      redisUrl: null,
      workers: 1,
      feedQueueLimit: 1_000,
      feedReplayWindow: 100_000,
      wsKeepAliveMs: 12_000,
      wsMaxSubscriptions: 100,
      erasureSecret: null,
      subjectKeysCaseInsensitive: [],
      signingKey: null,
      signingPreviousKeys: [],
      heavyConcurrency: 4,
      heavyQueueDepth: 64,
      heavyQueueWaitMs: 30_000,
      heavyBodyBytes: 262_144,
      graphqlMaxBodyBytes: 52_428_800,
      bodyMinBytesPerSecond: 32_768,
      bodyPaceGraceMs: 10_000,
      heapGrowthPercent: 20,
      gcMarking: "auto",
      wsMaxMessageBytes: 10_485_760,
      heavyReadThreads: DEFAULT_HEAVY_READ_THREADS,
      queryBudgetMs: 30_000,
      resultMaxNodes: 10_000,
      metrics: "off",
    });
    expect(DEFAULT_DATABASE_URL).toBe("file:data/provgraph.db");
  });

  test("METRICS: off (default), token or public, any case; another word is refused, naming the variable", () => {
    expect(["", " Token ", "PUBLIC", "off"].map((value) => loadConfig({ METRICS: value }).metrics)).toEqual(["off", "token", "public", "off"]);
    expect(() => loadConfig({ METRICS: "maybe" })).toThrow(/METRICS.*must be off, token or public, got 'maybe'/);
  });

  test("PROVGRAPH_ERASURE_SECRET: at least 32 characters, trimmed; a bad one is described, never echoed", () => {
    const secret = "s3cr3t-".repeat(6);
    expect(loadConfig({ PROVGRAPH_ERASURE_SECRET: ` ${secret} ` }).erasureSecret).toBe(secret);
    expect(loadConfig({ PROVGRAPH_ERASURE_SECRET: "  " }).erasureSecret).toBeNull();
    const short = "too-short-secret-value";
    let message = "";
    try {
      loadConfig({ PROVGRAPH_ERASURE_SECRET: short });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toBe("invalid configuration: PROVGRAPH_ERASURE_SECRET must be at least 32 characters (make one with: openssl rand -base64 32)");
    expect(() => loadConfig({ PROVGRAPH_ERASURE_SECRET: `${secret}\u0007` })).toThrow("invalid configuration: PROVGRAPH_ERASURE_SECRET must not contain control characters");
  });

  test("PROVGRAPH_SIGNING_KEY: an Ed25519 private key in PEM (or one line with \\n, or a file); anything else is described, never echoed; previous keys are JWK x values", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const pem = String(privateKey.export({ format: "pem", type: "pkcs8" })).trim();
    expect(loadConfig({ PROVGRAPH_SIGNING_KEY: pem }).signingKey).toBe(pem);
    expect(loadConfig({ PROVGRAPH_SIGNING_KEY: pem.replace(/\n/g, "\\n") }).signingKey).toBe(pem);
    const file = path.join(os.tmpdir(), `provgraph-signing-${process.pid}.pem`);
    fs.writeFileSync(file, pem);
    try {
      expect(loadConfig({ PROVGRAPH_SIGNING_KEY_FILE: file }).signingKey).toBe(pem);
      expect(() => loadConfig({ PROVGRAPH_SIGNING_KEY_FILE: file, PROVGRAPH_SIGNING_KEY: pem })).toThrow("invalid configuration: PROVGRAPH_SIGNING_KEY and PROVGRAPH_SIGNING_KEY_FILE are both set: give the key one way");
    } finally {
      fs.rmSync(file);
    }
    expect(loadConfig({}).signingKey).toBeNull();
    expect(() => loadConfig({ PROVGRAPH_SIGNING_KEY: "not-a-key-but-secret" })).toThrow(/^invalid configuration: PROVGRAPH_SIGNING_KEY is not a private key in PEM/);
    expect(() => loadConfig({ PROVGRAPH_SIGNING_KEY: "not-a-key-but-secret" })).not.toThrow(/not-a-key-but-secret/);
    const rsa = String(generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ format: "pem", type: "pkcs8" }));
    expect(() => loadConfig({ PROVGRAPH_SIGNING_KEY: rsa })).toThrow("invalid configuration: PROVGRAPH_SIGNING_KEY is a rsa key; documents are signed with Ed25519 (openssl genpkey -algorithm ed25519)");
    expect(() => loadConfig({ PROVGRAPH_SIGNING_KEY_FILE: "/nonexistent/key.pem" })).toThrow("invalid configuration: PROVGRAPH_SIGNING_KEY_FILE cannot be read: ENOENT");
    const x = (publicKey.export({ format: "jwk" }) as { x: string }).x;
    expect(loadConfig({ PROVGRAPH_SIGNING_PREVIOUS_KEYS: ` ${x}, ${x}` }).signingPreviousKeys).toEqual([x]);
    expect(loadConfig({}).signingPreviousKeys).toEqual([]);
    expect(() => loadConfig({ PROVGRAPH_SIGNING_PREVIOUS_KEYS: "abc" })).toThrow(/^invalid configuration: PROVGRAPH_SIGNING_PREVIOUS_KEYS entry 'abc' is not an Ed25519 public key/);
  });

  test("PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE: namespaces (lower-cased) or *; anything else is refused", () => {
    expect(loadConfig({ PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE: "Email, user_id" }).subjectKeysCaseInsensitive).toEqual(["email", "user_id"]);
    expect(loadConfig({ PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE: "*" }).subjectKeysCaseInsensitive).toEqual(["*"]);
    expect(() => loadConfig({ PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE: "e:mail" })).toThrow("invalid configuration: PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE entry 'e:mail' is not a namespace");
  });

  test("explicit values are used", () => {
    const config = loadConfig({ PORT: "4555", HOST: "::1", DATABASE_URL: "postgres://u:p@db:5432/x", LOG_LEVEL: "DEBUG", MIGRATE_ON_START: "false" });
    expect(config).toMatchObject({ port: 4555, host: "::1", databaseUrl: "postgres://u:p@db:5432/x", logLevel: "debug", migrateOnStart: false });
  });

  test("feeds: REDIS_URL (redis:// or rediss://, an optional database number), queue bound, replay window, WebSocket keep-alive", () => {
    const config = loadConfig({ REDIS_URL: " rediss://feeds:s3cret@cache.internal:6380/2 ", FEED_QUEUE_LIMIT: "50", FEED_REPLAY_WINDOW: "5000", WS_KEEPALIVE_MS: "0" });
    expect(config).toMatchObject({ redisUrl: "rediss://feeds:s3cret@cache.internal:6380/2", feedQueueLimit: 50, feedReplayWindow: 5000, wsKeepAliveMs: 0 });
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1" }).redisUrl).toBe("redis://127.0.0.1");
    expect(loadConfig({ REDIS_URL: "  " }).redisUrl).toBeNull();
  });

  test("WORKERS: server processes on one port, 1 by default; more than one only on PostgreSQL (a SQLite file has one writing process)", () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ WORKERS: "3", DATABASE_URL: "postgresql://u@localhost:5432/p" }).workers).toBe(3);
    expect(loadConfig({ WORKERS: "1", DATABASE_URL: "file:./data/x.db" }).workers).toBe(1);
    expect(() => loadConfig({ WORKERS: "2", DATABASE_URL: "file:./data/x.db" })).toThrow(/^invalid configuration: WORKERS is 2, but a SQLite database is written by one process/);
    expect(() => loadConfig({ WORKERS: "0", DATABASE_URL: "postgresql://u@localhost:5432/p" })).toThrow("invalid configuration: WORKERS must be between 1 and 64, got 0");
  });

  test("admission control: HEAVY_CONCURRENCY, HEAVY_QUEUE_DEPTH, HEAVY_QUEUE_WAIT_MS, HEAVY_BODY_BYTES, GRAPHQL_MAX_BODY_BYTES", () => {
    const config = loadConfig({ HEAVY_CONCURRENCY: "2", HEAVY_QUEUE_DEPTH: "0", HEAVY_QUEUE_WAIT_MS: "500", HEAVY_BODY_BYTES: "1024", GRAPHQL_MAX_BODY_BYTES: "2048" });
    expect(config).toMatchObject({ heavyConcurrency: 2, heavyQueueDepth: 0, heavyQueueWaitMs: 500, heavyBodyBytes: 1024, graphqlMaxBodyBytes: 2048 });
    expect(() => loadConfig({ HEAVY_CONCURRENCY: "0" })).toThrow("invalid configuration: HEAVY_CONCURRENCY must be between 1 and 1000, got 0");
  });

  test("a body's pace: BODY_MIN_BYTES_PER_SECOND (0: none), BODY_PACE_GRACE_MS", () => {
    expect(loadConfig({ BODY_MIN_BYTES_PER_SECOND: "0", BODY_PACE_GRACE_MS: "500" })).toMatchObject({ bodyMinBytesPerSecond: 0, bodyPaceGraceMs: 500 });
    expect(() => loadConfig({ BODY_MIN_BYTES_PER_SECOND: "-1" })).toThrow("invalid configuration: BODY_MIN_BYTES_PER_SECOND must be a whole number, got '-1'");
    expect(() => loadConfig({ BODY_PACE_GRACE_MS: "10" })).toThrow("invalid configuration: BODY_PACE_GRACE_MS must be between 100 and 300000, got 10");
  });

  test("heavy reads: HEAVY_READ_THREADS (default one per core beyond the event loop's, 1 to 4; 0 = on the event loop), QUERY_BUDGET_MS, RESULT_MAX_NODES, WS_MAX_MESSAGE_BYTES", () => {
    expect(DEFAULT_HEAVY_READ_THREADS).toBe(Math.max(1, Math.min(4, os.availableParallelism() - 1)));
    const config = loadConfig({ HEAVY_READ_THREADS: "0", QUERY_BUDGET_MS: "5000", RESULT_MAX_NODES: "500", WS_MAX_MESSAGE_BYTES: "65536" });
    expect(config).toMatchObject({ heavyReadThreads: 0, queryBudgetMs: 5_000, resultMaxNodes: 500, wsMaxMessageBytes: 65_536 });
    expect(() => loadConfig({ QUERY_BUDGET_MS: "10" })).toThrow("invalid configuration: QUERY_BUDGET_MS must be between 100 and 3600000, got 10");
    expect(() => loadConfig({ HEAVY_READ_THREADS: "65" })).toThrow("invalid configuration: HEAVY_READ_THREADS must be between 0 and 64, got 65");
  });

  test("HEAP_GROWTH_PERCENT: 20 by default, 0 (V8's own growth) to 400", () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(20);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: "0" }).heapGrowthPercent).toBe(0);
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: "500" })).toThrow("invalid configuration: HEAP_GROWTH_PERCENT must be between 0 and 400, got 500");
  });

  test.each([
    [{ PORT: "http" }, "invalid configuration: PORT must be a whole number, got 'http'"],
    [{ PORT: "70000" }, "invalid configuration: PORT must be between 0 and 65535, got 70000"],
    [{ LOG_LEVEL: "loud" }, "invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'"],
    [{ DATABASE_URL: "mysql://x" }, "invalid configuration: DATABASE_URL must start with file: (SQLite) or postgres:// / postgresql://"],
    [{ DATABASE_URL: "file:" }, "invalid configuration: DATABASE_URL names no file after 'file:'"],
    [{ MIGRATE_ON_START: "maybe" }, "invalid configuration: MIGRATE_ON_START must be true or false, got 'maybe'"],
    [{ DATABASE_URL: "postgres://u@db/x", DATABASE_READ_URL: "file:replica.db" }, "invalid configuration: DATABASE_READ_URL must be a postgres:// / postgresql:// URL (a streaming replica of DATABASE_URL)"],
    [
      { DATABASE_READ_URL: "postgres://u@replica/x" },
      "invalid configuration: DATABASE_READ_URL is for PostgreSQL replicas; DATABASE_URL is a SQLite file, whose reads already have a connection of their own",
    ],
    [{ SQLITE_SYNCHRONOUS: "off" }, "invalid configuration: SQLITE_SYNCHRONOUS must be NORMAL or FULL, got 'off'"],
    [{ DATABASE_URL: "postgres://u@db/x", SQLITE_SYNCHRONOUS: "FULL" }, "invalid configuration: SQLITE_SYNCHRONOUS is for SQLite files; PostgreSQL's durability is its own configuration (fsync, synchronous_commit)"],
    [{ REDIS_URL: "localhost:6379" }, "invalid configuration: REDIS_URL must start with redis:// or rediss://, got 'localhost:6379'"],
    [{ REDIS_URL: "http://u:hunter2@cache:6379" }, "invalid configuration: REDIS_URL must start with redis:// or rediss://, got 'http://u:****@cache:6379/'"],
    [{ REDIS_URL: "redis://" }, "invalid configuration: REDIS_URL names no host"],
    [{ REDIS_URL: "redis://[oops" }, "invalid configuration: REDIS_URL is not a valid URL (expected redis://[user:password@]host[:port][/db] or rediss://…)"],
    [{ REDIS_URL: "redis://cache/feeds" }, "invalid configuration: REDIS_URL '/feeds' is not a database number (/0, /1, …)"],
    [{ FEED_QUEUE_LIMIT: "0" }, "invalid configuration: FEED_QUEUE_LIMIT must be between 1 and 100000, got 0"],
    [{ FEED_REPLAY_WINDOW: "lots" }, "invalid configuration: FEED_REPLAY_WINDOW must be a whole number, got 'lots'"],
    [{ WS_KEEPALIVE_MS: "-5" }, "invalid configuration: WS_KEEPALIVE_MS must be a whole number, got '-5'"],
  ])("%j is refused with a clear message", (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError("", "").constructor as typeof ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  test("DATABASE_READ_URL sends reads to a PostgreSQL replica of DATABASE_URL", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://u:p@primary:5432/prov", DATABASE_READ_URL: " postgresql://u:p@replica:5432/prov " })).toMatchObject({
      databaseUrl: "postgres://u:p@primary:5432/prov",
      databaseReadUrl: "postgresql://u:p@replica:5432/prov",
    });
    expect(loadConfig({ DATABASE_URL: "postgres://u:p@primary:5432/prov", DATABASE_READ_URL: "" }).databaseReadUrl).toBeNull();
  });

  test("SQLITE_SYNCHRONOUS chooses how durable a SQLite commit is (NORMAL unless set)", () => {
    expect(loadConfig({ SQLITE_SYNCHRONOUS: " full " }).sqliteSynchronous).toBe("FULL");
    expect(loadConfig({ SQLITE_SYNCHRONOUS: "Normal" }).sqliteSynchronous).toBe("NORMAL");
    expect(loadConfig({}).sqliteSynchronous).toBe("NORMAL");
  });

  test("passwords are masked in database URLs", () => {
    expect(maskDatabaseUrl("postgresql://app:s3cret@db.internal:5432/prov")).toBe("postgresql://app:****@db.internal:5432/prov");
    expect(maskDatabaseUrl("file:./data/x.db")).toBe("file:./data/x.db");
  });

  test("passwords are masked in Redis URLs (with or without a user name)", () => {
    expect(maskUrlPassword("redis://feeds:s3cret@cache:6379/0")).toBe("redis://feeds:****@cache:6379/0");
    expect(maskUrlPassword("rediss://:s3cret@cache:6380")).toBe("rediss://:****@cache:6380");
    expect(maskUrlPassword("redis://cache:6379")).toBe("redis://cache:6379");
  });
});

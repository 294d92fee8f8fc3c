import path from "node:path";

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
  logLevel: LogLevel;
  /** Apply pending migrations at start-up (default true; `MIGRATE_ON_START=false` to disable). */
  migrateOnStart: boolean;
  /** How long SIGTERM waits for in-flight requests before closing connections (ms). */
  shutdownGraceMs: number;
}

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
    logLevel: parseLogLevel(env.LOG_LEVEL),
    migrateOnStart: parseBoolean("MIGRATE_ON_START", env.MIGRATE_ON_START, true),
    shutdownGraceMs: parseInteger("SHUTDOWN_GRACE_MS", env.SHUTDOWN_GRACE_MS, 10_000, 0, 600_000),
  };
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

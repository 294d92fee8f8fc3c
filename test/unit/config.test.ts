import { ConfigError, DEFAULT_DATABASE_URL, loadConfig } from "../../src/config";
import { maskDatabaseUrl } from "../../src/db/database-url";

describe("configuration from the environment", () => {
  test("defaults: port 4000 on loopback, SQLite under ./data, info logs, migrate on start", () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: "127.0.0.1",
      databaseUrl: DEFAULT_DATABASE_URL,
      databaseReadUrl: null,
      logLevel: "info",
      migrateOnStart: true,
      shutdownGraceMs: 10_000,
    });
    expect(DEFAULT_DATABASE_URL).toBe("file:data/provgraph.db");
  });

  test("explicit values are used", () => {
    const config = loadConfig({ PORT: "4555", HOST: "::1", DATABASE_URL: "postgres://u:p@db:5432/x", LOG_LEVEL: "DEBUG", MIGRATE_ON_START: "false" });
    expect(config).toMatchObject({ port: 4555, host: "::1", databaseUrl: "postgres://u:p@db:5432/x", logLevel: "debug", migrateOnStart: false });
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

  test("passwords are masked in database URLs", () => {
    expect(maskDatabaseUrl("postgresql://app:s3cret@db.internal:5432/prov")).toBe("postgresql://app:****@db.internal:5432/prov");
    expect(maskDatabaseUrl("file:./data/x.db")).toBe("file:./data/x.db");
  });
});

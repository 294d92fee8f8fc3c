import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type PgModule from "pg";
import { type DatabaseProvider, providerOf, sqliteFilePath } from "./database-url";

/**
 * Applies the committed migrations (prisma/<provider>/migrations/*) to a database.
 *
 * Prisma 7's own `migrate deploy` needs the native schema engine, which cannot be downloaded
 * here (see ../shared/notes/prisma-offline.md); creating migrations goes through
 * scripts/wasm-migrate.mjs. Applying them is plain SQL, so start-up does it with the raw
 * drivers, bookkeeping in Prisma's own `_prisma_migrations` table (same columns, same sha256
 * checksum) so Prisma's tooling sees the same history.
 */
export interface MigrationResult {
  applied: string[];
  /**
   * Migrations the database has and this version does not know: a newer provgraph migrated it. Safe
   * during a rolling upgrade whose migrations only add; never a state to stay in (docs/operating/deployment.md "Upgrades").
   */
  unknown: string[];
}

const PRISMA_MIGRATIONS_DDL: Record<DatabaseProvider, string> = {
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
    "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
  postgres: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
};

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationsDirectory(provider: DatabaseProvider): string {
  const folder = provider === "sqlite" ? "sqlite" : "postgres";
  // Walk up from this file: it runs from src/db (tsx, jest) and from dist/src/db (npm start).
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, "prisma", folder, "migrations");
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error(`cannot find prisma/${folder}/migrations above ${__dirname}`);
}

export function readMigrations(provider: DatabaseProvider): Migration[] {
  const dir = migrationsDirectory(provider);
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
    });
}

export async function migrateDatabase(url: string): Promise<MigrationResult> {
  const provider = providerOf(url);
  const migrations = readMigrations(provider);
  return provider === "sqlite" ? migrateSqlite(url, migrations) : migratePostgres(url, migrations);
}

function migrateSqlite(url: string, migrations: Migration[]): MigrationResult {
  const file = sqliteFilePath(url);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  try {
    // WAL persists in the file: readers never block the writer.
    db.pragma("journal_mode = WAL");
    db.exec(PRISMA_MIGRATIONS_DDL.sqlite);
    const applied = new Set(
      (db.prepare(`SELECT migration_name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`).all() as { migration_name: string }[]).map(
        (row) => row.migration_name,
      ),
    );
    const done: string[] = [];
    for (const migration of migrations.filter((m) => !applied.has(m.name))) {
      db.transaction(() => {
        db.exec(migration.sql);
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`,
        ).run(crypto.randomUUID(), migration.checksum, Date.now(), migration.name, Date.now());
      })();
      done.push(migration.name);
    }
    return { applied: done, unknown: [...applied].filter((name) => !migrations.some((m) => m.name === name)).sort() };
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<MigrationResult> {
  // Loaded here: a server on SQLite never loads pg (start-up time).
  const pg = require("pg") as typeof PgModule;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    // Several instances may start at once: one migrates, the others wait for it.
    await client.query("SELECT pg_advisory_lock(72707369)");
    await client.query(PRISMA_MIGRATIONS_DDL.postgres);
    const { rows } = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`,
    );
    const applied = new Set(rows.map((row) => row.migration_name));
    const done: string[] = [];
    for (const migration of migrations.filter((m) => !applied.has(m.name))) {
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, now(), 1)`,
          [crypto.randomUUID(), migration.checksum, migration.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
      done.push(migration.name);
    }
    await client.query("SELECT pg_advisory_unlock(72707369)");
    return { applied: done, unknown: [...applied].filter((name) => !migrations.some((m) => m.name === name)).sort() };
  } finally {
    await client.end();
  }
}

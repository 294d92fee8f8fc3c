import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { type Database, openDatabase } from "../../src/db/client";
import { migrateDatabase } from "../../src/db/migrate";

/**
 * A fresh, migrated database per test file: a temporary SQLite file by default, or a new
 * PostgreSQL database on the server TEST_DATABASE_URL points at (CI runs the suite both ways).
 */
export interface TestDatabase {
  url: string;
  database: Database;
  drop(): Promise<void>;
}

export const testProvider = process.env.TEST_DATABASE_URL ? "postgres" : "sqlite";

export async function createTestDatabaseUrl(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-test-"));
    return { url: `file:${path.join(dir, "test.db")}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `provgraph_test_${randomUUID().replace(/-/g, "")}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const { url, drop } = await createTestDatabaseUrl();
  await migrateDatabase(url);
  const database = openDatabase(url);
  return {
    url,
    database,
    drop: async () => {
      await database.close();
      await drop();
    },
  };
}

async function withAdmin<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

import { randomUUID } from "node:crypto";
import pg from "pg";

/** Throwaway databases on the PostgreSQL server `--pg <url>` names (its maintenance database), one per bench side. */
export async function createPgDatabase(adminUrl: string, label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `provgraph_bench_${label}_${randomUUID().slice(0, 8)}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  return { url: pgDatabaseUrl(adminUrl, name), drop: () => dropPgDatabase(adminUrl, name) };
}

export function pgDatabaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function pgDatabaseExists(adminUrl: string, name: string): Promise<boolean> {
  return withAdmin(adminUrl, async (client) => (await client.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount === 1);
}

export async function ensurePgDatabase(adminUrl: string, name: string): Promise<void> {
  if (!(await pgDatabaseExists(adminUrl, name))) await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
}

export async function dropPgDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
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

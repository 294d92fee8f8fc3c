import { maskDatabaseUrl } from "../../db/database-url";
import { migrateDatabase } from "../../db/migrate";
import { CliError, ExitCode } from "../exit-codes";
import { localConfig } from "../local-config";
import type { Output } from "../output";

/** `provgraph migrate`: what start-up does to DATABASE_URL, alone (for servers run with MIGRATE_ON_START=false). */
export async function migrate(out: Output): Promise<number> {
  const { databaseUrl } = localConfig();
  let applied: string[];
  try {
    ({ applied } = await migrateDatabase(databaseUrl));
  } catch (error) {
    throw new CliError(`cannot migrate ${maskDatabaseUrl(databaseUrl)}: ${(error as Error).message}`, ExitCode.LOCAL);
  }
  out.stdout(applied.length ? `Applied ${applied.length} migration(s) to ${maskDatabaseUrl(databaseUrl)}: ${applied.join(", ")}` : `No pending migrations on ${maskDatabaseUrl(databaseUrl)}.`);
  return ExitCode.OK;
}

// Applies pending migrations to DATABASE_URL (default: the embedded SQLite file) and exits:
// what start-up does, for deployments that run servers with MIGRATE_ON_START=false.
import { loadConfig } from "../src/config";
import { maskDatabaseUrl } from "../src/db/database-url";
import { migrateDatabase } from "../src/db/migrate";

const { databaseUrl } = loadConfig();
migrateDatabase(databaseUrl).then(
  ({ applied }) => {
    console.log(applied.length ? `Applied ${applied.length} migration(s) to ${maskDatabaseUrl(databaseUrl)}: ${applied.join(", ")}` : `No pending migrations on ${maskDatabaseUrl(databaseUrl)}.`);
  },
  (error: Error) => {
    console.error(`provgraph: cannot migrate ${maskDatabaseUrl(databaseUrl)}: ${error.message}`);
    process.exit(1);
  },
);

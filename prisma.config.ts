import fs from "node:fs";
import path from "node:path";
import { defineConfig } from "prisma/config";

// The Prisma CLI fetches the native schema-engine binary before generate/validate/format/
// migrate/db, even though `generate` never runs it; its download host is unreachable here.
// Point it at a stub. Migrations are created by scripts/wasm-migrate.mjs and applied by src/db/migrate.ts.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(__dirname, "scripts/no-schema-engine.sh");

// The scratch database `npm run db:migrate` / `db:check` work against (never the server's).
const scratchDatabase = path.join(__dirname, "data", "dev-migrate.db");
fs.mkdirSync(path.dirname(scratchDatabase), { recursive: true });

export default defineConfig({
  // The search index is written by hand (its migration holds what Prisma's schema cannot say: an FTS5
  // table on SQLite, GIN indexes on PostgreSQL); migrations leave these tables to it.
  experimental: { externalTables: true },
  tables: { external: ["SearchEntry", "SearchNamespace", "SearchLabelText", "SearchLabelText_config", "SearchLabelText_data", "SearchLabelText_idx", "SearchLabelText_docsize", "SearchGuardedText", "SearchGuardedText_config", "SearchGuardedText_data", "SearchGuardedText_idx", "SearchGuardedText_docsize"] },
  schema: "prisma/sqlite",
  migrations: { path: "prisma/sqlite/migrations" },
  datasource: { url: `file:${scratchDatabase}` },
});

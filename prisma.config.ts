import path from "node:path";
import { defineConfig } from "prisma/config";

// The Prisma CLI fetches the native schema-engine binary before generate/validate/format/
// migrate/db, even though `generate` never runs it; its download host is unreachable here.
// Point it at a stub. Migrations are created by scripts/wasm-migrate.mjs and applied by src/db/migrate.ts.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(__dirname, "scripts/no-schema-engine.sh");

export default defineConfig({
  schema: "prisma/sqlite",
  migrations: { path: "prisma/sqlite/migrations" },
  datasource: { url: process.env.DATABASE_URL?.startsWith("file:") ? process.env.DATABASE_URL : "file:./data/dev-migrate.db" },
});

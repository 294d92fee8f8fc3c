/**
 * A provgraph with the Explorer's story recorded, for looking at the page by hand:
 * `npx tsx explorer/scripts/dev-server.ts [port]` (default 46080), on a temporary SQLite store.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { seedStore } from "../test/support/seed-store";

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-explorer-dev-"));
  const app = await buildApp(loadConfig({ DATABASE_URL: `file:${path.join(dir, "dev.db")}`, PORT: process.argv[2] ?? "46080", HOST: "127.0.0.1", LOG_LEVEL: "warn" }));
  const url = await app.start();
  const seeded = await seedStore({ url });
  console.log(JSON.stringify({ url, explorer: url.replace(/\/graphql$/, "/explorer/"), seeded }, null, 2));
  const stop = async () => {
    await app.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

void main();

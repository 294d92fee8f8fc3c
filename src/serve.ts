import cluster from "node:cluster";
import type { buildApp as BuildApp } from "./app";
import { ConfigError, loadConfig } from "./config";
import { maskDatabaseUrl } from "./db/database-url";
import { tuneHeaps } from "./heap-tuning";
import { checkListenable, ListenError } from "./http/listen";
import { maskSecrets } from "./secret-masking";

/**
 * Runs provgraph until SIGTERM/SIGINT, then drains in-flight requests and exits 0: what `npm start`
 * (src/main.ts) and `provgraph serve` both run. Resolves once it listens.
 */
export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const heaps = tuneHeaps(config);
  // WORKERS=N: this process starts N workers (each runs what follows) and serves nothing itself.
  if (config.workers > 1 && cluster.isPrimary) return (require("./workers") as typeof import("./workers")).servePrimary(config);
  // Before anything is created on disk: a busy port must not leave a new database file behind (a worker's port is its primary's).
  if (!cluster.isWorker) await checkListenable(config.port, config.host);
  // Loaded after the checks, so a bad configuration or a busy port is reported at once.
  const { buildApp } = require("./app") as { buildApp: typeof BuildApp };
  const app = await buildApp(config);
  const url = await app.start();
  // A worker says so for itself; its primary says "provgraph listening" once every worker listens.
  if (cluster.isWorker) app.logger.info({ url, worker: cluster.worker?.id, pid: process.pid }, "worker listening");
  else app.logger.info({ url, database: maskDatabaseUrl(config.databaseUrl), auth: app.authMode, heaps }, `provgraph listening on ${url}`);
  let signalled = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    app.logger.info({ signal }, "shutting down: draining in-flight requests");
    app.stop().then(
      () => {
        app.logger.info("stopped");
        process.exit(0);
      },
      (error) => {
        app.logger.error({ err: error }, "error while stopping");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

/** Start-up failed: one line a person can act on (what failed and why; no stack for expected failures), exit 1. */
export function exitOnStartupFailure(error: unknown): never {
  const expected =
    error instanceof ConfigError || error instanceof ListenError || ["DatabaseUnavailableError", "SqliteFileInUseError", "AuthSetupError"].includes((error as Error)?.name);
  console.error(maskSecrets(`provgraph: ${expected ? (error as Error).message : ((error as Error)?.stack ?? String(error))}`));
  process.exit(1);
}

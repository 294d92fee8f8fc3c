import cluster, { type Worker } from "node:cluster";
import type { Config } from "./config";
import { maskDatabaseUrl } from "./db/database-url";
import { checkListenable } from "./http/listen";
import { createLogger } from "./logger";
import { relayClusterNotices } from "./pubsub";

/**
 * WORKERS=N on PostgreSQL: N server processes on one port (node:cluster; the primary hands each
 * new connection to a worker in turn). They share everything a deployment of several instances
 * shares — the database (recordings, idempotency keys, the feed log) and the feed notices (Redis
 * with REDIS_URL, else this primary relays them between workers) — so a run recorded through any
 * worker reaches the subscribers of every worker. The primary serves nothing itself: it checks the
 * port, migrates once, starts the first worker (whose start-up creates what start-up creates: the
 * bootstrap token…) and then the others, replaces a worker that dies, and on SIGTERM/SIGINT has
 * every worker drain and stop. It says "provgraph listening" once all of them listen.
 */
export async function servePrimary(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  await checkListenable(config.port, config.host);
  if (config.migrateOnStart) {
    const { migrateDatabase } = require("./db/migrate") as typeof import("./db/migrate");
    const { applied } = await migrateDatabase(config.databaseUrl);
    if (applied.length) logger.info({ applied }, "applied database migrations");
  }
  relayClusterNotices();
  let stopping = false;
  // The workers migrate nothing (done above); the rest of their configuration is the primary's.
  const fork = () => cluster.fork({ MIGRATE_ON_START: "false" });
  const listening = (worker: Worker) =>
    new Promise<number>((resolve, reject) => {
      worker.once("listening", (address) => resolve(address.port));
      worker.once("exit", (code) => reject(new Error(`worker ${worker.id} exited (${code}) before it listened`)));
    });
  const first = fork();
  const port = await listening(first);
  await Promise.all(Array.from({ length: config.workers - 1 }, () => listening(fork())));
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    logger.error({ worker: worker.id, pid: worker.process.pid, code, signal }, "a worker stopped: starting another");
    fork();
  });
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}/graphql`;
  logger.info({ url, database: maskDatabaseUrl(config.databaseUrl), workers: config.workers }, `provgraph listening on ${url}`);
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: every worker drains its in-flight requests");
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    let failed = false;
    void Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            worker.once("exit", (code) => {
              if (code !== 0) failed = true;
              resolve();
            });
            worker.process.kill("SIGTERM");
          }),
      ),
    ).then(() => {
      logger.info("stopped");
      process.exit(failed ? 1 : 0);
    });
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

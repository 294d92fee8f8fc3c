import { Worker } from "node:worker_threads";

/**
 * SQLite's WAL checkpoints, off the event loop. By default the connection that commits checkpoints
 * the WAL inside that COMMIT once it passes 1,000 pages: a synchronous copy of every page written
 * since into the database file, with fsyncs — hundreds of milliseconds after a 30,000-output
 * recording, during which the process answers nothing. So the writer turns that off
 * (wal_autocheckpoint = 0) and a worker thread with a connection of its own runs PASSIVE checkpoints
 * a few times a second. Only PASSIVE ones: they never block the writer (a TRUNCATE holds the write
 * lock while it copies, seconds after a big recording on a slow disk); the writer's
 * journal_size_limit keeps the WAL file from staying large once it restarts it.
 */
export interface WalCheckpointer {
  /** Checkpoints now and resolves when done (tests, shutdown). */
  checkpoint(): Promise<void>;
  stop(): Promise<void>;
}

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
const checkpoint = () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // busy (a checkpoint elsewhere): the next pass does it
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message === "stop") {
    clearInterval(timer);
    checkpoint();
    db.close();
    parentPort.postMessage("stopped");
  } else {
    checkpoint();
    parentPort.postMessage("checkpointed");
  }
});
`;

export function startWalCheckpointer(file: string, intervalMs = 200): WalCheckpointer {
  const worker = new Worker(WORKER, { eval: true, workerData: { file, intervalMs, driver: require.resolve("better-sqlite3") } });
  worker.unref();
  const ask = (message: "checkpoint" | "stop", answer: string) =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (reply: unknown) => {
        if (reply !== answer) return;
        worker.off("message", onMessage);
        worker.off("error", reject);
        resolve();
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
      worker.postMessage(message);
    });
  let stopped: Promise<void> | undefined;
  return {
    checkpoint: () => ask("checkpoint", "checkpointed"),
    stop: () =>
      (stopped ??= ask("stop", "stopped")
        .catch(() => undefined)
        .then(() => worker.terminate())
        .then(() => undefined)),
  };
}

import fs from "node:fs";
import path from "node:path";

/**
 * Resolves as soon as the database writes to `target` (a file: SQLite's -wal; or a directory:
 * PostgreSQL's pg_wal), or after `timeoutMs` when nothing is written. A kill right after a write
 * lands just after some commit, where a recording split across two transactions is half-written;
 * a kill on a timer alone lands there only by luck.
 */
export function nextWrite(target: string, timeoutMs: number): Promise<"write" | "timeout"> {
  return new Promise((resolve) => {
    let watcher: fs.FSWatcher | null = null;
    const done = (how: "write" | "timeout") => {
      clearTimeout(timer);
      watcher?.close();
      watcher = null;
      resolve(how);
    };
    const timer = setTimeout(() => done("timeout"), timeoutMs);
    try {
      watcher = fs.watch(fs.existsSync(target) ? target : path.dirname(target), () => done("write"));
      watcher.on("error", () => done("timeout"));
    } catch {
      // nothing to watch yet: the timer decides
    }
  });
}

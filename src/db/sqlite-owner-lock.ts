import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";

/**
 * One server process per SQLite file (issue 13, point 6): a second process writing the same file
 * met SQLITE_BUSY / BUSY_SNAPSHOT on a large share of its writes, and several instances are what
 * PostgreSQL is for. The lock is a write lock SQLite holds on a sidecar file (`<file>.lock`) for
 * the life of the process: the operating system drops it when the process ends, however it ends
 * (SIGKILL included), so no stale lock outlives a crash. It is taken per process: the app's own
 * connections (writer, reader, the WAL checkpointer's) never touch the sidecar, and several apps
 * built in one process (tests) share it.
 */
export class SqliteFileInUseError extends Error {
  constructor(readonly file: string) {
    super(`SQLite file ${file} is in use by another provgraph process: one process per SQLite file (stop the other one, or use PostgreSQL for several instances)`);
    this.name = "SqliteFileInUseError";
  }
}

interface Held {
  handle: BetterSqlite3.Database;
  holders: number;
}

const held = new Map<string, Held>();

/** Takes (or shares, within this process) the lock of `file`; returns its release. Throws SqliteFileInUseError when another process holds it. */
export function lockSqliteFile(file: string): () => void {
  const lockFile = `${file}.lock`;
  let entry = held.get(lockFile);
  if (!entry) {
    // The lock is taken first of all, before the database (and its folder) exists: `file:data/provgraph.db` on a fresh checkout.
    fs.mkdirSync(path.dirname(lockFile), { recursive: true });
    const handle = new BetterSqlite3(lockFile, { timeout: 0 });
    try {
      // A RESERVED lock: another process's BEGIN IMMEDIATE fails at once with SQLITE_BUSY. Nothing is
      // written under it, so the sidecar never holds a journal to recover.
      handle.exec("BEGIN IMMEDIATE");
    } catch (error) {
      handle.close();
      if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) throw new SqliteFileInUseError(file);
      throw error;
    }
    entry = { handle, holders: 0 };
    held.set(lockFile, entry);
  }
  entry.holders += 1;
  let released = false;
  const owned = entry;
  return () => {
    if (released) return;
    released = true;
    owned.holders -= 1;
    if (owned.holders > 0) return;
    held.delete(lockFile);
    owned.handle.exec("ROLLBACK");
    owned.handle.close();
  };
}

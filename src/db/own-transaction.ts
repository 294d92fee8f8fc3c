import type { Db, DbTx } from "./client";

/**
 * Runs `fn` in a transaction of its own on the writer, for the few writes outside the commit path
 * (tokens, audit entries written after a mutation). On SQLite the writer is one connection and its
 * driver adapter only queues transactions: a bare statement sent while the commit path has one open
 * runs inside it, and would commit or roll back with other callers' recordings. A transaction of its
 * own waits its turn instead.
 */
export function ownTransaction<T>(db: Db, fn: (tx: DbTx) => Promise<T>): Promise<T> {
  return db.$transaction(fn);
}

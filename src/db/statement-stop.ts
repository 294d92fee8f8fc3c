import type BetterSqlite3 from "better-sqlite3";
import { sqliteDriverHandle } from "./reused-statements";

/**
 * SQLite: a statement that can end itself. better-sqlite3 cannot interrupt a running statement, so
 * one that may read for long (the rest of a search lane, in a heavy-read thread) calls this function
 * every so many rows (stopCheckSql). It runs the check set for the work in progress (whileStoppable:
 * a heavy read's time budget, and whether its client went away), whose error ends the statement and
 * comes out of it as thrown. Without a check, it does nothing.
 */
export const STOP_FUNCTION = "provgraph_stop";

let check: (() => void) | null = null;

/** Gives a read connection the stop function (registered on each SQLite read connection as it opens). */
export function registerStopFunction(client: unknown): void {
  const handle: BetterSqlite3.Database | undefined = sqliteDriverHandle(client);
  handle?.function(STOP_FUNCTION, { deterministic: false, varargs: false }, () => {
    check?.();
    return 0;
  });
}

/**
 * Runs `work` with `stop` as the check the stop function runs. One piece of work at a time: a
 * heavy-read thread runs one task at a time; on the event loop, where requests interleave, nothing
 * sets it.
 */
export async function whileStoppable<T>(stop: () => void, work: () => Promise<T>): Promise<T> {
  check = stop;
  try {
    return await work();
  } finally {
    check = null;
  }
}

/**
 * A condition true of every row that calls the stop function on about one row in `every` (`rowid`:
 * the SQL of the row's integer id). Written before a statement's other conditions, so that rows they
 * refuse are counted too. A call costs about a microsecond: one in 256 rows is nothing beside the
 * row's own reading, and a statement of SQLite reads 256 rows in well under a millisecond.
 */
export function stopCheckSql(rowid: string, every = 256): string {
  return `(${rowid} % ${every} <> 0 OR ${STOP_FUNCTION}() = 0)`;
}

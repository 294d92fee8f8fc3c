import type BetterSqlite3 from "better-sqlite3";
import { sqliteDriverHandle } from "./reused-statements";

/**
 * SQLite: a statement that can end itself. better-sqlite3 cannot interrupt a running statement, so
 * one that may read for long (a search lane's rest, a recursive walk; in a heavy-read thread) calls
 * this function every so many rows (stopCheckSql). It runs the check set for the work in progress
 * (whileStoppable: a heavy read's time budget, and whether its client went away), whose error ends
 * the statement and the work. Without a check, it does nothing.
 */
export const STOP_FUNCTION = "provgraph_stop";

let check: (() => void) | null = null;
/** What the check threw, while the work it was set for runs: a statement read through Prisma comes out as Prisma's error, not the check's. */
let stoppedBy: { error: unknown } | null = null;

/** Gives a connection the stop function (registered on each SQLite connection as it opens). */
export function registerStopFunction(client: unknown): void {
  const handle: BetterSqlite3.Database | undefined = sqliteDriverHandle(client);
  handle?.function(STOP_FUNCTION, { deterministic: false, varargs: false }, () => {
    try {
      check?.();
    } catch (error) {
      stoppedBy ??= { error };
      throw error;
    }
    return 0;
  });
}

/**
 * Runs `work` with `stop` as the check the stop function runs; where the check ended a statement,
 * the work fails with the check's own error, however the statement's caller wrapped it. One piece of
 * work at a time: a heavy-read thread runs one task at a time; on the event loop, where requests
 * interleave, nothing sets it.
 */
export async function whileStoppable<T>(stop: () => void, work: () => Promise<T>): Promise<T> {
  check = stop;
  stoppedBy = null;
  try {
    return await work();
  } catch (error) {
    // Set by the stop function meanwhile (TypeScript cannot see it).
    const stopped = stoppedBy as { error: unknown } | null;
    throw stopped ? stopped.error : error;
  } finally {
    check = null;
    stoppedBy = null;
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

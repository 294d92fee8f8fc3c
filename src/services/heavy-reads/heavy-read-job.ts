import type { Db, ReadDatabase } from "../../db/client";

/**
 * What a heavy read runs with, in its thread: a read-only database of its own, the readers of the
 * rooms built over it once per thread, and the request's budgets.
 */
export interface HeavyReadContext {
  /** The thread's read-only database (SQLite: a read-only connection, WAL; PostgreSQL: a small pool of its own). */
  database: ReadDatabase;
  /** Its Prisma read client (database.reader). */
  reader: Db;
  /** A room's readers over the thread's database, made once per thread: `ctx.use(createLineageServices)`. */
  use<T>(make: (database: ReadDatabase) => T): T;
  /** When the request's time budget ends (epoch milliseconds). */
  deadline: number;
  /** Throws QUERY_TIMEOUT once the deadline has passed, REQUEST_ABORTED once the request's client went away: long work calls it between its phases. */
  checkDeadline(): void;
  /** The most nodes one answer may carry back to be served through GraphQL (RESULT_MAX_NODES). */
  maxResultNodes: number;
}

/**
 * A heavy read, as a room registers it: a pure async function of plain arguments over the
 * thread's read database, whose result is plain data (what structured clone carries: objects,
 * arrays, strings, numbers, Dates, Maps; no class instances, getters or functions).
 */
export type HeavyReadJob<Args = any, Result = any> = (args: Args, ctx: HeavyReadContext) => Promise<Result>;

/** A room's heavy reads, by name (names are unique across rooms: see registered-reads.ts). */
export type HeavyReadJobs = Record<string, HeavyReadJob>;

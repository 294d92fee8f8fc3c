/**
 * Whether an error means the database cannot be reached or used right now — it is down, restarting,
 * cut the connection, has no connection to spare, or (SQLite) the file cannot be opened or is held
 * by a writer past the busy timeout — as opposed to a statement it refused. Such a failure is
 * retryable: nothing was committed by the request that met it, and the same request may succeed once
 * the database is back (issue 13, point 3). Prisma, its driver adapters, node-postgres, pg-pool and
 * better-sqlite3 each say it their own way; every layer of the error (cause, Prisma's
 * meta.driverAdapterError, GraphQL's originalError) is looked at.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return anyLayer(error, says);
}

/**
 * Whether an error means the transaction lost a race it can win by running again: a deadlock
 * (40P01) or a serialization failure (40001) on PostgreSQL, a busy database on SQLite (another
 * connection holds the write lock, or the snapshot went stale: BUSY_SNAPSHOT). The commit path
 * retries the whole transaction on these (src/services/recording/group-commit.ts).
 */
export function isTransactionConflict(error: unknown): boolean {
  return anyLayer(error, conflicts);
}

const CONFLICT_STATES = new Set(["40P01", "40001"]);

function conflicts(layer: Layer): boolean {
  if (layer.kind === "TransactionWriteConflict") return true;
  // SQLITE_BUSY: better-sqlite3's code (direct statements), or the adapter's originalCode (it says SocketTimeout).
  for (const code of [layer.code, layer.originalCode]) if (typeof code === "string" && (CONFLICT_STATES.has(code) || code.startsWith("SQLITE_BUSY"))) return true;
  if (layer.kind === "sqlite" && typeof layer.extendedCode === "number" && (layer.extendedCode & 0xff) === 5) return true;
  return typeof layer.message === "string" && /deadlock detected|could not serialize access/.test(layer.message);
}

function anyLayer(error: unknown, test: (layer: Layer) => boolean): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const layer = pending.pop();
    if (layer === null || typeof layer !== "object" || seen.has(layer)) continue;
    seen.add(layer);
    if (test(layer as Layer)) return true;
    const { cause, meta, originalError, errors } = layer as Layer;
    pending.push(cause, meta?.driverAdapterError, originalError, ...(Array.isArray(errors) ? errors : []));
  }
  return false;
}

interface Layer {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  extendedCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
  originalError?: unknown;
  errors?: unknown;
}

/** Driver adapter error kinds (@prisma/driver-adapter-utils); SocketTimeout is also how the SQLite adapter reports SQLITE_BUSY. */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
/** Prisma: can't reach (P1001), timed out reaching (P1002), operation timed out (P1008), server closed the connection (P1017), no pool connection in time (P2024). */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
/** Sockets (Node). */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
/** PostgreSQL SQLSTATEs: connection exceptions (class 08), shutting down / starting up (57P01–57P03), too many connections (53300). */
const POSTGRES_STATES = /^(08...|57P0[123]|53300)$/;
/** better-sqlite3: busy past the timeout, cannot open the file, I/O errors (the disk or the file went away). */
const SQLITE_CODES = /^SQLITE_(BUSY|CANTOPEN|IOERR)/;
/** SQLite primary result codes inside an extended code: BUSY 5, IOERR 10, CANTOPEN 14. */
const SQLITE_PRIMARY = new Set([5, 10, 14]);
/** What node-postgres and pg-pool say without a code; Prisma's transaction start that found no connection in time. */
const MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server|Server has closed the connection|Unable to start a transaction in the given time/;

function says(layer: Layer): boolean {
  if (layer.name === "PrismaClientInitializationError") return true;
  if (typeof layer.kind === "string" && ADAPTER_KINDS.has(layer.kind)) return true;
  for (const code of [layer.code, layer.originalCode]) {
    if (typeof code !== "string") continue;
    if (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || POSTGRES_STATES.test(code) || SQLITE_CODES.test(code)) return true;
  }
  if (layer.kind === "sqlite" && typeof layer.extendedCode === "number" && SQLITE_PRIMARY.has(layer.extendedCode & 0xff)) return true;
  return typeof layer.message === "string" && MESSAGES.test(layer.message);
}

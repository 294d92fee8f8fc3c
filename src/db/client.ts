import { AsyncLocalStorage } from "node:async_hooks";
import type { EventEmitter } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import type { PrismaPg as PrismaPgAdapter } from "@prisma/adapter-pg";
import type { ConnectionInfo, SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from "@prisma/driver-adapter-utils";
import { type Prisma, PrismaClient as SqlitePrismaClient } from "../generated/sqlite/client";
import type { PrismaClient as PgPrismaClientClass } from "../generated/pg/client";
import { type DatabaseProvider, providerOf, sqliteFilePath } from "./database-url";
import { attachDirectStatements, type DirectStatements, directStatementsOver, type RawRows, type RowStream } from "./direct-statements";
import { followPlanModes } from "./plan-modes";
import { keepsPreparedStatements, preparedStatementName } from "./prepared-statements";
import { reuseAdapterStatements } from "./reused-statements";
import { registerStopFunction } from "./statement-stop";
import { serializeStatements } from "./serialized-transaction";
import { turnBeforeStatement } from "./statement-turns";
import { hasTransactionEnded, markTransactionEnded } from "./transaction-ends";
import { startWalCheckpointer, type WalCheckpointer } from "./wal-checkpointer";
import { cpuPhasesEnabled, inCpuPhase, inSqlPhase } from "../cpu-phases";

/**
 * The typed Prisma client. Both generated clients (SQLite and PostgreSQL) expose the same model
 * API because they are generated from one shared models.prisma; we type everything against the
 * SQLite one.
 */
export type Db = SqlitePrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => …)`. */
export type DbTx = Prisma.TransactionClient;

export interface TransactionOptions {
  /** How long to wait for the write lock (ms). */
  maxWait: number;
  /** How long the transaction may stay open (ms). */
  timeout: number;
}

export interface Database {
  /**
   * The writer: every write, and the transactions recordings run in (DESIGN "Write path"). On
   * SQLite it is the one connection that writes; on PostgreSQL a small pool on DATABASE_URL.
   */
  prisma: Db;
  /**
   * Reads (DESIGN "Read path"): on SQLite a read-only connection of its own, which WAL lets read
   * beside the writer (a long write never stalls it); on PostgreSQL a pool of its own, on
   * DATABASE_READ_URL (a streaming replica, which may lag) when that is set.
   */
  reader: Db;
  /**
   * Reads that must see every commit already answered (what a caller just registered): the reader,
   * unless it is a replica; then the primary's pool.
   */
  primaryReader: Db;
  provider: DatabaseProvider;
  url: string;
  /** DATABASE_READ_URL, when reads go to a replica. */
  readUrl: string | null;
  /**
   * SQL statements sent to the database so far by both clients (queries, writes, BEGIN/COMMIT), for
   * tests and benches. Statements starting with UNCOUNTED_SQL (the auth layer's own probes) are left
   * out, so a query's count does not depend on when it ran.
   */
  statementCount(): number;
  /** PostgreSQL: the connections of each pool (open, idle, callers waiting for one); empty on SQLite, or before a pool connected. */
  poolStats(): Partial<Record<"writer" | "reader", PoolStats>>;
  /**
   * Opens an interactive transaction on the writer — the one place recordings open one (the commit
   * path calls it). Inside, `directStatementsOf(tx)` reaches the same transaction past Prisma's
   * query pipeline, for the hot statements of recording.
   */
  transaction<T>(fn: (tx: DbTx) => Promise<T>, options: TransactionOptions): Promise<T>;
  /** One read statement on the reader, answered as arrays of values (no Prisma result mapping): closures. */
  readRows(sql: string, params: readonly unknown[]): Promise<RawRows>;
  /** The same, the rows read as they are consumed (consume them at once: on SQLite the read connection waits). */
  readRowStream(sql: string, params: readonly unknown[]): Promise<RowStream>;
  /** Adds statements run on this process's behalf on connections of their own (the heavy-read threads) to statementCount(). */
  countStatements(count: number): void;
  close(): Promise<void>;
}

/**
 * What the read side of the core needs of a database (closures, graph views, evidence): its read
 * client and provider, raw reads, the statement count. A Database is one; so is the read-only
 * database a heavy-read thread opens for itself (openReadDatabase).
 */
export type ReadDatabase = Pick<Database, "reader" | "provider" | "readRows" | "readRowStream" | "statementCount">;
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface DatabaseOptions {
  /** A PostgreSQL streaming replica to read from (DATABASE_READ_URL); ignored for SQLite. */
  readUrl?: string | null;
  /** SQLite: the writer's `synchronous` setting (SQLITE_SYNCHRONOUS; default NORMAL); ignored for PostgreSQL. */
  sqliteSynchronous?: "NORMAL" | "FULL";
}

/** Pool sizes on PostgreSQL: the writer holds one connection per open transaction (the commit path opens one at a time). */
const PG_WRITER_POOL = 4;
const PG_READER_POOL = 10;
/** How long a new PostgreSQL connection may take (a server that accepts nothing, a network that drops packets). */
const PG_CONNECT_TIMEOUT_MS = 5_000;

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const provider = providerOf(url);
  let statements = 0;
  const countStatement = () => {
    statements += 1;
  };
  // Which $transaction a driver transaction belongs to: the slot of the call that started it.
  const startingTransaction = new AsyncLocalStorage<{ transaction?: Transaction }>();
  const onTransaction = (transaction: Transaction) => {
    const slot = startingTransaction.getStore();
    if (slot) slot.transaction = transaction;
  };
  let prisma: Db;
  let reader: Db;
  let readerAdapter: AdapterSlot;
  const writerAdapter: AdapterSlot = { adapter: undefined };
  let primaryReader: Db;
  let readUrl: string | null = null;
  let checkpointer: WalCheckpointer | undefined;
  if (provider === "sqlite") {
    const file = sqliteFilePath(url);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // The writer never checkpoints inside a COMMIT: a worker thread does (wal-checkpointer.ts).
    checkpointer = startWalCheckpointer(file);
    // When the writer starts the WAL over, it cuts the file back to 64 MB.
    // synchronous: NORMAL is the driver's default in WAL mode (no fsync at COMMIT); FULL fsyncs every commit.
    const synchronous = options.sqliteSynchronous ?? "NORMAL";
    const onWriterConnect = (adapter: SqlDriverAdapter) => {
      setUpSqliteConnection(adapter);
      return adapter.executeScript(`PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864; PRAGMA synchronous = ${synchronous}`);
    };
    prisma = new SqlitePrismaClient({
      adapter: countingAdapter(new PrismaBetterSqlite3({ url: `file:${file}`, timeout: 10_000 }), countStatement, { connectionInfo: SQLITE_CONNECTION_INFO, onTransaction, onConnect: onWriterConnect, synchronous: true }),
    });
    // A second connection, read-only: in WAL mode it reads the last commit while the writer writes.
    readerAdapter = { adapter: undefined };
    reader = sqliteReadClient(file, countStatement, readerAdapter);
    primaryReader = reader;
  } else {
    prisma = pgClient(url, PG_WRITER_POOL, countStatement, { onTransaction, slot: writerAdapter });
    readUrl = options.readUrl ?? null;
    readerAdapter = { adapter: undefined };
    reader = pgClient(readUrl ?? url, PG_READER_POOL, countStatement, { slot: readerAdapter, readsOnly: true });
    primaryReader = readUrl ? prisma : reader;
  }
  // Direct statements of a transaction refuse to run once Prisma has ended it (its timeout): see transaction-ends.ts.
  const direct = (transaction: Transaction): DirectStatements => directStatementsOver(transaction, provider, countStatement, () => !hasTransactionEnded(transaction));
  const readDirect = directReads(reader, readerAdapter, provider, countStatement);
  return {
    prisma,
    reader,
    primaryReader,
    provider,
    url,
    readUrl,
    statementCount: () => statements,
    countStatements: (count) => {
      statements += count;
    },
    poolStats: () => {
      if (provider !== "postgres") return {};
      const stats: Partial<Record<"writer" | "reader", PoolStats>> = {};
      for (const [name, slot] of [["writer", writerAdapter], ["reader", readerAdapter]] as const) {
        const pool = (slot.adapter as { underlyingDriver?: () => { totalCount: number; idleCount: number; waitingCount: number } } | undefined)?.underlyingDriver?.();
        if (pool) stats[name] = { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
      }
      return stats;
    },
    transaction: async (fn, transactionOptions) => {
      const slot: { transaction?: Transaction } = {};
      return startingTransaction.run(slot, () =>
        prisma.$transaction(async (tx) => {
          if (slot.transaction) attachDirectStatements(tx, direct(slot.transaction));
          return fn(tx);
        }, transactionOptions),
      );
    },
    readRows: async (sql, params) => (await readDirect()).query(sql, params),
    readRowStream: async (sql, params) => (await readDirect()).stream(sql, params),
    close: async () => {
      await Promise.all([prisma.$disconnect(), reader.$disconnect()]);
      await checkpointer?.stop();
    },
  };
}

export interface ReadDatabaseOptions {
  /** PostgreSQL: a streaming replica to read from (DATABASE_READ_URL). */
  readUrl?: string | null;
  /** PostgreSQL: connections in the pool (default 2). */
  poolSize?: number;
  /** PostgreSQL: a statement running longer is cancelled by the server (ms; default none). */
  statementTimeoutMs?: number;
}

/**
 * A database opened for reading only, as a heavy-read thread opens one for itself: the same read
 * client the app's Database reads with (SQLite: a read-only connection beside the writer, WAL;
 * PostgreSQL: a small pool of its own, on DATABASE_READ_URL when set), and nothing that writes.
 */
export function openReadDatabase(url: string, options: ReadDatabaseOptions = {}): ReadDatabase & { close(): Promise<void> } {
  const provider = providerOf(url);
  let statements = 0;
  const countStatement = () => {
    statements += 1;
  };
  const slot: AdapterSlot = { adapter: undefined };
  const reader =
    provider === "sqlite"
      ? sqliteReadClient(sqliteFilePath(url), countStatement, slot)
      : pgClient(options.readUrl ?? url, options.poolSize ?? 2, countStatement, { slot, statementTimeoutMs: options.statementTimeoutMs, readsOnly: true });
  const readDirect = directReads(reader, slot, provider, countStatement);
  return {
    reader,
    provider,
    statementCount: () => statements,
    readRows: async (sql, params) => (await readDirect()).query(sql, params),
    readRowStream: async (sql, params) => (await readDirect()).stream(sql, params),
    close: () => reader.$disconnect(),
  };
}

// Prisma assumes SQLite's historic 999-variable limit and splits `IN (…)` lists above it,
// so statement counts would grow with result size; the SQLite in better-sqlite3 12 allows 32,766.
const SQLITE_CONNECTION_INFO: ConnectionInfo = { maxBindValues: 32_766, supportsRelationJoins: false };

/**
 * What every SQLite connection gets as it opens, the writer's and the readers': each SQL text
 * prepared once (reused-statements.ts: the adapter would prepare every statement it runs), and the
 * stop function a long statement calls (statement-stop.ts: the walks' and a search lane's rest, which
 * run wherever they are issued; on the event loop it checks nothing).
 */
function setUpSqliteConnection(adapter: SqlDriverAdapter): void {
  reuseAdapterStatements(adapter);
  registerStopFunction((adapter as unknown as { client?: unknown }).client);
}

/** A read-only SQLite connection (WAL: it reads the last commit while the writer writes). */
function sqliteReadClient(file: string, countStatement: () => void, slot: AdapterSlot): Db {
  // Closures sort in temporary b-trees: in memory rather than in temporary files.
  const onConnect = (adapter: SqlDriverAdapter) => {
    setUpSqliteConnection(adapter);
    return adapter.executeScript("PRAGMA temp_store = MEMORY");
  };
  return new SqlitePrismaClient({
    adapter: countingAdapter(new PrismaBetterSqlite3({ url: `file:${file}`, timeout: 10_000, readonly: true }), countStatement, { connectionInfo: SQLITE_CONNECTION_INFO, slot, onConnect, synchronous: true }),
  });
}

/**
 * PostgreSQL's JIT and parallel query off on provgraph's connections. The planner's cost estimates for
 * recursive walks and for JSON id lists (a set-returning function is guessed at 100 rows, a walk at a
 * million) pass jit_above_cost on statements that read a few index pages, and compiling them cost
 * 0.7–2.5 s each: lineageGraph depth 3 on the 1.05M-edge store took 763 ms, 759 of them JIT (EXPLAIN
 * ANALYZE), and the search bench's p99 was 2–3 s. Parallel workers are started for a statement the
 * planner guesses large, and starting them cost a search of the benchmark's store 30–40 ms of its
 * 45 (EXPLAIN ANALYZE: 43 ms to the first row, 6 ms in the workers); a server's requests are many
 * and short, and already use the cores. Sent as startup options; a DATABASE_URL with its own
 * `options` parameter keeps what it says.
 */
const SESSION_OPTIONS = "-c jit=off -c max_parallel_workers_per_gather=0";

/**
 * The startup options provgraph's PostgreSQL connections open with (JIT and parallel query off), unless the URL names its
 * own: for another client that must run statements as provgraph runs them (the benchmarks' raw side).
 */
export function pgSessionOptions(connectionString: string): { options?: string } {
  return hasStartupOptions(connectionString) ? {} : { options: SESSION_OPTIONS };
}

function hasStartupOptions(connectionString: string): boolean {
  try {
    return new URL(connectionString).searchParams.has("options");
  } catch {
    return false;
  }
}

/** A pool of PostgreSQL connections behind a Prisma client. */
function pgClient(
  connectionString: string,
  max: number,
  countStatement: () => void,
  /** readsOnly: a read pool, where statements marked for one generic plan run (plan-modes.ts); the writer's statements are left as they come. */
  options: { slot?: AdapterSlot; onTransaction?: (transaction: Transaction) => void; statementTimeoutMs?: number; readsOnly?: boolean } = {},
): Db {
  // Loaded here, not at the top: a server on SQLite never loads pg, its adapter or the PostgreSQL client (start-up time).
  const { PrismaPg } = require("@prisma/adapter-pg") as { PrismaPg: typeof PrismaPgAdapter };
  const { PrismaClient: PgPrismaClient } = require("../generated/pg/client") as { PrismaClient: typeof PgPrismaClientClass };
  return new PgPrismaClient({
    // A connection that cannot be made within PG_CONNECT_TIMEOUT_MS fails (DATABASE_UNAVAILABLE) instead of holding its request until the OS gives up.
    adapter: countingAdapter(
      new PrismaPg({
        connectionString,
        max,
        connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
        ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
        ...pgSessionOptions(connectionString),
        // Statements marked PREPARED_SQL are named, so each connection plans them once (prepared-statements.ts);
        // the option's type wants a name for every statement, and undefined leaves the others unnamed.
      }, keepsPreparedStatements(connectionString) ? { statementNameGenerator: (query) => preparedStatementName(query.sql) as string } : {}),
      countStatement,
      {
        wrapTransaction: serializeStatements,
        onTransaction: options.onTransaction,
        slot: options.slot,
        // Statements marked GENERIC_PLAN_SQL run on one generic plan (plan-modes.ts): on read pools, not through a pooler in transaction mode.
        onConnect: options.readsOnly && keepsPreparedStatements(connectionString) ? async (adapter) => followPlanModes(pgPoolOf(adapter)) : undefined,
      },
    ),
  }) as unknown as Db;
}

/** The node-postgres pool behind a connected @prisma/adapter-pg adapter. */
const pgPoolOf = (adapter: SqlDriverAdapter) => (adapter as unknown as { underlyingDriver(): EventEmitter }).underlyingDriver();

/** Raw reads on a read client's own connection (opened on first use: Prisma connects lazily). */
function directReads(reader: Db, slot: AdapterSlot, provider: DatabaseProvider, countStatement: () => void): () => Promise<DirectStatements> {
  return async () => {
    if (!slot.adapter) await reader.$connect();
    if (!slot.adapter) throw new Error("the read connection did not open");
    return directStatementsOver(slot.adapter, provider, countStatement);
  };
}

/** Where a wrapped factory leaves the adapter it connected (Prisma connects lazily). */
interface AdapterSlot {
  adapter: SqlDriverAdapter | undefined;
}

/** Marks a statement that statementCount() leaves out. */
export const UNCOUNTED_SQL = "/* provgraph:uncounted */";

function isUncounted(query: unknown): boolean {
  const sql = typeof query === "string" ? query : (query as { sql?: unknown } | undefined)?.sql;
  return typeof sql === "string" && sql.startsWith(UNCOUNTED_SQL);
}

/**
 * Wraps a driver adapter factory so every statement it runs (also inside transactions) is
 * counted, optionally overriding the connection facts the adapter reports to Prisma, wrapping
 * each transaction it starts, telling who starts one, and keeping the adapter it connects.
 */
function countingAdapter<F extends SqlDriverAdapterFactory>(
  factory: F,
  onStatement: () => void,
  options: {
    connectionInfo?: ConnectionInfo;
    wrapTransaction?: (transaction: Transaction) => Transaction;
    onTransaction?: (transaction: Transaction) => void;
    slot?: AdapterSlot;
    /** Runs once on each connection the factory opens (connection settings), before Prisma uses it. */
    onConnect?: (adapter: SqlDriverAdapter) => Promise<void>;
    /** The driver runs statements on the event loop (better-sqlite3): see statement-turns.ts. */
    synchronous?: boolean;
  } = {},
): F {
  const { connectionInfo, wrapTransaction = (transaction: Transaction) => transaction, onTransaction, slot, onConnect, synchronous = false } = options;
  const countQueryable = <T extends SqlDriverAdapter | Transaction>(target: T, isTransaction = false): T => {
    const proxy: T = new Proxy(target, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver);
        if (prop === "queryRaw" || prop === "executeRaw" || prop === "executeScript") {
          const run = (args: unknown[]) => {
            // Prisma ends a transaction with a COMMIT or ROLLBACK statement (then commit()/rollback()):
            // from the moment it is sent, nothing else may be sent as part of the transaction.
            if (isTransaction && /^(COMMIT|ROLLBACK)$/.test((args[0] as { sql?: string } | undefined)?.sql ?? "")) markTransactionEnded(proxy);
            if (!isUncounted(args[0])) onStatement();
            const run = () => (value as (...a: unknown[]) => unknown).apply(obj, args);
            // Prisma sends COMMIT as a statement of the transaction (the CPU budget's "commit" phase).
            return cpuPhasesEnabled && (args[0] as { sql?: string } | undefined)?.sql === "COMMIT" ? inCpuPhase("commit", run) : inSqlPhase(run);
          };
          if (!synchronous) return (...args: unknown[]) => run(args);
          // A synchronous driver: a long chain of statements takes turns with the rest of the process.
          return (...args: unknown[]) => {
            const turn = turnBeforeStatement();
            return turn ? turn.then(() => run(args)) : run(args);
          };
        }
        if ((prop === "commit" || prop === "rollback") && typeof value === "function") {
          return (...args: unknown[]) => {
            markTransactionEnded(proxy);
            return inCpuPhase("commit", () => (value as (...a: unknown[]) => unknown).apply(obj, args));
          };
        }
        if (prop === "getConnectionInfo" && connectionInfo) {
          const own = typeof value === "function" ? (value as () => ConnectionInfo).call(obj) : undefined;
          return () => ({ ...own, ...connectionInfo });
        }
        if (prop === "startTransaction") {
          return async (...args: unknown[]) => {
            const transaction = countQueryable(wrapTransaction(await inSqlPhase(() => (value as (...a: unknown[]) => Promise<Transaction>).apply(obj, args))), true);
            onTransaction?.(transaction);
            return transaction;
          };
        }
        return typeof value === "function" ? value.bind(obj) : value;
      },
    });
    return proxy;
  };
  return new Proxy(factory, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (prop === "connect")
        return async () => {
          const connected = await (value as () => Promise<SqlDriverAdapter>).call(obj);
          await onConnect?.(connected);
          const adapter = countQueryable(connected);
          if (slot) slot.adapter = adapter;
          return adapter;
        };
      return typeof value === "function" ? value.bind(obj) : value;
    },
  });
}

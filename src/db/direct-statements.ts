import type BetterSqlite3 from "better-sqlite3";
import type { ArgType, SqlQueryable } from "@prisma/driver-adapter-utils";
import type { DatabaseProvider } from "./database-url";
import { turnBeforeStatement } from "./statement-turns";
import { inSqlPhase } from "../cpu-phases";
import { sqliteDriverHandle } from "./reused-statements";
import { TransactionEndedError } from "./transaction-ends";

/** A result set as the driver gives it: column names, and each row as values in that order. */
export interface RawRows {
  columnNames: string[];
  rows: unknown[][];
}

/** The same, its rows read one at a time as they are consumed (on SQLite; at once elsewhere). */
export interface RowStream {
  columnNames: string[];
  rows: Iterable<unknown[]>;
}

/**
 * Statements sent straight to the driver — inside a transaction Prisma opened, or on the read
 * connection — past Prisma's query pipeline, which serialises every parameter into a JSON request,
 * plans it and maps every result value (about 0.2 ms a statement plus ~1.5 µs a parameter here;
 * ../shared/notes/prisma-write-throughput.md). Counted by Database.statementCount like the rest.
 * Values: strings, numbers, booleans, dates and null. Results: integers as numbers, except 64-bit
 * ones on PostgreSQL (COUNT, BIGINT), which node-postgres gives as text.
 *
 * On SQLite they run on the connection's better-sqlite3 handle itself, through prepared statements
 * kept per SQL text (preparing a 50-row INSERT costs more than running 50 one-row ones); on
 * PostgreSQL through the adapter's transaction, one statement at a time on its connection.
 */
export interface DirectStatements {
  provider: DatabaseProvider;
  query(sql: string, params: readonly unknown[]): Promise<RawRows>;
  execute(sql: string, params: readonly unknown[]): Promise<number>;
  /**
   * The rows as an iterable read as it is consumed (SQLite: the statement runs when the iteration
   * starts and the connection is busy until it ends, so iterate it at once, without awaiting in
   * between; elsewhere the rows are all read first).
   */
  stream(sql: string, params: readonly unknown[]): Promise<RowStream>;
  /**
   * SQLite only (undefined elsewhere): runs one prepared statement once per row, synchronously,
   * returning each row's RETURNING values (an empty array where it returned none, e.g. a conflict ignored).
   */
  runEach?(sql: string, rows: readonly (readonly unknown[])[]): unknown[][];
  /** SQLite only, like runEach for a statement without RETURNING: how many rows each run changed (0 where a conflict was ignored). */
  runEachCounted?(sql: string, rows: readonly (readonly unknown[])[]): number[];
}

const argTypeOf = (value: unknown): ArgType => ({
  scalarType: typeof value === "number" ? (Number.isInteger(value) ? "int" : "float") : typeof value === "boolean" ? "boolean" : value instanceof Date ? "datetime" : "string",
  arity: "scalar",
});

/** Whether the transaction the statements belong to is still open (always, for a connection's own statements). */
type IsOpen = () => boolean;

function checkOpen(isOpen: IsOpen): void {
  if (!isOpen()) throw new TransactionEndedError();
}

/** Through the adapter (PostgreSQL, or a SQLite adapter whose handle we cannot reach). */
function throughAdapter(queryable: SqlQueryable, provider: DatabaseProvider, isOpen: IsOpen): DirectStatements {
  const query = (sql: string, params: readonly unknown[]) => {
    // Checked as the statement is handed to the transaction: one handed over before its ROLLBACK runs before it (serialized-transaction.ts).
    checkOpen(isOpen);
    return { sql, args: [...params], argTypes: params.map(argTypeOf) };
  };
  return {
    provider,
    query: async (sql, params) => {
      const result = await queryable.queryRaw(query(sql, params));
      return { columnNames: result.columnNames, rows: result.rows };
    },
    execute: (sql, params) => queryable.executeRaw(query(sql, params)),
    stream: async (sql, params) => {
      const result = await queryable.queryRaw(query(sql, params));
      return { columnNames: result.columnNames, rows: result.rows };
    },
  };
}

/** Values as @prisma/adapter-better-sqlite3 stores them: dates as ISO text with +00:00, booleans as 1/0. */
function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}


const STATEMENT_CACHE_SIZE = 200;
const statementCaches = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function prepared(handle: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let cache = statementCaches.get(handle);
  if (!cache) statementCaches.set(handle, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) {
    // Integers as numbers (the adapter turns BigInt on for the whole connection): provgraph's are
    // row ids and counts, far below 2^53, and a closure reads tens of thousands of them.
    statement = handle.prepare(sql).safeIntegers(false);
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(sql, statement);
  }
  return statement;
}

function onSqliteHandle(handle: BetterSqlite3.Database, onStatement: () => void, isOpen: IsOpen): DirectStatements {
  // Checked right before the statement runs (after its turn: the transaction may have ended meanwhile).
  const run = (sql: string, params: readonly unknown[]) => {
    checkOpen(isOpen);
    onStatement();
    return { statement: prepared(handle, sql), args: params.map(sqliteValue) };
  };
  return {
    provider: "sqlite",
    query: async (sql, params) => {
      await turnBeforeStatement();
      return inSqlPhase(() => {
        const { statement, args } = run(sql, params);
        if (!statement.reader) {
          statement.run(...args);
          return { columnNames: [], rows: [] };
        }
        return { columnNames: statement.columns().map((column) => column.name), rows: statement.raw(true).all(...args) as unknown[][] };
      });
    },
    execute: async (sql, params) => {
      await turnBeforeStatement();
      return inSqlPhase(() => {
        const { statement, args } = run(sql, params);
        return statement.run(...args).changes;
      });
    },
    stream: async (sql, params) => {
      await turnBeforeStatement();
      const { statement, args } = run(sql, params);
      // Rows that die young: tens of thousands of them never reach the old generation (peak RSS).
      // The iteration starts when the consumer starts it, not here: the statement (cached, shared by
      // every closure of the same shape) and the connection are busy while it runs, so two closures
      // resolved side by side (aliases) must each read theirs in one go, one after the other.
      const rows: Iterable<unknown[]> = { [Symbol.iterator]: () => statement.raw(true).iterate(...args) as IterableIterator<unknown[]> };
      return { columnNames: statement.columns().map((column) => column.name), rows };
    },
    runEach: (sql, rows) => inSqlPhase(() => {
      checkOpen(isOpen);
      const statement = prepared(handle, sql);
      const returned: unknown[][] = [];
      if (statement.reader) statement.raw(true);
      for (const row of rows) {
        onStatement();
        const args = row.map(sqliteValue);
        if (!statement.reader) {
          statement.run(...args);
          continue;
        }
        const values = statement.get(...args) as unknown[] | undefined;
        returned.push(values ?? []);
      }
      return returned;
    }),
    runEachCounted: (sql, rows) => inSqlPhase(() => {
      checkOpen(isOpen);
      const statement = prepared(handle, sql);
      const changes: number[] = [];
      for (const row of rows) {
        onStatement();
        changes.push(statement.run(...row.map(sqliteValue)).changes);
      }
      return changes;
    }),
  };
}

/**
 * The direct way into an adapter queryable (a transaction, or an adapter's own connection). For a
 * transaction, `isOpen` says whether it still is: a statement sent after it ended (Prisma rolled it
 * back past its timeout) throws TransactionEndedError instead of running outside it. The
 * better-sqlite3 adapter keeps its driver handle in `client`; if a later adapter hides it, the
 * statements fall back to the adapter's own query methods (same SQL, slower).
 */
export function directStatementsOver(queryable: SqlQueryable, provider: DatabaseProvider, onStatement: () => void, isOpen: IsOpen = () => true): DirectStatements {
  const handle = provider === "sqlite" ? sqliteDriverHandle((queryable as unknown as { client?: unknown }).client) : undefined;
  if (handle) return onSqliteHandle(handle, onStatement, isOpen);
  return throughAdapter(queryable, provider, isOpen);
}

// The transaction client Prisma hands a unit → the same transaction, direct. Set by
// Database.transaction for the transactions it opens; absent for any other.
const byTransactionClient = new WeakMap<object, DirectStatements>();

export function attachDirectStatements(tx: object, statements: DirectStatements): void {
  byTransactionClient.set(tx, statements);
}

/** The direct way into the transaction `tx` belongs to, when Database.transaction opened it. */
export function directStatementsOf(tx: object): DirectStatements | undefined {
  return byTransactionClient.get(tx);
}

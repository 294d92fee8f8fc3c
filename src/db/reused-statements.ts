import BetterSqlite3 from "better-sqlite3";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";

/**
 * Statements prepared once per SQLite connection, for Prisma's better-sqlite3 adapter.
 *
 * The adapter calls `client.prepare(sql)` for every statement it runs — BEGIN and COMMIT of every
 * transaction, every Prisma query, every `$executeRawUnsafe` (the policy tags' recursive walk, ~6 KB
 * of SQL, once per recording) — and preparing costs more than running (SQLite parses and plans the
 * text each time). We hand the adapter a connection whose `prepare` returns the connection's one
 * statement for that SQL text, kept in a small LRU cache. better-sqlite3 binds a statement once and
 * for good, and its modes (raw, pluck, expand) belong to the statement, so what the adapter gets is a
 * view: it keeps the arguments the adapter binds and passes them on each run, and sets the modes back
 * to plain rows each time it is handed out.
 *
 * What the adapter (7.x) calls on a statement: bind(args), run(), reader, columns(), raw().all();
 * the view also answers get, iterate, pluck, expand, safeIntegers, source, readonly, busy and database.
 */

/** Distinct SQL texts kept per connection; Prisma's queries with `IN (?, ?, …)` lists make a long tail. */
const STATEMENTS_PER_CONNECTION = 256;

/** The adapter's connection (wrapped) → the driver's own handle, for our direct statements (direct-statements.ts). */
const driverHandles = new WeakMap<object, BetterSqlite3.Database>();

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly handle: BetterSqlite3.Database) {}

  /** The connection's statement for `sql`, idle and in plain-rows mode (most recently used last). */
  take(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement) this.statements.delete(sql);
    // A statement still being iterated is busy: that one stays with its iterator, the SQL gets a new one.
    if (!statement || statement.busy) statement = this.handle.prepare(sql) as Statement;
    else if (statement.reader) statement.raw(false).pluck(false).expand(false);
    this.statements.set(sql, statement);
    if (this.statements.size > STATEMENTS_PER_CONNECTION) this.statements.delete(this.statements.keys().next().value!);
    return statement;
  }

  /** A statement whose integer mode a caller changed is that caller's alone from now on. */
  forget(sql: string, statement: Statement): void {
    if (this.statements.get(sql) === statement) this.statements.delete(sql);
  }
}

/** What `prepare` returns to the adapter: one use of the connection's statement, with its own bound arguments. */
class ReusedStatement {
  private bound: unknown[] | undefined;

  constructor(
    private readonly statement: Statement,
    private readonly cache: StatementCache,
  ) {}

  get source(): string {
    return this.statement.source;
  }
  get reader(): boolean {
    return this.statement.reader;
  }
  get readonly(): boolean {
    return this.statement.readonly;
  }
  get busy(): boolean {
    return this.statement.busy;
  }
  get database(): BetterSqlite3.Database {
    return this.statement.database;
  }

  bind(...params: unknown[]): this {
    if (this.bound) throw new TypeError("The bind() method can only be invoked once per statement object");
    this.bound = params;
    return this;
  }
  run(...params: unknown[]): BetterSqlite3.RunResult {
    return this.statement.run(...this.argumentsFor(params));
  }
  get(...params: unknown[]): unknown {
    return this.statement.get(...this.argumentsFor(params));
  }
  all(...params: unknown[]): unknown[] {
    return this.statement.all(...this.argumentsFor(params));
  }
  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.statement.iterate(...this.argumentsFor(params));
  }
  columns(): BetterSqlite3.ColumnDefinition[] {
    return this.statement.columns();
  }
  raw(toggle = true): this {
    this.statement.raw(toggle);
    return this;
  }
  pluck(toggle = true): this {
    this.statement.pluck(toggle);
    return this;
  }
  expand(toggle = true): this {
    this.statement.expand(toggle);
    return this;
  }
  safeIntegers(toggle = true): this {
    this.cache.forget(this.statement.source, this.statement);
    this.statement.safeIntegers(toggle);
    return this;
  }

  private argumentsFor(params: unknown[]): unknown[] {
    if (!this.bound) return params;
    if (params.length > 0) throw new TypeError("This statement already has bound parameters");
    return this.bound;
  }
}

/**
 * Gives a connected better-sqlite3 adapter a connection that prepares each SQL text once (see
 * above). Call it before the adapter starts its first transaction (a transaction keeps the
 * connection it started on). Any other adapter is left as it is.
 */
export function reuseAdapterStatements(adapter: SqlDriverAdapter): void {
  const holder = adapter as unknown as { client?: unknown };
  const handle = holder.client;
  if (!(handle instanceof BetterSqlite3) || driverHandles.has(handle)) return;
  const cache = new StatementCache(handle);
  const prepare = (sql: string) => new ReusedStatement(cache.take(sql), cache);
  const connection = new Proxy(handle, {
    get(target, prop) {
      if (prop === "prepare") return prepare;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  driverHandles.set(connection, handle);
  holder.client = connection;
}

/** The driver's own handle behind an adapter's `client` (reuseAdapterStatements wraps it), or undefined if it is not better-sqlite3. */
export function sqliteDriverHandle(client: unknown): BetterSqlite3.Database | undefined {
  if (typeof client !== "object" || client === null) return undefined;
  const handle = driverHandles.get(client) ?? client;
  return handle instanceof BetterSqlite3 ? handle : undefined;
}

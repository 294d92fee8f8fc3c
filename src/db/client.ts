import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { ConnectionInfo, SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from "@prisma/driver-adapter-utils";
import { type Prisma, PrismaClient as SqlitePrismaClient } from "../generated/sqlite/client";
import { PrismaClient as PgPrismaClient } from "../generated/pg/client";
import { type DatabaseProvider, providerOf, sqliteFilePath } from "./database-url";
import { serializeStatements } from "./serialized-transaction";

/**
 * The typed Prisma client. Both generated clients (SQLite and PostgreSQL) expose the same model
 * API because they are generated from one shared models.prisma; we type everything against the
 * SQLite one.
 */
export type Db = SqlitePrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => …)`. */
export type DbTx = Prisma.TransactionClient;

export interface Database {
  prisma: Db;
  provider: DatabaseProvider;
  url: string;
  /**
   * SQL statements sent to the database so far (queries, writes, BEGIN/COMMIT), for tests and benches.
   * Statements starting with UNCOUNTED_SQL (the auth layer's own probes) are left out, so a query's
   * count does not depend on when it ran.
   */
  statementCount(): number;
  close(): Promise<void>;
}

export function openDatabase(url: string): Database {
  const provider = providerOf(url);
  let statements = 0;
  const countStatement = () => {
    statements += 1;
  };
  let prisma: Db;
  if (provider === "sqlite") {
    const file = sqliteFilePath(url);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const adapter = countingAdapter(new PrismaBetterSqlite3({ url: `file:${file}`, timeout: 10_000 }), countStatement, {
      // Prisma assumes SQLite's historic 999-variable limit and splits `IN (…)` lists above it,
      // so statement counts would grow with result size; the SQLite in better-sqlite3 12 allows 32,766.
      maxBindValues: 32_766,
      supportsRelationJoins: false,
    });
    prisma = new SqlitePrismaClient({ adapter });
  } else {
    const adapter = countingAdapter(new PrismaPg({ connectionString: url, max: 10 }), countStatement, undefined, serializeStatements);
    prisma = new PgPrismaClient({ adapter }) as unknown as Db;
  }
  return {
    prisma,
    provider,
    url,
    statementCount: () => statements,
    close: () => prisma.$disconnect(),
  };
}

/** Marks a statement that statementCount() leaves out. */
export const UNCOUNTED_SQL = "/* provgraph:uncounted */";

function isUncounted(query: unknown): boolean {
  const sql = typeof query === "string" ? query : (query as { sql?: unknown } | undefined)?.sql;
  return typeof sql === "string" && sql.startsWith(UNCOUNTED_SQL);
}

/**
 * Wraps a driver adapter factory so every statement it runs (also inside transactions) is
 * counted, optionally overriding the connection facts the adapter reports to Prisma and
 * wrapping each transaction it starts.
 */
function countingAdapter<F extends SqlDriverAdapterFactory>(
  factory: F,
  onStatement: () => void,
  connectionInfo?: ConnectionInfo,
  wrapTransaction: (transaction: Transaction) => Transaction = (transaction) => transaction,
): F {
  const countQueryable = <T extends SqlDriverAdapter | Transaction>(target: T): T =>
    new Proxy(target, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver);
        if (prop === "queryRaw" || prop === "executeRaw" || prop === "executeScript") {
          return (...args: unknown[]) => {
            if (!isUncounted(args[0])) onStatement();
            return (value as (...a: unknown[]) => unknown).apply(obj, args);
          };
        }
        if (prop === "getConnectionInfo" && connectionInfo) {
          const own = typeof value === "function" ? (value as () => ConnectionInfo).call(obj) : undefined;
          return () => ({ ...own, ...connectionInfo });
        }
        if (prop === "startTransaction") {
          return async (...args: unknown[]) =>
            countQueryable(wrapTransaction(await (value as (...a: unknown[]) => Promise<Transaction>).apply(obj, args)));
        }
        return typeof value === "function" ? value.bind(obj) : value;
      },
    });
  return new Proxy(factory, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (prop === "connect") return async () => countQueryable(await (value as () => Promise<SqlDriverAdapter>).call(obj));
      return typeof value === "function" ? value.bind(obj) : value;
    },
  });
}

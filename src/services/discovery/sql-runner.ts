import type { DbTx } from "../../db/client";
import type { DatabaseProvider } from "../../db/database-url";
import { directStatementsOf } from "../../db/direct-statements";
import { Placeholders } from "../../db/sql-statement";

/** Statements in a transaction: straight to the driver when the commit path opened it, else through Prisma. Rows as arrays of values. */
export interface SqlRunner {
  provider: DatabaseProvider;
  query(sql: string, params: readonly unknown[]): Promise<unknown[][]>;
  execute(sql: string, params: readonly unknown[]): Promise<number>;
}

export function sqlRunnerOf(tx: DbTx, provider: DatabaseProvider): SqlRunner {
  const direct = directStatementsOf(tx);
  if (direct) return { provider, query: async (sql, params) => (await direct.query(sql, params)).rows, execute: (sql, params) => direct.execute(sql, params) };
  return {
    provider,
    query: async (sql, params) => (await tx.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params)).map((row) => Object.values(row)),
    execute: (sql, params) => tx.$executeRawUnsafe(sql, ...params),
  };
}

/** Placeholders in the style of the database (src/db/sql-statement.ts), their values read as `values` here. */
export class Params extends Placeholders {
  get values(): unknown[] {
    return this.params;
  }
}

import type { DatabaseProvider } from "./database-url";

/** One SQL statement with its bound values, in the placeholder style of the database it was built for. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** Keeps a value for the statement being written and answers its placeholder. */
export type Bind = (value: unknown) => string;

/**
 * The values of a statement being written, and `bind`, which keeps one and answers its placeholder in
 * the style of the database: `?` on SQLite, `$n` (its place in `params`) on PostgreSQL.
 */
export function placeholders(provider: DatabaseProvider): { params: unknown[]; bind: Bind } {
  const params: unknown[] = [];
  const bind: Bind = (value) => {
    params.push(value);
    return provider === "sqlite" ? "?" : `$${params.length}`;
  };
  return { params, bind };
}

import type { DatabaseProvider } from "../../db/database-url";
import type { RawRows } from "../../db/direct-statements";

/**
 * What the graph computations read through: one statement at a time on a read connection, its rows
 * as arrays of values. `Database` is one (its reader); a worker of the heavy-read pool opens its
 * own. The computations are pure async functions of (arguments, { reader }) with plain,
 * structured-clonable results, so they run the same in the server's thread or in a worker.
 */
export interface GraphReadClient {
  provider: DatabaseProvider;
  readRows(sql: string, params: readonly unknown[]): Promise<RawRows>;
}

export interface GraphReadContext {
  reader: GraphReadClient;
}

/**
 * Placeholders and bound values for one statement, in the style of its database. Lists of ids are
 * bound as one JSON array (a single value, however long the list) and read back as a one-column
 * table: `json_each` on SQLite, `json_array_elements_text` on PostgreSQL.
 *
 * On PostgreSQL each list is LIMITed to its length (pgCounted): the planner takes a set-returning
 * function for 100 rows, and a recursive walk seeded from it for a million (ten rounds of joins
 * that each double it), and sizes the walk's UNION hash table for that at executor start — zeroing
 * tens of megabytes: 85 of the 88 ms of a depth-3 walk from one root on the 1.05M-edge store, for
 * 19 nodes. Told the list's length, it plans for that (2 ms). (A LIMIT only lowers the estimate: a
 * list longer than 100 is still planned as 100 rows.)
 */
export class StatementParams {
  readonly params: unknown[] = [];

  constructor(readonly provider: DatabaseProvider) {}

  bind(value: unknown): string {
    this.params.push(value);
    return this.provider === "sqlite" ? "?" : `$${this.params.length}`;
  }

  /** A table (for FROM) of two columns, `value` and `ord` (its 0-based place in the list). */
  indexedList(values: readonly string[]): string {
    const json = this.bind(JSON.stringify(values));
    return this.provider === "sqlite"
      ? `(SELECT value, CAST(key AS INTEGER) AS ord FROM json_each(${json})) AS lst`
      : `(SELECT value, ord - 1 AS ord FROM json_array_elements_text(CAST(${json} AS json)) WITH ORDINALITY AS t(value, ord)${pgCounted(values)}) AS lst`;
  }

  /** A table (for FROM) of two text columns, `artifact` and `field`: the given pairs. */
  pairList(pairs: readonly (readonly [string, string])[]): string {
    const json = this.bind(JSON.stringify(pairs));
    return this.provider === "sqlite"
      ? `(SELECT json_extract(j.value, '$[0]') AS artifact, json_extract(j.value, '$[1]') AS field FROM json_each(${json}) j) AS pairs`
      : `(SELECT j.value->>0 AS artifact, j.value->>1 AS field FROM json_array_elements(CAST(${json} AS json)) j${pgCounted(pairs)}) AS pairs`;
  }

  /** A table (for FROM) of one text column, `value`: the given strings. */
  list(values: readonly string[]): string {
    const json = this.bind(JSON.stringify(values));
    return this.provider === "sqlite" ? `json_each(${json})` : `(SELECT value FROM json_array_elements_text(CAST(${json} AS json)) AS e(value)${pgCounted(values)}) AS lst(value)`;
  }
}

/** A list's rows LIMITed to its length, so that PostgreSQL's planner knows how many there are (see StatementParams). */
export const pgCounted = (values: readonly unknown[]): string => ` LIMIT ${values.length}`;

/** The rows of a result as objects keyed by column name (small result sets; closures read arrays). */
export function rowObjects(result: RawRows): Record<string, unknown>[] {
  return result.rows.map((row) => Object.fromEntries(result.columnNames.map((name, i) => [name, row[i]])));
}

/** A number column: PostgreSQL gives 64-bit integers (COUNT, BIGINT) as text. */
export const asNumber = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
export const asText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
/** SQLite answers 1/0, PostgreSQL true/false. */
export const asBoolean = (value: unknown): boolean => value === true || value === 1 || value === "1" || value === "t" || value === "true";
export const asIsoTime = (value: unknown): string | null => (value === null || value === undefined ? null : value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString());

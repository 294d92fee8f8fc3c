import type { DatabaseProvider } from "../../db/database-url";
import type { RawRows } from "../../db/direct-statements";
import { plannedLength } from "../../db/json-list";
import { storedBoolean, storedTime } from "../../db/rows-by-id";
import { Placeholders } from "../../db/sql-statement";

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
 * On PostgreSQL each list tells the planner its length (plannedLength, src/db/json-list.ts).
 */
export class StatementParams extends Placeholders {
  /** A table (for FROM) of two columns, `value` and `ord` (its 0-based place in the list). */
  indexedList(values: readonly string[]): string {
    const json = this.bind(JSON.stringify(values));
    return this.provider === "sqlite"
      ? `(SELECT value, CAST(key AS INTEGER) AS ord FROM json_each(${json})) AS lst`
      : `(SELECT value, ord - 1 AS ord FROM json_array_elements_text(CAST(${json} AS json)) WITH ORDINALITY AS t(value, ord)${plannedLength(this.provider, values.length)}) AS lst`;
  }

  /** A table (for FROM) of two text columns, `artifact` and `field`: the given pairs. */
  pairList(pairs: readonly (readonly [string, string])[]): string {
    const json = this.bind(JSON.stringify(pairs));
    return this.provider === "sqlite"
      ? `(SELECT json_extract(j.value, '$[0]') AS artifact, json_extract(j.value, '$[1]') AS field FROM json_each(${json}) j) AS pairs`
      : `(SELECT j.value->>0 AS artifact, j.value->>1 AS field FROM json_array_elements(CAST(${json} AS json)) j${plannedLength(this.provider, pairs.length)}) AS pairs`;
  }

  /** A table (for FROM) of one text column, `value`: the given strings. */
  list(values: readonly string[]): string {
    const json = this.bind(JSON.stringify(values));
    return this.provider === "sqlite" ? `json_each(${json})` : `(SELECT value FROM json_array_elements_text(CAST(${json} AS json)) AS e(value)${plannedLength(this.provider, values.length)}) AS lst(value)`;
  }
}

/**
 * A column SQLite must not look rows up by, in a join where another index is far narrower. SQLite
 * plans without statistics and took a run's index to find one edge's co-inputs or their links: every
 * edge and every link of the run for each row — beside a run of 20,000 outputs or inputs, expanding
 * a node took a minute. A group's index is as bad when one set of inputs made many outputs (the group
 * id digests the sources). By the target, or by the co-input's own links, it is a few rows each. A unary + takes a column out of SQLite's index choice; PostgreSQL, which has
 * statistics, chooses well as it is (and has no unary + for text).
 */
export const byOtherIndex = (p: StatementParams, column: string): string => (p.provider === "sqlite" ? `+${column}` : column);

/** The rows of a result as objects keyed by column name (small result sets; closures read arrays). */
export function rowObjects(result: RawRows): Record<string, unknown>[] {
  return result.rows.map((row) => Object.fromEntries(result.columnNames.map((name, i) => [name, row[i]])));
}

/** A number column: PostgreSQL gives 64-bit integers (COUNT, BIGINT) as text. */
export const asNumber = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
export const asText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
/** SQLite answers 1/0, PostgreSQL true/false. */
export const asBoolean = (value: unknown): boolean => storedBoolean(value) ?? false;
export const asIsoTime = (value: unknown): string | null => storedTime(value)?.toISOString() ?? null;

import { jsonListSelect, jsonParameter } from "./json-list";
import type { RowReader } from "./prepared-statements";

/**
 * Stored rows by id, read straight from the read connection as arrays (Database.readRows): a graph's
 * or a search's page resolves hundreds of artifacts and runs at once through the types' loaders, and
 * Prisma's query pipeline (a JSON request planned, every value mapped) cost more than the statement
 * (docs/performance.md "Artifacts and runs by id"). One statement however many ids (the list bound
 * as one JSON parameter). Not prepared on PostgreSQL: a primary-key lookup plans in a fraction of a
 * millisecond, and a process names at most PREPARED_TEXTS_PER_PROCESS texts (./prepared-statements.ts),
 * kept for the graph and search statements whose planning cost more than their run.
 */
export class RowsById {
  constructor(private readonly reader: RowReader) {}

  /** The row of each id found (`key` unique), as an object of `columns` (values as the driver gives them: see storedTime, storedBoolean). */
  async read(table: string, key: string, columns: readonly string[], ids: Iterable<string>): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    for (const [id, rows] of await this.readGroups(table, key, columns, ids)) found.set(id, rows[0]);
    return found;
  }

  /** The rows of each id found (`key` not unique: an operation's roles), in no particular order. */
  async readGroups(table: string, key: string, columns: readonly string[], ids: Iterable<string>): Promise<Map<string, Record<string, unknown>[]>> {
    const unique = [...new Set(ids)];
    const found = new Map<string, Record<string, unknown>[]>();
    if (unique.length === 0) return found;
    const placeholder = this.reader.provider === "sqlite" ? "?" : "$1";
    const list = columns.map((column) => `"${column}"`).join(", ");
    const sql = `SELECT ${list} FROM "${table}" WHERE "${key}" IN (${jsonListSelect(this.reader.provider, placeholder, unique.length)})`;
    const { rows } = await this.reader.readRows(sql, [jsonParameter(unique)]);
    const at = columns.indexOf(key);
    for (const row of rows) {
      const record: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) record[columns[i]] = row[i];
      const id = String(row[at]);
      const group = found.get(id);
      if (group) group.push(record);
      else found.set(id, [record]);
    }
    return found;
  }
}

/**
 * A stored instant as a Date: both drivers give text in UTC with an offset (better-sqlite3 as
 * Prisma's adapter stored it, `…+00:00`; @prisma/adapter-pg's parser the same), a bare
 * `YYYY-MM-DD HH:MM:SS` (SQLite's CURRENT_TIMESTAMP) is UTC too, a number is milliseconds.
 */
export function storedTime(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value));
  const text = String(value);
  if (text[10] !== " ") return new Date(text);
  // `YYYY-MM-DD HH:MM:SS[.fff]`: without an offset, UTC (Date would read it in the process's time zone).
  const iso = text.replace(" ", "T");
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(iso) ? iso : `${iso}Z`);
}

/** A stored boolean: SQLite gives 1/0, PostgreSQL true/false. */
export function storedBoolean(value: unknown): boolean | null {
  if (value === null || value === undefined) return null;
  return value === true || value === 1 || value === 1n || value === "1" || value === "t" || value === "true";
}

import type { DatabaseProvider } from "./database-url";

/**
 * A list of any length bound as ONE statement parameter (its JSON text) and read back as rows, so a
 * statement built from it has no list in its text: no bound-value limit, no expression depth, one
 * statement however long the list (src/db/chunked-lists.ts cuts lists that are written out instead).
 *
 *   `… WHERE x IN (${jsonListSelect(provider, bind(JSON.stringify(ids)), ids.length)})`
 *   `… FROM ${jsonListRows(provider, bind(JSON.stringify(pairs)))} j JOIN t ON t.a = ${jsonItem(provider, "j", 0)}`
 */
export function jsonListRows(provider: DatabaseProvider, placeholder: string): string {
  return provider === "sqlite" ? `json_each(${placeholder})` : `json_array_elements(CAST(${placeholder} AS json))`;
}

/** An item of a row of jsonListRows aliased `alias`, as text (or an integer): the whole item, or the `index`-th of an array item. */
export function jsonItem(provider: DatabaseProvider, alias: string, index?: number, type: "text" | "bigint" = "text"): string {
  const text = provider === "sqlite" ? (index === undefined ? `${alias}.value` : `json_extract(${alias}.value, '$[${index}]')`) : index === undefined ? `(${alias}.value #>> '{}')` : `(${alias}.value ->> ${index})`;
  return type === "bigint" && provider !== "sqlite" ? `CAST(${text} AS BIGINT)` : text;
}

/**
 * What a select over a bound list ends with on PostgreSQL so that the planner knows the list's length:
 * ` LIMIT <n>` (nothing on SQLite). The planner takes a set-returning function such as
 * json_array_elements for 100 rows, and a recursive walk seeded from it for about a million (ten
 * estimated rounds of joins, each doubling), and at executor start it sizes the walk's UNION hash
 * table for that — tens of megabytes zeroed, in no plan node's time: 85 of the 88 ms of a depth-3
 * graph walk of 19 nodes on the benchmark's 1.05M-edge store (2 ms once told). A LIMIT only lowers an
 * estimate: a list longer than 100 is still planned as 100 rows.
 *
 * n is the length rounded up to a power of two, and a list longer than 64 gets none (planned as the
 * planner's 100 rows): a statement's text then takes one of eight forms per list, whatever the
 * lists hold, so a prepared statement's plan serves every list of about its length
 * (prepared-statements.ts) — an estimate at most twice the length, where the walk's sizing costs
 * nothing to speak of.
 */
export function plannedLength(provider: DatabaseProvider, length: number): string {
  if (!Number.isSafeInteger(length) || length < 0) throw new Error(`plannedLength: a list's length must be a non-negative integer, got ${length}`);
  if (provider !== "postgres" || length > PLANNED_LENGTH_LIMIT) return "";
  let planned = 1;
  while (planned < length) planned *= 2;
  return ` LIMIT ${planned}`;
}

/** The longest list given a planned length: above it, the planner's own guess of 100 rows is near enough. */
const PLANNED_LENGTH_LIMIT = 64;

/** The list's items as a sub-select for `IN (…)`; `count` is the list's length (plannedLength). */
export function jsonListSelect(provider: DatabaseProvider, placeholder: string, count: number, type: "text" | "bigint" = "text"): string {
  return `SELECT ${jsonItem(provider, "j", undefined, type)} FROM ${jsonListRows(provider, placeholder)} j${plannedLength(provider, count)}`;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A value as JSON text to bind as one parameter (rows for json_populate_recordset, lists): every
 * string in it well-formed, a lone surrogate made U+FFFD as the driver's UTF-8 encoding makes it on
 * the VALUES path. JSON.stringify escapes a lone surrogate as \udXXX, which PostgreSQL's json parser
 * refuses ("invalid input syntax for type json"): free text (a column's description an OpenLineage
 * producer sent) may hold one, and the statement would fail whole (found by the fuzz suite).
 */
export function jsonParameter(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "string" ? item.replace(LONE_SURROGATE, "\ufffd") : item));
}

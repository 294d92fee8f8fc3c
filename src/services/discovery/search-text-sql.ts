import { COMPARED_LENGTH, SEARCHED_LENGTH } from "./search-documents";
import { isSeparatorCode } from "./search-text";

/**
 * The fold and the marks of ./search-text.ts as SQL expressions, for the migration that indexes an
 * existing store (prisma/<provider>/migrations/*_search_index) — each database computes them itself
 * there. test/discovery/search-text-sql.test.ts checks both give what the JavaScript gives.
 */

/** SQLite: lower() folds ASCII only (no ICU in better-sqlite3's build), which is the rule. */
export function sqliteFold(expression: string): string {
  return `lower(replace(replace(replace(${expression}, char(1), ' '), char(2), ' '), char(3), ' '))`;
}

/** SQLite has no regular expressions: one replace() per separator character (NUL and the marks never occur in a fold). */
export function sqliteMarkSeparators(folded: string): string {
  let sql = folded;
  for (let code = 4; code < 0x80; code++) if (isSeparatorCode(code)) sql = `replace(${sql}, char(${code}), char(${code}, 1))`;
  return sql;
}

export function sqliteCompared(expression: string): string {
  return sqliteFold(`substr(${expression}, 1, ${COMPARED_LENGTH})`);
}

export function sqliteSearched(expression: string): string {
  return `char(2, 1) || ${sqliteMarkSeparators(sqliteFold(`substr(${expression}, 1, ${SEARCHED_LENGTH})`))} || char(3)`;
}

/** PostgreSQL: the separators as a regular-expression class. */
const PG_SEPARATORS = "\\\\x01-\\\\x2f\\\\x3a-\\\\x40\\\\x5b-\\\\x60\\\\x7b-\\\\x7f";

export function postgresFold(expression: string): string {
  return `translate(${expression}, E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\\x01\\x02\\x03', E'abcdefghijklmnopqrstuvwxyz   ')`;
}

export function postgresCompared(expression: string): string {
  return postgresFold(`left(${expression}, ${COMPARED_LENGTH})`);
}

export function postgresSearched(expression: string): string {
  return `E'\\x02\\x01' || regexp_replace(${postgresFold(`left(${expression}, ${SEARCHED_LENGTH})`)}, E'([${PG_SEPARATORS}])', E'\\\\1\\x01', 'g') || E'\\x03'`;
}

import { Prisma } from "../../generated/sqlite/client";
import type { DbTx } from "../../db/client";

/**
 * Multi-row INSERTs through the transaction's $executeRaw: the typed createMany costs 5–7× on
 * this hot path (../shared/notes/prisma-write-throughput.md). Portable SQL (quoted identifiers,
 * ON CONFLICT DO NOTHING, or DO UPDATE for an upsert) for SQLite and PostgreSQL; rows are chunked
 * under both databases' bind-variable limits. With `returning`, the named column of the rows actually inserted is
 * returned (with ignoreConflicts: which rows were new).
 */
const MAX_BIND_VARIABLES = 30_000;

export async function insertRows(
  tx: DbTx,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  options: { ignoreConflicts?: boolean; returning?: string; update?: { conflict: readonly string[]; columns: readonly string[] } } = {},
): Promise<string[]> {
  if (rows.length === 0) return [];
  const perStatement = Math.max(1, Math.floor(MAX_BIND_VARIABLES / columns.length));
  const head = Prisma.raw(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES `);
  // `update`: an upsert — a row whose key (`conflict`) exists gets these columns from the new row.
  const onConflict = options.update
    ? ` ON CONFLICT (${options.update.conflict.map((c) => `"${c}"`).join(", ")}) DO UPDATE SET ${options.update.columns.map((c) => `"${c}" = excluded."${c}"`).join(", ")}`
    : options.ignoreConflicts
      ? " ON CONFLICT DO NOTHING"
      : "";
  const tail = Prisma.raw(onConflict + (options.returning ? ` RETURNING "${options.returning}"` : ""));
  const returned: string[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const statement = Prisma.sql`${head}${Prisma.join(chunk.map((row) => Prisma.sql`(${Prisma.join(row)})`))}${tail}`;
    if (!options.returning) {
      await tx.$executeRaw(statement);
      continue;
    }
    const key = options.returning;
    for (const row of await tx.$queryRaw<Record<string, unknown>[]>(statement)) returned.push(String(row[key]));
  }
  return returned;
}

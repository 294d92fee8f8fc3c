import { Prisma } from "../../generated/sqlite/client";
import type { DbTx } from "../../db/client";
import { directStatementsOf } from "../../db/direct-statements";
import { jsonParameter } from "../../db/json-list";
import { turnSlicer, yieldToEventLoop } from "./yield";

/**
 * Multi-row INSERTs for the hot path: the typed createMany costs 5–7× here
 * (../shared/notes/prisma-write-throughput.md).
 *
 * In a transaction the commit path opened, statements go past Prisma's query pipeline, whose cost
 * grows with every bound value (src/db/direct-statements.ts): on SQLite one prepared one-row
 * INSERT run per row (cheaper than parsing a multi-row one), on PostgreSQL the rows of a chunk as
 * ONE JSON parameter unpacked by json_populate_recordset (one round trip). Elsewhere (a transaction
 * of someone else's) they are bound values of a portable multi-row VALUES list. Either way the rows
 * go in in the order given (edge ids follow recording order), and big writes are cut into chunks
 * with a turn of the event loop between them, so a 30,000-output execution never holds the
 * process for long (reads on the other connection answer meanwhile). With `returning`, the named
 * column of the rows actually inserted is returned (with ignoreConflicts: which rows were new).
 *
 * Rows that may meet existing ones (ignoreConflicts, update) go in sorted by their values (issue
 * 13, point 1): two transactions inserting the same keys then take their locks in the same order,
 * so they wait for one another instead of deadlocking (two runs re-emitting the same files in
 * another order deadlocked on "Artifact"). The conflict key leads the columns in every such call
 * (Artifact.id; ExecutionArtifact's runId, artifactId, direction, role; DatasetColumn's artifactId,
 * field; …), so sorting by the whole row is sorting by the key. Rows without conflicts keep the
 * order given (edge ids and feed sequences follow recording order), and so do rows inserted
 * `inGivenOrder` (OpenLineage events: their ids are their arrival order).
 */
const ROWS_PER_STATEMENT = 500;
/**
 * Rows per statement run on SQLite, where each runs synchronously; a turn of the event loop is
 * taken between such runs once the current turn has run ROWS_SLICE_MS (a read waiting behind a
 * turn may wait behind several while it is parsed, answered and written out, so turns stay short
 * whatever a row costs: wide rows, many indexes, a loaded machine).
 */
const ROWS_PER_RUN = 25;
const ROWS_SLICE_MS = 10;
/** Bound values per statement on the VALUES path, under both databases' limits. */
const MAX_BIND_VARIABLES = 30_000;

export interface InsertOptions {
  ignoreConflicts?: boolean;
  returning?: string;
  /**
   * Keep the rows in the order given even though they may conflict (their autoincrement ids must follow
   * arrival order, as OpenLineage events' do); such a table takes its deadlock risk to the commit path's retries.
   */
  inGivenOrder?: boolean;
  /** An upsert: a row whose key (`conflict`) exists gets these columns from the new row. */
  update?: { conflict: readonly string[]; columns: readonly string[] };
}

export async function insertRows(tx: DbTx, table: string, columns: readonly string[], given: readonly unknown[][], options: InsertOptions = {}): Promise<string[]> {
  if (given.length === 0) return [];
  const rows = (options.ignoreConflicts || options.update) && !options.inGivenOrder ? inKeyOrder(given) : given;
  const direct = directStatementsOf(tx);
  const perStatement = direct?.provider === "postgres" ? ROWS_PER_STATEMENT : Math.max(1, Math.min(ROWS_PER_STATEMENT, Math.floor(MAX_BIND_VARIABLES / columns.length)));
  const returned: string[] = [];
  if (direct?.runEach && direct.runEachCounted) {
    // RETURNING costs SQLite an ephemeral table per run (50 SearchEntry rows 0.66 → 0.27 ms without): only a
    // generated column (an autoincrement id) is asked for; one the rows give is read from the rows that went in.
    const at = options.returning === undefined ? -1 : columns.indexOf(options.returning);
    const generated = options.returning !== undefined && at < 0;
    const sql = `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})${conflictAndReturning(generated ? options : { ...options, returning: undefined })}`;
    const slice = turnSlicer(ROWS_SLICE_MS);
    for (let start = 0; start < rows.length; start += ROWS_PER_RUN) {
      if (start > 0) await slice();
      const run = rows.slice(start, start + ROWS_PER_RUN);
      if (generated) {
        for (const values of direct.runEach(sql, run)) if (values.length > 0) returned.push(String(values[0]));
      } else {
        const changes = direct.runEachCounted(sql, run);
        if (at >= 0) changes.forEach((changed, i) => changed > 0 && returned.push(String(run[i][at])));
      }
    }
    return returned;
  }
  const json = direct?.provider === "postgres" ? direct : undefined;
  const sql = json ? jsonInsertSql(table, columns, options) : "";
  for (let start = 0; start < rows.length; start += perStatement) {
    if (start > 0) await yieldToEventLoop();
    const chunk = rows.slice(start, start + perStatement);
    if (json) {
      const payload = jsonPayload(columns, chunk);
      if (!options.returning) await json.execute(sql, [payload]);
      else for (const row of (await json.query(sql, [payload])).rows) returned.push(String(row[0]));
      continue;
    }
    const statement = valuesInsert(table, columns, chunk, options);
    if (!options.returning) await tx.$executeRaw(statement);
    else for (const row of await tx.$queryRaw<Record<string, unknown>[]>(statement)) returned.push(String(row[options.returning]));
  }
  return returned;
}

const quoted = (name: string) => `"${name}"`;

function conflictAndReturning(options: InsertOptions): string {
  const onConflict = options.update
    ? ` ON CONFLICT (${options.update.conflict.map(quoted).join(", ")}) DO UPDATE SET ${options.update.columns.map((c) => `${quoted(c)} = excluded.${quoted(c)}`).join(", ")}`
    : options.ignoreConflicts
      ? " ON CONFLICT DO NOTHING"
      : "";
  return onConflict + (options.returning ? ` RETURNING ${quoted(options.returning)}` : "");
}

/** PostgreSQL: each array element is an object keyed by column, typed by the table's own row type, inserted in array order. */
function jsonInsertSql(table: string, columns: readonly string[], options: InsertOptions): string {
  return `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(", ")}) SELECT ${columns.map((c) => `r.${quoted(c)}`).join(", ")} FROM json_populate_recordset(NULL::${quoted(table)}, $1::json) AS r${conflictAndReturning(options)}`;
}

/** Dates as ISO text (UTC), which PostgreSQL reads into timestamp(3) as Prisma writes them; strings well-formed (jsonParameter). */
function jsonPayload(columns: readonly string[], rows: readonly unknown[][]): string {
  const cell = (value: unknown) => (value instanceof Date ? value.toISOString() : value);
  return jsonParameter(
    rows.map((row) => {
      const object: Record<string, unknown> = {};
      columns.forEach((column, i) => (object[column] = cell(row[i])));
      return object;
    }),
  );
}

// bounded: insertRows passes at most perStatement rows, sized to the bind-value limit.
function valuesInsert(table: string, columns: readonly string[], rows: readonly unknown[][], options: InsertOptions) {
  const head = Prisma.raw(`INSERT INTO ${quoted(table)} (${columns.map(quoted).join(", ")}) VALUES `);
  return Prisma.sql`${head}${Prisma.join(rows.map((row) => Prisma.sql`(${Prisma.join(row)})`))}${Prisma.raw(conflictAndReturning(options))}`;
}

/** Rows sorted by their values, column by column: one order for every transaction (strings by code unit, no locale). */
function inKeyOrder(rows: readonly unknown[][]): unknown[][] {
  return [...rows].sort((a, b) => {
    for (let i = 0; i < a.length; i++) {
      const order = compareValues(a[i], b[i]);
      if (order !== 0) return order;
    }
    return 0;
  });
}

function compareValues(a: unknown, b: unknown): number {
  // Keys are strings nearly always (ids, names): compared first, without the general path's checks (20,000 artifacts, ~300,000 comparisons).
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  const x = a instanceof Date ? a.getTime() : typeof a === "boolean" ? Number(a) : a;
  const y = b instanceof Date ? b.getTime() : typeof b === "boolean" ? Number(b) : b;
  if (typeof x === "number" && typeof y === "number") return x - y;
  const [p, q] = [String(x), String(y)];
  return p < q ? -1 : p > q ? 1 : 0;
}

import { createHash } from "node:crypto";
import type { DatabaseProvider } from "./database-url";
import type { RawRows } from "./direct-statements";

/**
 * Statements PostgreSQL keeps prepared on each connection, their plans reused.
 *
 * Planning a statement can cost more than running it: the graph reads are CTEs of 3–6 KB, and a
 * depth-3 lineageGraph on the benchmark's 1.05M-edge store spent about 7 of its 12 ms of database
 * time planning its two statements, every request (EXPLAIN ANALYZE: planning 2.4 and 4.7 ms). A
 * named statement is parsed and planned once per connection; after five runs PostgreSQL keeps one
 * generic plan when it costs no more than the plans made for the values (plan_cache_mode auto), so
 * a statement whose plan depends on its values keeps being planned for them.
 *
 * Opt in by SQL text: a statement that starts with PREPARED_SQL is named (by a digest of its
 * text) when @prisma/adapter-pg hands it to node-postgres (the adapter's statementNameGenerator);
 * every other statement stays unnamed. node-postgres never forgets a statement it prepared on a
 * connection, so only statements of a small set of texts should opt in (values bound, not written
 * into the text; lists bound as one JSON parameter, their planned length rounded: json-list.ts). A
 * text is named once it has run a few times, and past PREPARED_TEXTS_PER_PROCESS texts the rest run
 * unnamed: a connection holds at most that many prepared statements, whatever clients ask.
 *
 * SQLite needs none of this: its connections keep their statements prepared already
 * (reused-statements.ts, direct-statements.ts).
 */
export const PREPARED_SQL = "/* provgraph:prepared */ ";

/**
 * Distinct texts named per process (the server's thread and each heavy-read thread keep their own
 * record); each connection prepares those it runs. PostgreSQL keeps about
 * 1 MB per statement for the biggest graph statements (parse tree, analysed query and generic plan:
 * pg_backend_memory_contexts), so a connection holds at most about 64 MB of them.
 */
export const PREPARED_TEXTS_PER_PROCESS = 64;

/** A text is named from its third run on: one-off texts (an unusual page size) never take a place. */
export const RUNS_BEFORE_NAMED = 2;

/** Texts seen but not yet named, and how often; forgotten in one go when it grows this long. */
const SIGHTINGS_KEPT = 1_000;

const names = new Map<string, string>();
const sightings = new Map<string, number>();

/** The statement's name when it opted in, ran before and the process has room for its text; otherwise undefined (unnamed). */
export function preparedStatementName(sql: string): string | undefined {
  if (!sql.startsWith(PREPARED_SQL)) return undefined;
  const known = names.get(sql);
  if (known !== undefined || names.size >= PREPARED_TEXTS_PER_PROCESS) return known;
  const runs = (sightings.get(sql) ?? 0) + 1;
  if (runs <= RUNS_BEFORE_NAMED) {
    if (sightings.size >= SIGHTINGS_KEPT) sightings.clear();
    sightings.set(sql, runs);
    return undefined;
  }
  sightings.delete(sql);
  // PostgreSQL's names are identifiers of at most 63 bytes.
  const name = `provgraph_${createHash("sha256").update(sql).digest("hex").slice(0, 32)}`;
  names.set(sql, name);
  return name;
}

/**
 * Whether connections to this URL keep prepared statements. A pooler in transaction mode hands each
 * transaction any server connection, where a statement prepared on another is unknown (PgBouncer
 * older than 1.21, or without max_prepared_statements); a URL says it goes through one as Prisma's
 * URLs do, with `pgbouncer=true`, and its statements then all run unnamed.
 */
export function keepsPreparedStatements(connectionString: string): boolean {
  try {
    return new URL(connectionString).searchParams.get("pgbouncer") !== "true";
  } catch {
    return true;
  }
}

/** The text, marked to run as a prepared statement on PostgreSQL (unchanged for SQLite). */
export function preparedSql(provider: DatabaseProvider, sql: string): string {
  return provider === "postgres" ? PREPARED_SQL + sql : sql;
}

/**
 * Marks a prepared text whose plan should not follow its values: on PostgreSQL it runs under
 * plan_cache_mode force_generic_plan (./plan-modes.ts), so its connection plans it once and reuses
 * that plan from then on. PostgreSQL's own rule (plan_cache_mode auto) keeps planning a statement
 * for its values whenever a plan made for them is estimated cheaper than the generic one, which for
 * search's lanes is always: a prefix's range or a LIMIT known only as a parameter makes the generic
 * plan look dearer. Those lanes took 0.7–1.0 ms a statement, planning included, and 0.3 ms on one
 * generic plan, which is the plan the values got anyway (the same indexes; measured on the search
 * benchmark's 1M store). For statements whose every plan is the same index walk, whatever the values.
 */
export const GENERIC_PLAN_SQL = `${PREPARED_SQL}/* provgraph:generic-plan */ `;

/** The text, marked to run prepared on one generic plan on PostgreSQL (unchanged for SQLite). */
export function genericPlanSql(provider: DatabaseProvider, sql: string): string {
  return provider === "postgres" ? GENERIC_PLAN_SQL + sql : sql;
}

/** What reads rows: the read connection (Database.readRows), a heavy-read thread's, a room's reader. */
export interface RowReader {
  provider: DatabaseProvider;
  readRows(sql: string, params: readonly unknown[]): Promise<RawRows>;
}

/** The reader with every statement it runs marked prepared on PostgreSQL (the same reader on SQLite). */
export function preparedReader<R extends RowReader>(reader: R): RowReader {
  if (reader.provider !== "postgres") return reader;
  return { provider: reader.provider, readRows: (sql, params) => reader.readRows(preparedSql(reader.provider, sql), params) };
}

/** The reader with every statement it runs marked prepared on one generic plan on PostgreSQL (the same reader on SQLite). */
export function genericPlanReader<R extends RowReader>(reader: R): RowReader {
  if (reader.provider !== "postgres") return reader;
  return { provider: reader.provider, readRows: (sql, params) => reader.readRows(genericPlanSql(reader.provider, sql), params) };
}

/**
 * Lists built into statements, cut to fit any statement (docs: README "Request limits"; the lint
 * test/lint/sql-lists.test.ts finds a list that is not). A statement may bind at most 32,766 values
 * on SQLite and 65,535 on PostgreSQL, and SQLite refuses an expression nested more than 1,000 deep —
 * which an OR of 1,000 branches is. A list from a request (an event's 100,000 inputs, a closure's
 * 50,000 nodes) can be longer than either: read it a chunk at a time.
 */

/** Values in one `IN (…)` list or `{ in: … }` filter: room left for the statement's other values. */
export const IN_LIST_CHUNK = 10_000;

/**
 * Ids per statement for reads inside a recording's transaction: small enough that one statement and
 * the mapping of its rows are a short task (a join's 20,000 inputs read in ten, each taking its turn).
 */
export const RECORDING_READ_CHUNK = 2_000;

/** Branches in one OR-chain (each branch a few values, each OR one level deeper). */
export const OR_CHAIN_CHUNK = 250;

/**
 * The rows `read` returns for each chunk of `values`, concatenated in chunk order (one statement when
 * the list fits one chunk). Rows of different chunks are not merged or re-sorted: a caller whose
 * statement orders or groups its rows keys them by the chunked column, or sorts the whole.
 */
export async function inChunks<T, R>(values: Iterable<T>, read: (chunk: T[]) => Promise<R[]>, size: number = IN_LIST_CHUNK): Promise<R[]> {
  const list = Array.isArray(values) ? (values as T[]) : [...values];
  if (list.length <= size) return read(list);
  let rows: R[] = [];
  for (let start = 0; start < list.length; start += size) rows = rows.concat(await read(list.slice(start, start + size)));
  return rows;
}

/** inChunks for OR-chains: one statement per OR_CHAIN_CHUNK branches. */
export function orChunks<T, R>(values: Iterable<T>, read: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  return inChunks(values, read, OR_CHAIN_CHUNK);
}

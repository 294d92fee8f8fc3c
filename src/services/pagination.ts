import { InvalidCursorError, PageSizeError } from "./errors";

/** The most rows one page of any connection returns; `first`/`last` above it is an error. */
export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 50;
/** A listing's totalCount counts up to this many (null above): a count stops at the next match. */
export const MAX_COUNTED_LISTED = 1_000;

/** What a keyset-paginated reader is asked for: rows strictly after/before a key, in order. */
export interface KeysetPage<K> {
  after?: K;
  before?: K;
  /** Rows to read (one more than the page, so the caller can tell whether there is a next page). */
  limit: number;
  /** Read from the end backwards (`last`/`before`); the caller reverses the rows. */
  inverted: boolean;
}

export function assertPageSize(field: "first" | "last", value: number | null | undefined): void {
  if (value === null || value === undefined) return;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PAGE_SIZE) throw new PageSizeError(field, value, MAX_PAGE_SIZE);
}

/**
 * Cursors are opaque to clients: base64url of "<connection>:<key>". A cursor from another
 * connection, or one that was edited, is refused rather than silently restarting the list.
 */
export function encodeCursor(connection: string, key: string): string {
  return Buffer.from(`${connection}:${key}`, "utf8").toString("base64url");
}

export function decodeCursor(
  connection: string,
  field: "after" | "before",
  cursor: string,
  isValidKey: (key: string) => boolean,
): string {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  const prefix = `${connection}:`;
  const key = decoded.startsWith(prefix) ? decoded.slice(prefix.length) : "";
  if (!key || !isValidKey(key) || encodeCursor(connection, key) !== cursor) throw new InvalidCursorError(field, cursor);
  return key;
}

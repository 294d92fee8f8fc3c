import type { DefaultConnectionArguments } from "@pothos/plugin-relay";
import { resolveCursorConnection } from "@pothos/plugin-relay";
import { assertPageSize, decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, type KeysetPage, MAX_COUNTED_LISTED, MAX_PAGE_SIZE } from "../services/pagination";
import type { BuilderTypes } from "./builder";

/**
 * Resolves a Relay connection over a keyset reader: checks `first`/`last` against the cap
 * (an error above it, not a silent clamp), decodes cursors (an error for a foreign one), and
 * lets Pothos's resolveCursorConnection build edges and pageInfo.
 */
export interface KeysetConnection<Row> {
  edges: { cursor: string; node: Row }[];
  /** Relay: the cursors of the first and last edge, null on an empty page (no edge to point at). */
  pageInfo: { startCursor: string | null; endCursor: string | null; hasPreviousPage: boolean; hasNextPage: boolean };
}

export async function resolveKeysetConnection<Row, Key>(
  args: DefaultConnectionArguments,
  cursor: { connection: string; keyOf: (row: Row) => string; parseKey: (key: string) => Key | undefined },
  read: (page: KeysetPage<Key>) => Promise<Row[]>,
): Promise<KeysetConnection<Row>> {
  assertPageSize("first", args.first);
  assertPageSize("last", args.last);
  const decode = (field: "after" | "before", value: string): Key =>
    cursor.parseKey(decodeCursor(cursor.connection, field, value, (key) => cursor.parseKey(key) !== undefined)) as Key;
  // Decode eagerly so a bad cursor fails before any query runs.
  const after = args.after ? decode("after", args.after) : undefined;
  const before = args.before ? decode("before", args.before) : undefined;
  const connection = await resolveCursorConnection(
    { args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, toCursor: (row) => encodeCursor(cursor.connection, cursor.keyOf(row as Row)) },
    ({ limit, inverted }): Promise<unknown[]> => read({ after, before, limit, inverted }),
  );
  const page = connection as unknown as KeysetConnection<Row>;
  // Pothos answers "" for an empty page's cursors; "" is no cursor (passing it back is INVALID_CURSOR).
  if (page.edges.length === 0) page.pageInfo = { ...page.pageInfo, startCursor: null, endCursor: null };
  return page;
}

/** A listing's page and, asked for only when `totalCount` is selected, how many it lists in all. */
type CountedPage = { count: () => Promise<number | null> };
export const counted = <Page extends object>(page: Page, count: () => Promise<number | null>): Page & CountedPage => ({ ...page, count });

/** The connection's `totalCount`: one statement, counting up to MAX_COUNTED_LISTED. */
export const totalCount = {
  fields: <Parent extends object>(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Parent>) => ({
    totalCount: t.int({
      nullable: true,
      description: `How many it lists in all (every page, this filter), counted up to ${MAX_COUNTED_LISTED.toLocaleString("en-US")}; null above.`,
      resolve: (page) => (page as unknown as CountedPage).count(),
    }),
  }),
};

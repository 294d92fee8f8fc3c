import type { Db, DbTx } from "../../db/client";
import type { DatabaseProvider } from "../../db/database-url";
import { Prisma } from "../../generated/sqlite/client";
import { type EventJournal, insertRows, type JournalReceipt, type RecordingEvent } from "../recording";
import { eventFromPayload, type FeedEntry, payloadOf, runIdOfEvent } from "./feed-entry";

/** Any constant will do: every instance on one PostgreSQL database must take the same lock. */
const FEED_APPEND_LOCK = 0x70726f76; // "prov"

interface FeedRow {
  sequence: number | bigint;
  kind: string;
  payload: string;
  createdAt: Date | string;
}

/**
 * The feed log (table FeedEvent): every committed recording event, in commit order.
 *
 * Appending is the commit path's journal (EventJournal): one multi-row INSERT inside the unit's
 * transaction, just before it commits. On PostgreSQL the append first takes a transaction-scoped
 * advisory lock, held until the commit, so sequences are handed out in commit order: when a
 * transaction holding sequence n has committed, every sequence below n is committed or will
 * never exist. That is what lets any instance deliver in order by reading the log (FeedHub).
 * SQLite has one writer at a time, so its sequences are in commit order already.
 */
export class FeedLog implements EventJournal {
  /** `db` reads the log (replays, bounds): a client that sees every commit. */
  constructor(
    private readonly db: Db,
    private readonly provider: DatabaseProvider,
  ) {}

  async append(tx: DbTx, events: readonly RecordingEvent[]): Promise<readonly JournalReceipt[]> {
    if (events.length === 0) return [];
    if (this.provider === "postgres") await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${FEED_APPEND_LOCK})`);
    const loggedAt = new Date();
    const sequences = await insertRows(
      tx,
      "FeedEvent",
      ["kind", "runId", "payload", "createdAt"],
      events.map((event) => [event.type, runIdOfEvent(event), payloadOf(event), loggedAt]),
      { returning: "sequence" },
    );
    // One statement's rows get consecutive keys in VALUES order; RETURNING's order is not promised.
    return sequences
      .map(Number)
      .sort((a, b) => a - b)
      .map((sequence) => ({ sequence, loggedAt }));
  }

  /** Entries with after < sequence ≤ upTo, oldest first, at most `limit`. */
  async read(after: number, upTo: number, limit: number): Promise<FeedEntry[]> {
    const rows = await this.db.$queryRaw<FeedRow[]>(
      Prisma.sql`SELECT "sequence", "kind", "payload", "createdAt" FROM "FeedEvent" WHERE "sequence" > ${after} AND "sequence" <= ${upTo} ORDER BY "sequence" LIMIT ${limit}`,
    );
    return rows.map((row) => ({ sequence: Number(row.sequence), committedAt: new Date(row.createdAt), event: eventFromPayload(row.kind, row.payload) }));
  }

  /** The oldest and newest sequences kept (null in an empty log). */
  async bounds(): Promise<{ oldest: number; newest: number } | null> {
    const [row] = await this.db.$queryRaw<{ oldest: number | bigint | null; newest: number | bigint | null }[]>(
      Prisma.sql`SELECT MIN("sequence") AS "oldest", MAX("sequence") AS "newest" FROM "FeedEvent"`,
    );
    return row?.newest === null || row?.newest === undefined ? null : { oldest: Number(row.oldest), newest: Number(row.newest) };
  }

  /** The newest sequence kept, 0 in an empty log. */
  async head(): Promise<number> {
    return (await this.bounds())?.newest ?? 0;
  }

  /** The sequence of the first event logged after `time` (by the log's clock), or null. */
  async firstAfter(time: Date): Promise<number | null> {
    const [row] = await this.db.$queryRaw<{ sequence: number | bigint }[]>(
      Prisma.sql`SELECT "sequence" FROM "FeedEvent" WHERE "createdAt" > ${time} ORDER BY "createdAt", "sequence" LIMIT 1`,
    );
    return row ? Number(row.sequence) : null;
  }

  /** Deletes the entries with sequence ≤ `through` (in a unit of the commit path: the writer's transaction); answers how many went. */
  async prune(tx: DbTx, through: number): Promise<number> {
    return tx.$executeRaw(Prisma.sql`DELETE FROM "FeedEvent" WHERE "sequence" <= ${through}`);
  }
}

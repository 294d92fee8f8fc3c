import type { Db, DbTx } from "../db/client";
import { ownTransaction } from "../db/own-transaction";
import { insertRows } from "../services/recording/bulk-insert";
import type { KeysetPage } from "../services/pagination";

export const AUDIT_CHANNELS = ["HTTP", "WS", "CLI", "STARTUP"] as const;
export type AuditChannel = (typeof AUDIT_CHANNELS)[number];

/** One entry of the audit trail: who did what to which ids, when, through what, and how it ended. */
export interface AuditEventRecord {
  id: number;
  at: Date;
  /** The token's name, "open mode", "cli:<user>" or "PROVGRAPH_BOOTSTRAP_TOKEN". */
  actor: string;
  tokenId: string | null;
  via: AuditChannel;
  /** The mutation (createApiToken, recordExecution, …); the CLI records its commands under the same names. */
  action: string;
  /** The ids it touched (created, recorded, revoked), or the ids it was asked to touch when it failed. */
  targets: string[];
  /** OK, or the code the mutation ended with (FORBIDDEN, NOT_FOUND, OPERATION_DECLARATION, …). */
  outcome: string;
  requestId: string | null;
}

export type NewAuditEvent = Omit<AuditEventRecord, "id" | "at"> & { at?: Date };

/** The append-only `AuditEvent` table (UPDATE and DELETE are refused by triggers). */
export class AuditLog {
  constructor(private readonly db: Db) {}

  /**
   * `tx`: a transaction to append in, so the entry commits with what it describes. A raw INSERT:
   * on the recording path Prisma's typed create costs several times as much.
   */
  async append(event: NewAuditEvent, tx?: DbTx): Promise<void> {
    // Alone, in a transaction of its own: on SQLite a statement outside one would run inside
    // whatever transaction the commit path has open on the writer, and share its fate.
    if (!tx) return ownTransaction(this.db, (own) => this.append(event, own));
    await insertRows(
      tx,
      "AuditEvent",
      ["at", "actor", "tokenId", "via", "action", "targets", "outcome", "requestId"],
      [[event.at ?? new Date(), event.actor, event.tokenId, event.via, event.action, JSON.stringify(event.targets), event.outcome, event.requestId]],
    );
  }

  /** Newest first: "after" a cursor means older (smaller) ids. */
  async list(page: KeysetPage<number>): Promise<AuditEventRecord[]> {
    const range: { lt?: number; gt?: number } = {};
    if (page.after !== undefined) range.lt = page.after;
    if (page.before !== undefined) range.gt = page.before;
    const rows = await this.db.auditEvent.findMany({
      where: page.after !== undefined || page.before !== undefined ? { id: range } : {},
      orderBy: { id: page.inverted ? "asc" : "desc" },
      take: page.limit,
    });
    return rows.map((row) => ({ ...row, via: row.via as AuditChannel, targets: JSON.parse(row.targets) as string[] }));
  }
}

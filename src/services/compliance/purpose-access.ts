import type { Db, DbTx } from "../../db/client";
import { type CommitPath, insertRows } from "../recording";

/** What a tagged value read under a purpose was: columns of an artifact, an artifact as a whole, what a run reported, a dataset's events. */
export type PurposeAccessKind = "COLUMNS" | "ARTIFACT" | "RUN" | "DATASET";

/**
 * One access to tagged values under a purpose: who, under which purpose, what, the tags it held, how.
 * The columns of one artifact a request (or a run) read are one access (COLUMNS), each column with its
 * own tags: a read of a 20-column table is one row of the audit, not 20.
 */
export interface PurposeAccessEntry {
  principal: string;
  tokenId: string | null;
  purpose: string;
  kind: PurposeAccessKind;
  /** The artifact read ("" for what a run reported; namespace/name for a dataset). */
  artifactId: string;
  /** The run id (RUN); "" otherwise. */
  field: string;
  /** The tags it held (COLUMNS: written as every tag of its columns). */
  tags: readonly string[];
  /** COLUMNS: each column read, with its tags; null otherwise. */
  columns: Map<string, readonly string[]> | null;
  /** READ: a request read it; RUN: a run recorded under the purpose read it as an input. */
  via: "READ" | "RUN";
  runId: string | null;
  requestId: string | null;
  at: Date;
}

/** Which purposes a column (or an artifact) has served, by whom: one row per purpose, principal and way. */
export interface PurposeServedRecord {
  purpose: string;
  principal: string;
  via: "READ" | "RUN";
  /** Requests (or runs) that read it so. */
  accesses: number;
  tags: string[];
  firstAt: Date;
  lastAt: Date;
}

const COLUMNS = ["principal", "tokenId", "purpose", "kind", "artifactId", "field", "tags", "columns", "via", "runId", "requestId", "createdAt"];
const sorted = (tags: Iterable<string>) => [...new Set(tags)].sort();
function rowOf(e: PurposeAccessEntry): unknown[] {
  const columns = e.columns === null ? null : [...e.columns.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const tags = columns === null ? sorted(e.tags) : sorted(columns.flatMap(([, tags]) => tags));
  const byColumn = columns === null ? null : JSON.stringify(Object.fromEntries(columns.map(([field, tags]) => [field, sorted(tags)])));
  return [e.principal, e.tokenId, e.purpose, e.kind, e.artifactId, e.field, JSON.stringify(tags), byColumn, e.via, e.runId, e.requestId, e.at];
}

/** The columns a COLUMNS row holds, each with its tags (an own property lookup: a column may be named "constructor"). */
export function columnsOfRow(columns: string | null): Map<string, string[]> {
  return new Map(columns === null ? [] : Object.entries(JSON.parse(columns) as Record<string, string[]>));
}

/** Entries kept before they are written at once (a flush happens sooner when this many wait). */
const FLUSH_AT = 500;

/**
 * The purpose audit (docs: "Purposes"): every tagged value a request reads under a purpose, and every
 * tagged input of a run recorded under one. Reads are noted on the read path and written in batches
 * a moment later (a read never waits for a write; `flush` writes what waits, and the admin query and
 * shutdown flush first), a batch as one unit of the commit path (its statements straight to the
 * driver: a batch of 500 reads is 500 rows of 11 values); runs' accesses are written in the
 * recording's own transaction.
 */
export class PurposeAccessLog {
  /** Noted and not yet being written, in the order noted (a Set: a request adds columns to its entry while it waits). */
  private pending = new Set<PurposeAccessEntry>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly commits: CommitPath,
    private readonly reader: Db,
    private readonly delayMs = 200,
  ) {}

  /** Notes reads to write with the next batch. */
  note(entries: readonly PurposeAccessEntry[]): void {
    if (entries.length === 0) return;
    for (const entry of entries) this.pending.add(entry);
    if (this.pending.size >= FLUSH_AT) void this.flush().catch(() => undefined);
    else this.schedule();
  }

  /**
   * Adds a column to a COLUMNS entry noted by the same request, while the entry waits to be written;
   * false once it is being written (or was): the request then notes a new entry for its next columns.
   */
  addColumn(entry: PurposeAccessEntry, field: string, tags: readonly string[]): boolean {
    if (entry.columns === null || !this.pending.has(entry)) return false;
    entry.columns.set(field, tags);
    return true;
  }

  /**
   * Writes every noted read (one unit of the commit path), after any batch already being written. A
   * batch that fails to write is kept, first in line, and tried again a moment later (and by the
   * next flush): a read once noted is written or still waiting, never dropped; the caller of flush
   * hears the failure.
   */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.pending];
    this.pending = new Set();
    const write = this.writing
      .catch(() => undefined)
      .then(async () => {
        if (batch.length === 0) return;
        try {
          await this.commits.run((tx) => writePurposeAccesses(tx, batch));
        } catch (error) {
          this.pending = new Set([...batch, ...this.pending]);
          this.schedule();
          throw error;
        }
      });
    this.writing = write;
    return write;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush().catch(() => undefined), this.delayMs);
    this.timer.unref();
  }

  /**
   * Which purposes `artifactId` (its column `field`, or the artifact as a whole when null) has served,
   * by whom; most accesses first. A column's accesses are the COLUMNS rows that hold it (and the
   * one-column COLUMN rows of earlier versions of this audit), one per request or run.
   */
  async served(target: { artifactId: string; field: string | null }): Promise<PurposeServedRecord[]> {
    await this.flush();
    const { artifactId, field } = target;
    const rows = await this.reader.purposeAccess.findMany({
      where: { artifactId, ...(field === null ? { kind: "ARTIFACT" } : { OR: [{ kind: "COLUMNS" }, { kind: "COLUMN", field }] }) },
      orderBy: { id: "asc" },
    });
    const grouped = new Map<string, PurposeServedRecord>();
    for (const row of rows) {
      const tags = field !== null && row.kind === "COLUMNS" ? columnsOfRow(row.columns).get(field) : (JSON.parse(row.tags) as string[]);
      if (tags === undefined) continue;
      const key = JSON.stringify([row.purpose, row.principal, row.via]);
      const seen = grouped.get(key);
      if (!seen) grouped.set(key, { purpose: row.purpose, principal: row.principal, via: row.via as "READ" | "RUN", accesses: 1, tags, firstAt: row.createdAt, lastAt: row.createdAt });
      else {
        seen.accesses++;
        seen.tags = [...new Set([...seen.tags, ...tags])].sort();
        seen.lastAt = row.createdAt;
      }
    }
    return [...grouped.values()].sort((a, b) => b.accesses - a.accesses || a.purpose.localeCompare(b.purpose) || a.principal.localeCompare(b.principal));
  }
}

/** Writes accesses inside a transaction (a run's tagged inputs, with its recording). */
export async function writePurposeAccesses(tx: DbTx, entries: readonly PurposeAccessEntry[]): Promise<void> {
  if (entries.length > 0) await insertRows(tx, "PurposeAccess", COLUMNS, entries.map(rowOf));
}

import type { Database, DbTx } from "../../db/client";
import { directStatementsOf } from "../../db/direct-statements";
import {
  type CommitListener,
  CommitListeners,
  type CommitPath,
  type EventJournal,
  type JournalReceipt,
  type RecordingEvent,
  type RecordingUnit,
  TRANSACTION_OPTIONS,
  type UnitScope,
  warnOnListenerError,
} from "./commit-path";

export interface GroupCommitOptions {
  /** The feed log, written once per transaction just before COMMIT (see EventJournal). */
  journal?: EventJournal;
  reportListenerError?: (error: unknown) => void;
  /** Units one transaction takes at most (the others wait for the next). */
  maxUnitsPerTransaction?: number;
  /** After this long (ms), a transaction takes no further unit: callers in it are answered after its commit. */
  maxTransactionMs?: number;
}

interface Queued {
  unit: RecordingUnit<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Ran {
  queued: Queued;
  outcome: { ok: true; value: unknown; events: RecordingEvent[] } | { ok: false; error: unknown };
}

/** The first unit of a transaction failed before anything else was in it: the whole transaction is rolled back. */
class FirstUnitFailed extends Error {}

/**
 * Group commit (DESIGN "Write path"): units handed in while the database is busy are coalesced into
 * one transaction, each in a savepoint of its own — a unit that throws is rolled back to its
 * savepoint alone (on PostgreSQL also clearing the error state, so the next unit's statements run)
 * and its caller gets its error; the others commit together. Every caller is answered only after
 * the COMMIT that holds its unit (or with that COMMIT's error); listeners hear each transaction's
 * events in commit order. One transaction is open at a time, on the writer: units see the writes
 * of the units before them in the same transaction.
 *
 * A unit must await every statement it starts: one still in flight when it throws could land
 * after its savepoint was rolled back.
 */
export class GroupCommit implements CommitPath {
  private readonly queue: Queued[] = [];
  private readonly listeners: CommitListeners;
  private draining = false;
  private transactions = 0;
  private units = 0;
  private readonly maxUnits: number;
  private readonly maxMs: number;

  constructor(
    private readonly database: Pick<Database, "transaction">,
    private readonly options: GroupCommitOptions = {},
  ) {
    this.listeners = new CommitListeners(options.reportListenerError ?? warnOnListenerError);
    this.maxUnits = options.maxUnitsPerTransaction ?? 100;
    this.maxMs = options.maxTransactionMs ?? 100;
  }

  run<T>(unit: RecordingUnit<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ unit: unit as RecordingUnit<unknown>, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // One turn first, so units handed in together (a batch, concurrent requests) share the transaction.
        setImmediate(() => void this.drain());
      }
    });
  }

  onCommitted(listener: CommitListener): () => void {
    return this.listeners.add(listener);
  }

  /** Since start: transactions committed, and units run (whether they were kept or rolled back): how well units coalesce. */
  stats(): { transactions: number; units: number } {
    return { transactions: this.transactions, units: this.units };
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.commitNext();
    } finally {
      this.draining = false;
    }
  }

  /** One transaction: as many queued units as fit, then the journal, then COMMIT, then the answers. */
  private async commitNext(): Promise<void> {
    const ran: Ran[] = [];
    let receipts: readonly JournalReceipt[] = [];
    let failure: { error: unknown } | undefined;
    try {
      // The one place the commit path opens a transaction.
      await this.database.transaction(async (tx) => {
        const started = performance.now();
        let savepoints = 0;
        while (this.queue.length > 0 && ran.length < this.maxUnits && (ran.length === 0 || performance.now() - started < this.maxMs)) {
          const queued = this.queue.shift()!;
          // Nothing committed-to-be yet: the unit needs no savepoint (if it fails, the transaction is rolled back).
          const protect = ran.some((r) => r.outcome.ok);
          const savepoint = `unit_${++savepoints}`;
          if (protect) await statement(tx, `SAVEPOINT ${savepoint}`);
          const events: RecordingEvent[] = [];
          const scope: UnitScope = { emit: (event) => void events.push(event) };
          try {
            const value = await queued.unit(tx, scope);
            if (protect) await statement(tx, `RELEASE SAVEPOINT ${savepoint}`);
            ran.push({ queued, outcome: { ok: true, value, events } });
          } catch (error) {
            ran.push({ queued, outcome: { ok: false, error } });
            if (!protect) throw new FirstUnitFailed();
            await statement(tx, `ROLLBACK TO SAVEPOINT ${savepoint}`);
            await statement(tx, `RELEASE SAVEPOINT ${savepoint}`);
          }
        }
        const events = ran.flatMap((r) => (r.outcome.ok ? r.outcome.events : []));
        if (this.options.journal && events.length > 0) receipts = await this.options.journal.append(tx, events);
      }, TRANSACTION_OPTIONS);
    } catch (error) {
      if (!(error instanceof FirstUnitFailed)) failure = { error };
    }
    this.units += ran.length;
    if (!failure && ran.some((r) => r.outcome.ok)) this.transactions += 1;
    if (!failure) this.listeners.announce(ran.flatMap((r) => (r.outcome.ok ? r.outcome.events : [])), receipts);
    for (const { queued, outcome } of ran) {
      if (!outcome.ok) queued.reject(outcome.error);
      else if (failure) queued.reject(failure.error);
      else queued.resolve(outcome.value);
    }
  }
}

/** A statement on the unit's transaction: straight to the driver when the commit path opened it. */
async function statement(tx: DbTx, sql: string): Promise<void> {
  const direct = directStatementsOf(tx);
  if (direct) await direct.execute(sql, []);
  else await tx.$executeRawUnsafe(sql);
}

import type { Database, DbTx } from "../../db/client";
import { directStatementsOf } from "../../db/direct-statements";
import { isTransactionEnded } from "../../db/transaction-ends";
import { isTransactionConflict } from "../../db/unavailable";
import { TransactionConflictError, TransactionTimeoutError } from "../errors";
import { inCpuPhase } from "../../cpu-phases";
import {
  type CommitListener,
  CommitListeners,
  type CommitPath,
  type EventJournal,
  type JournalReceipt,
  type RecordingEvent,
  type RecordingUnit,
  runUnit,
  TRANSACTION_OPTIONS,
  type UnitFinisher,
  type UnitScope,
  warnOnListenerError,
} from "./commit-path";

export interface GroupCommitOptions {
  /** The feed log, written once per transaction just before COMMIT (see EventJournal). */
  journal?: EventJournal;
  /** Run after each unit, in its savepoint, with what it staged (policy-tag propagation, the suppression check). */
  finishUnit?: UnitFinisher;
  reportListenerError?: (error: unknown) => void;
  /** Units one transaction takes at most (the others wait for the next). */
  maxUnitsPerTransaction?: number;
  /** After this long (ms), a transaction takes no further unit: callers in it are answered after its commit. */
  maxTransactionMs?: number;
  /** How long (ms) a transaction may stay open before the database layer rolls it back (default TRANSACTION_OPTIONS.timeout). */
  transactionTimeoutMs?: number;
}

interface Queued {
  unit: RecordingUnit<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown; events: RecordingEvent[] } | { ok: false; error: unknown };

interface Ran {
  queued: Queued;
  outcome: Outcome;
}

/** The first unit of a transaction failed before anything else was in it: the whole transaction is rolled back. */
class FirstUnitFailed extends Error {}

/** The transaction ended (rolled back past its timeout) while this unit ran in it: the unit fails, the others run again. */
class EndedUnder extends Error {
  constructor(
    readonly queued: Queued,
    readonly ended: unknown,
  ) {
    super("transaction ended under a unit");
  }
}

/**
 * A unit failed and its savepoint could not be rolled back: the transaction is in no state to go on.
 * The unit's caller keeps the unit's own error; the others hear why the transaction failed.
 */
class UndoFailed extends Error {
  constructor(readonly undo: unknown) {
    super("rolling a failed unit back to its savepoint failed");
  }
}

/** What the other callers of a transaction hear when a failed unit could not be undone: the unit's error is its cause. */
export class SavepointUndoError extends Error {
  constructor(
    readonly undo: unknown,
    unitError: unknown,
  ) {
    super(`a recording sharing this transaction failed and could not be rolled back to its savepoint (${String((undo as Error)?.message ?? undo)}); nothing of the transaction was committed`, { cause: unitError });
    this.name = "SavepointUndoError";
  }
}

/** A unit met a deadlock or a serialization failure: the whole transaction is rolled back and run again. */
class ConflictMet extends Error {
  constructor(readonly conflict: unknown) {
    super("transaction conflict");
  }
}

/** Attempts of one transaction that meets deadlocks or serialization failures (issue 13, point 1). */
export const MAX_TRANSACTION_ATTEMPTS = 5;

/**
 * Group commit (DESIGN "Write path"): units handed in while the database is busy are coalesced into
 * one transaction, each in a savepoint of its own — a unit that throws is rolled back to its
 * savepoint alone (on PostgreSQL also clearing the error state, so the next unit's statements run)
 * and its caller gets its error; the others commit together. Every caller is answered only after
 * the COMMIT that holds its unit (or with that COMMIT's error); listeners hear each transaction's
 * events in commit order. One transaction is open at a time, on the writer: units see the writes
 * of the units before them in the same transaction.
 *
 * A transaction that meets a deadlock (40P01), a serialization failure (40001) or, on SQLite, a
 * busy database — in a unit or at COMMIT — is rolled back whole and run again, up to
 * MAX_TRANSACTION_ATTEMPTS times with a short random backoff: its surviving units (all but those
 * that failed on their own, whose callers keep that answer) rerun from their start, in the same
 * order, so a unit must write only through `tx` and `scope`. Each caller is answered once, with
 * the outcome of the last attempt; on the last, a unit that meets a conflict fails alone with
 * TransactionConflictError (rolled back to its savepoint) and the others commit.
 *
 * A unit must await every statement it starts: one still in flight when it throws could land
 * after its savepoint was rolled back.
 *
 * A transaction that outlives its time limit (transactionTimeoutMs) is rolled back by the database
 * layer while its unit still runs; the unit's statements after that are refused (they never run
 * outside the transaction: src/db/transaction-ends.ts). The unit it ended under fails with
 * TransactionTimeoutError; the units before it, rolled back with it, run again in a new transaction.
 */
export class GroupCommit implements CommitPath {
  private readonly queue: Queued[] = [];
  private readonly listeners: CommitListeners;
  private draining = false;
  private transactions = 0;
  private units = 0;
  private retries = 0;
  private readonly maxUnits: number;
  private readonly maxMs: number;
  private readonly transactionOptions: { maxWait: number; timeout: number };

  constructor(
    private readonly database: Pick<Database, "transaction">,
    private readonly options: GroupCommitOptions = {},
  ) {
    this.listeners = new CommitListeners(options.reportListenerError ?? warnOnListenerError);
    this.maxUnits = options.maxUnitsPerTransaction ?? 100;
    this.maxMs = options.maxTransactionMs ?? 100;
    this.transactionOptions = { ...TRANSACTION_OPTIONS, timeout: options.transactionTimeoutMs ?? TRANSACTION_OPTIONS.timeout };
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

  /**
   * Since start: transactions committed, units run (whether they were kept or rolled back; a rerun
   * counts again): how well units coalesce; and transactions run again after a conflict.
   */
  stats(): { transactions: number; units: number; retries: number } {
    return { transactions: this.transactions, units: this.units, retries: this.retries };
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.commitNext();
    } finally {
      this.draining = false;
    }
  }

  /**
   * One transaction: as many queued units as fit, then the journal, then COMMIT, then the answers —
   * run again (its surviving units only) while it meets conflicts and attempts remain.
   */
  private async commitNext(): Promise<void> {
    /** The units this transaction took from the queue, in order; those settled failed on their own. */
    const taken: Queued[] = [];
    const settled = new Map<Queued, unknown>();
    let attempts = 0;
    for (;;) {
      const attempt = await this.attempt(taken, settled, attempts + 1 === MAX_TRANSACTION_ATTEMPTS ? attempts + 1 : undefined);
      if (attempt.kind === "conflict" && attempts + 1 < MAX_TRANSACTION_ATTEMPTS) {
        attempts += 1;
        this.retries += 1;
        // Let the transaction that won go first (it holds what ours waited for); both backing off at once would meet again.
        await new Promise((resolve) => setTimeout(resolve, 2 ** attempts * 5 + Math.random() * 20));
        continue;
      }
      if (attempt.kind === "ended") {
        // The unit it ended under fails alone; the units rolled back with it (before it) run again, in a new transaction.
        settled.set(attempt.queued, new TransactionTimeoutError(this.transactionOptions.timeout, attempt.error));
        if (taken.some((q) => !settled.has(q))) continue;
      }
      if (attempt.kind === "firstUnitFailed" && taken.some((q) => !settled.has(q))) continue;
      const failure = attempt.kind === "conflict" ? new TransactionConflictError(attempts + 1, attempt.error) : attempt.kind === "failed" ? attempt.error : undefined;
      if (taken.length === 0 && failure !== undefined) {
        // The transaction could not even begin (the database is down, say): the queued units would all meet the same.
        taken.push(...this.queue.splice(0));
      }
      if (attempt.kind === "committed") {
        this.transactions += 1;
        this.listeners.announce(attempt.ran.flatMap((r) => (r.outcome.ok ? r.outcome.events : [])), attempt.receipts);
      }
      const outcomes = new Map(attempt.kind === "committed" ? attempt.ran.map((r) => [r.queued, r.outcome] as const) : []);
      for (const queued of taken) {
        if (settled.has(queued)) queued.reject(settled.get(queued));
        else if (failure !== undefined) queued.reject(failure);
        else {
          const outcome = outcomes.get(queued)!;
          if (outcome.ok) queued.resolve(outcome.value);
          else queued.reject(outcome.error);
        }
      }
      return;
    }
  }

  /**
   * One attempt of the transaction: first the surviving units it took before (a rerun), else units
   * from the queue as they fit. Units that fail on their own are settled (their error kept for
   * their caller) and, but for the first, rolled back to their savepoint.
   */
  private async attempt(
    taken: Queued[],
    settled: Map<Queued, unknown>,
    /** Set on the last attempt: a unit that meets a conflict then fails on its own (TransactionConflictError) and the others go on. */
    lastOf?: number,
  ): Promise<
    | { kind: "committed"; ran: Ran[]; receipts: readonly JournalReceipt[] }
    | { kind: "conflict"; error: unknown }
    | { kind: "firstUnitFailed" }
    | { kind: "ended"; queued: Queued; error: unknown }
    | { kind: "failed"; error: unknown }
  > {
    const ran: Ran[] = [];
    let receipts: readonly JournalReceipt[] = [];
    const rerun = taken.filter((q) => !settled.has(q));
    const fromQueue = rerun.length === 0;
    try {
      // The one place the commit path opens a transaction.
      await this.database.transaction(async (tx) => {
        const started = performance.now();
        let savepoints = 0;
        const next = (): Queued | undefined => {
          if (!fromQueue) return rerun.shift();
          if (this.queue.length === 0 || ran.length >= this.maxUnits || (ran.length > 0 && performance.now() - started >= this.maxMs)) return undefined;
          const queued = this.queue.shift()!;
          taken.push(queued);
          return queued;
        };
        for (let queued = next(); queued !== undefined; queued = next()) {
          // Nothing committed-to-be yet: the unit needs no savepoint (if it fails, the transaction is rolled back).
          const protect = ran.some((r) => r.outcome.ok);
          const savepoint = `unit_${++savepoints}`;
          if (protect) await statement(tx, `SAVEPOINT ${savepoint}`);
          const events: RecordingEvent[] = [];
          const scope: UnitScope = { emit: (event) => void events.push(event) };
          this.units += 1;
          try {
            const value = await runUnit(tx, queued.unit, scope, this.options.finishUnit);
            if (protect) await statement(tx, `RELEASE SAVEPOINT ${savepoint}`);
            ran.push({ queued, outcome: { ok: true, value, events } });
          } catch (thrown) {
            // Its statements (or its RELEASE) found the transaction over: nothing of this attempt is left to keep.
            if (isTransactionEnded(thrown)) throw new EndedUnder(queued, thrown);
            if (isTransactionConflict(thrown) && lastOf === undefined) throw new ConflictMet(thrown);
            const error = isTransactionConflict(thrown) ? new TransactionConflictError(lastOf!, thrown) : thrown;
            settled.set(queued, error);
            ran.push({ queued, outcome: { ok: false, error } });
            if (!protect) throw new FirstUnitFailed();
            try {
              await statement(tx, `ROLLBACK TO SAVEPOINT ${savepoint}`);
              await statement(tx, `RELEASE SAVEPOINT ${savepoint}`);
            } catch (undo) {
              // The unit's caller keeps the unit's own error (settled above), not this one.
              if (isTransactionEnded(undo)) throw new EndedUnder(queued, undo);
              throw new UndoFailed(new SavepointUndoError(undo, error));
            }
          }
        }
        const events = ran.flatMap((r) => (r.outcome.ok ? r.outcome.events : []));
        if (this.options.journal && events.length > 0) receipts = await inCpuPhase("feedLog", () => this.options.journal!.append(tx, events));
      }, this.transactionOptions);
    } catch (error) {
      if (error instanceof FirstUnitFailed) return { kind: "firstUnitFailed" };
      if (error instanceof EndedUnder) {
        // Its own error stays its answer if it had one; else the timeout is.
        if (settled.has(error.queued) && !isTransactionEnded(settled.get(error.queued))) return { kind: "firstUnitFailed" };
        settled.delete(error.queued);
        return { kind: "ended", queued: error.queued, error: error.ended };
      }
      if (error instanceof UndoFailed) return { kind: "failed", error: error.undo };
      // The journal or the COMMIT found the transaction over: every unit in it is answered with the timeout.
      if (isTransactionEnded(error)) return { kind: "failed", error: new TransactionTimeoutError(this.transactionOptions.timeout, error) };
      if (error instanceof ConflictMet) return { kind: "conflict", error: error.conflict };
      // At COMMIT, or BEGIN (no unit taken yet: a busy SQLite file is tried again like a conflict).
      if (isTransactionConflict(error)) return { kind: "conflict", error };
      return { kind: "failed", error };
    }
    return { kind: "committed", ran, receipts };
  }
}

/** A statement on the unit's transaction: straight to the driver when the commit path opened it. */
async function statement(tx: DbTx, sql: string): Promise<void> {
  const direct = directStatementsOf(tx);
  if (direct) await direct.execute(sql, []);
  else await tx.$executeRawUnsafe(sql);
}

import type { ProvenanceEdgeDraft } from "../../../plugins/types";
import type { Db, DbTx } from "../../db/client";
import type { RunId } from "../ids";
import type { ExecutionRecord, ExecutionStatus } from "../records";
import { inCpuPhase } from "../../cpu-phases";
import { beginUnitWrites, endUnitWrites, isEmptyUnitWrites, type UnitWrites } from "./unit-writes";

/**
 * What a committed recording tells the rest of the system (feeds publish these, in commit order):
 * - EXECUTION_RECORDED: a new execution (recordExecution, a composite's steps, an OpenLineage run's
 *   first event), with the lineage edges recorded with it;
 * - EXECUTION_STATUS_CHANGED: a recorded execution's derived state moved on (an OpenLineage run's
 *   later START / RUNNING / COMPLETE / FAIL / ABORT event); `execution` is its state after the change;
 * - LINEAGE_RECORDED: edges added to an execution recorded earlier (outputs an OpenLineage run
 *   reports in a later event).
 */
export type RecordingEvent =
  | { type: "EXECUTION_RECORDED"; execution: ExecutionRecord; edges: readonly ProvenanceEdgeDraft[] }
  | { type: "EXECUTION_STATUS_CHANGED"; execution: ExecutionRecord; previousStatus: ExecutionStatus }
  | { type: "LINEAGE_RECORDED"; runId: RunId; edges: readonly ProvenanceEdgeDraft[] };

/** What a recording unit may do besides writing through its transaction. */
export interface UnitScope {
  /** Announce something the unit wrote; delivered to listeners only once the unit's writes are committed. */
  emit(event: RecordingEvent): void;
}

/**
 * One atomic piece of recording: every row it writes through `tx` is committed together or not at
 * all. A unit that throws leaves nothing behind, and the events it emitted are dropped.
 */
export type RecordingUnit<T> = (tx: DbTx, scope: UnitScope) => Promise<T>;

/** What a journal answered for one event: its place in the feed and the time it was logged under. */
export interface JournalReceipt {
  sequence: number;
  loggedAt: Date;
}

/**
 * Keeps a transaction's events where they outlive the process (the feed log, src/services/feeds).
 * Called once per transaction, inside it, after its units and just before the commit, with every
 * event of the units it holds, in order; it answers one receipt per event, in the same order. It
 * is on the hot path: one statement or two, never a read that grows with the store.
 */
export interface EventJournal {
  append(tx: DbTx, events: readonly RecordingEvent[]): Promise<readonly JournalReceipt[]>;
}

/**
 * What runs at the end of every unit, inside its transaction, with everything the unit staged
 * (./unit-writes.ts): the suppression check of declared data subjects and the propagate plugins
 * (src/services/services.ts composes it). A throw rolls the unit back like any failure of the unit.
 */
export type UnitFinisher = (tx: DbTx, writes: UnitWrites) => Promise<void>;

/**
 * Hears what one transaction committed: every event of the units it held, in the order they ran;
 * `receipts[i]` is the journal's answer for `events[i]` (empty when the path has no journal).
 */
export type CommitListener = (events: readonly RecordingEvent[], receipts: readonly JournalReceipt[]) => void;

/**
 * The one way recordings reach the database (DESIGN "Write path"): recordExecution, batches,
 * composites and OpenLineage ingestion all hand units to it. A caller's promise settles only after
 * the commit that holds its unit; listeners then hear its events, in commit order.
 */
export interface CommitPath {
  run<T>(unit: RecordingUnit<T>): Promise<T>;
  /** Listen to committed events; returns a function that stops listening. */
  onCommitted(listener: CommitListener): () => void;
}

/**
 * Runs one unit in `tx` (a transaction of its own, or its savepoint in a shared one), noting what
 * it stages, then its finisher with that, still inside the transaction: a finisher that throws
 * fails the unit.
 */
export async function runUnit<T>(tx: DbTx, unit: RecordingUnit<T>, scope: UnitScope, finishUnit?: UnitFinisher): Promise<T> {
  beginUnitWrites(tx);
  let value: T;
  let writes: UnitWrites;
  try {
    value = await unit(tx, scope);
  } finally {
    writes = endUnitWrites(tx);
  }
  if (finishUnit && !isEmptyUnitWrites(writes)) await finishUnit(tx, writes);
  return value;
}

/**
 * Big executions may take a while inside their transaction; waiting for the write lock is bounded.
 * The time limit only frees the writer from a unit that never finishes: one that is still working
 * when it is met fails (TRANSACTION_TIMEOUT), however far it got. A 30,000-output recording while
 * reads and 8 writers take turns with it (bench row readsDuringWrites) took 52 s at load 5 on 2
 * cores; at the loads CI and several benches reach together it met the former 120 s limit (the
 * bench failed with "no such savepoint" then): 10 minutes leaves big writes room.
 */
export const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 600_000 };

export const warnOnListenerError = (error: unknown) => process.emitWarning(`commit listener failed: ${String(error)}`);

/** Listeners of a commit path; a listener that throws is reported and does not stop the others. */
export class CommitListeners {
  private readonly listeners = new Set<CommitListener>();

  constructor(private readonly reportListenerError: (error: unknown) => void) {}

  add(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  announce(events: readonly RecordingEvent[], receipts: readonly JournalReceipt[]): void {
    if (events.length === 0) return;
    inCpuPhase("publish", () => this.tell(events, receipts));
  }

  private tell(events: readonly RecordingEvent[], receipts: readonly JournalReceipt[]): void {
    for (const listener of this.listeners) {
      try {
        listener(events, receipts);
      } catch (error) {
        this.reportListenerError(error);
      }
    }
  }
}

/**
 * The simplest commit path: one database transaction per unit (the commit path of record is
 * GroupCommit; this one stays for tools and tests that want no coalescing).
 */
export class TransactionPerUnit implements CommitPath {
  private readonly listeners: CommitListeners;

  /**
   * `reportListenerError`: a listener that throws must not fail a caller whose unit is already committed.
   * `journal`: where each transaction's events are appended before it commits (none: events are only heard).
   * `finishUnit`: run after each unit with what it staged, before the journal and the commit.
   */
  constructor(
    private readonly db: Db,
    reportListenerError: (error: unknown) => void = warnOnListenerError,
    private readonly journal?: EventJournal,
    private readonly finishUnit?: UnitFinisher,
  ) {
    this.listeners = new CommitListeners(reportListenerError);
  }

  async run<T>(unit: RecordingUnit<T>): Promise<T> {
    const events: RecordingEvent[] = [];
    const scope: UnitScope = {
      emit: (event) => {
        events.push(event);
      },
    };
    let receipts: readonly JournalReceipt[] = [];
    const result = await this.db.$transaction(async (tx) => {
      const value = await runUnit(tx, unit, scope, this.finishUnit);
      if (this.journal && events.length > 0) receipts = await this.journal.append(tx, events);
      return value;
    }, TRANSACTION_OPTIONS);
    this.listeners.announce(events, receipts);
    return result;
  }

  onCommitted(listener: CommitListener): () => void {
    return this.listeners.add(listener);
  }
}

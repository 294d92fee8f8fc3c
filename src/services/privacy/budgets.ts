import type { Db, DbTx } from "../../db/client";
import { InvalidArgumentError, NotFoundError } from "../errors";
import type { KeysetPage } from "../pagination";
import { type CommitPath, insertRows, MAX_RELEASE_EPSILON, type RecordingActor } from "../recording";
import { unsafeNameReason, unsafeTextReason } from "../safe-text";
import { type Amount, AMOUNT_DECIMALS, amountOf, SMALLEST_AMOUNT, toAmount, toDecimal } from "./amounts";
import { BASIC_SEQUENTIAL } from "./composition";
import { PrivacyBudgetAlreadyDeclaredError } from "./errors";

/** The most ε a budget may hold (63-bit amounts of 10⁻¹², with room for the sums). */
export const MAX_BUDGET_EPSILON = 1_000_000;
/** The most characters a reason may have. */
export const MAX_BUDGET_REASON_LENGTH = 2_000;

export interface DatasetName {
  namespace: string;
  name: string;
}

/** A budget as declared or raised: total ε, optionally total δ and a per-release ε cap. */
export interface BudgetLimits {
  epsilon: number;
  delta?: number | null;
  perReleaseEpsilon?: number | null;
}

export interface PrivacyBudgetRecord {
  dataset: DatasetName;
  epsilonTotal: Amount;
  deltaTotal: Amount | null;
  perReleaseEpsilon: Amount | null;
  epsilonSpent: Amount;
  deltaSpent: Amount;
  accounting: string;
  createdAt: Date;
  updatedAt: Date;
}

/** One release debited from a budget: its run, who recorded it, what it spent and when. */
export interface LedgerEntryRecord {
  id: number;
  runId: string;
  principal: string;
  tokenId: string | null;
  epsilon: Amount;
  delta: Amount;
  mechanism: string;
  epsilonSpentAfter: Amount;
  createdAt: Date;
}

export interface BudgetChangeRecord {
  id: number;
  action: "DECLARE" | "RAISE";
  epsilonTotal: Amount;
  deltaTotal: Amount | null;
  perReleaseEpsilon: Amount | null;
  previousEpsilonTotal: Amount | null;
  previousDeltaTotal: Amount | null;
  previousPerReleaseEpsilon: Amount | null;
  reason: string;
  changedBy: string;
  tokenId: string | null;
  createdAt: Date;
}

/** Runs inside the admin action's unit, last: its audit entry commits with it. */
export type BeforeCommit = (tx: DbTx) => Promise<void>;

/**
 * Datasets' differential-privacy budgets: declared and raised by admins, each change an audited,
 * append-only record with its reason; read with their ledger. A budget is never lowered or removed
 * here: what was released stays released.
 */
export class PrivacyBudgets {
  constructor(
    private readonly commits: CommitPath,
    private readonly db: Db,
  ) {}

  async declare(dataset: DatasetName, limits: BudgetLimits, reason: string, actor: RecordingActor, beforeCommit?: BeforeCommit): Promise<PrivacyBudgetRecord> {
    checkDataset(dataset);
    const amounts = checkLimits(limits);
    checkReason(reason);
    return this.commits.run(async (tx) => {
      const at = new Date();
      const [created] = await insertRows(
        tx,
        "PrivacyBudget",
        ["namespace", "name", "epsilonTotal", "deltaTotal", "perReleaseEpsilon", "epsilonSpent", "deltaSpent", "accounting", "createdAt", "updatedAt"],
        [[dataset.namespace, dataset.name, String(amounts.epsilon), text(amounts.delta), text(amounts.perReleaseEpsilon), "0", "0", BASIC_SEQUENTIAL.name, at, at]],
        { ignoreConflicts: true, returning: "namespace" },
      );
      if (created === undefined) throw new PrivacyBudgetAlreadyDeclaredError(dataset.namespace, dataset.name);
      await this.change(tx, dataset, "DECLARE", amounts, null, reason, actor, at);
      if (beforeCommit) await beforeCommit(tx);
      return recordOf((await tx.privacyBudget.findUniqueOrThrow({ where: { namespace_name: dataset } }))!);
    });
  }

  /**
   * Raises a budget: a new total ε (above the current one), and optionally a new total δ (at least the
   * current one) and a new per-release cap; what is not given stays. Refused when it would lower anything.
   */
  async raise(dataset: DatasetName, limits: BudgetLimits, reason: string, actor: RecordingActor, beforeCommit?: BeforeCommit): Promise<PrivacyBudgetRecord> {
    checkDataset(dataset);
    const amounts = checkLimits(limits);
    checkReason(reason);
    return this.commits.run(async (tx) => {
      const current = await tx.privacyBudget.findUnique({ where: { namespace_name: dataset } });
      if (!current) throw new NotFoundError("privacy budget", `${dataset.namespace}/${dataset.name}`, "dataset");
      const before = recordOf(current);
      if (amounts.epsilon <= before.epsilonTotal) throw new InvalidArgumentError("epsilon", `must be above the current total ε (${format(before.epsilonTotal)}): a budget is only raised`);
      const delta = limits.delta == null ? before.deltaTotal : amounts.delta;
      if (before.deltaTotal !== null && (delta === null || delta < before.deltaTotal)) throw new InvalidArgumentError("delta", `must be at least the current total δ (${format(before.deltaTotal)}): a budget is only raised`);
      const cap = limits.perReleaseEpsilon == null ? before.perReleaseEpsilon : amounts.perReleaseEpsilon;
      if (before.perReleaseEpsilon !== null && cap !== null && cap < before.perReleaseEpsilon) throw new InvalidArgumentError("perReleaseEpsilon", `must be at least the current cap (${format(before.perReleaseEpsilon)}): a budget is only raised`);
      const at = new Date();
      await tx.privacyBudget.update({ where: { namespace_name: dataset }, data: { epsilonTotal: amounts.epsilon, deltaTotal: delta, perReleaseEpsilon: cap, updatedAt: at } });
      await this.change(tx, dataset, "RAISE", { epsilon: amounts.epsilon, delta, perReleaseEpsilon: cap }, before, reason, actor, at);
      if (beforeCommit) await beforeCommit(tx);
      return recordOf((await tx.privacyBudget.findUniqueOrThrow({ where: { namespace_name: dataset } }))!);
    });
  }

  async budget(dataset: DatasetName): Promise<PrivacyBudgetRecord> {
    const row = await this.db.privacyBudget.findUnique({ where: { namespace_name: dataset } });
    if (!row) throw new NotFoundError("privacy budget", `${dataset.namespace}/${dataset.name}`, "name");
    return recordOf(row);
  }

  /** The ledger of a budget: every release debited from it, newest first ("after" a cursor means older). */
  async entries(dataset: DatasetName, page: KeysetPage<number>): Promise<LedgerEntryRecord[]> {
    const range: { lt?: number; gt?: number } = {};
    if (page.after !== undefined) range.lt = page.after;
    if (page.before !== undefined) range.gt = page.before;
    const rows = await this.db.privacyLedgerEntry.findMany({
      where: { namespace: dataset.namespace, name: dataset.name, ...(page.after !== undefined || page.before !== undefined ? { id: range } : {}) },
      orderBy: { id: page.inverted ? "asc" : "desc" },
      take: page.limit,
    });
    return rows.map((r) => ({ ...r, epsilon: amountOf(r.epsilon), delta: amountOf(r.delta), epsilonSpentAfter: amountOf(r.epsilonSpentAfter) }));
  }

  /** How the budget was declared and raised, oldest first. */
  async changes(dataset: DatasetName): Promise<BudgetChangeRecord[]> {
    const rows = await this.db.privacyBudgetChange.findMany({ where: { namespace: dataset.namespace, name: dataset.name }, orderBy: { id: "asc" } });
    const maybe = (v: bigint | null) => (v === null ? null : amountOf(v));
    return rows.map((r) => ({
      ...r,
      action: r.action as BudgetChangeRecord["action"],
      epsilonTotal: amountOf(r.epsilonTotal),
      deltaTotal: maybe(r.deltaTotal),
      perReleaseEpsilon: maybe(r.perReleaseEpsilon),
      previousEpsilonTotal: maybe(r.previousEpsilonTotal),
      previousDeltaTotal: maybe(r.previousDeltaTotal),
      previousPerReleaseEpsilon: maybe(r.previousPerReleaseEpsilon),
    }));
  }

  private async change(
    tx: DbTx,
    dataset: DatasetName,
    action: "DECLARE" | "RAISE",
    amounts: { epsilon: Amount; delta: Amount | null; perReleaseEpsilon: Amount | null },
    before: PrivacyBudgetRecord | null,
    reason: string,
    actor: RecordingActor,
    at: Date,
  ): Promise<void> {
    await insertRows(
      tx,
      "PrivacyBudgetChange",
      ["namespace", "name", "action", "epsilonTotal", "deltaTotal", "perReleaseEpsilon", "previousEpsilonTotal", "previousDeltaTotal", "previousPerReleaseEpsilon", "reason", "changedBy", "tokenId", "createdAt"],
      [[dataset.namespace, dataset.name, action, String(amounts.epsilon), text(amounts.delta), text(amounts.perReleaseEpsilon), text(before?.epsilonTotal ?? null), text(before?.deltaTotal ?? null), text(before?.perReleaseEpsilon ?? null), reason, actor.name, actor.tokenId, at]],
    );
  }
}

const text = (amount: Amount | null) => (amount === null ? null : String(amount));
const format = (amount: Amount) => (Number(amount) / 1e12).toString();

function recordOf(row: { namespace: string; name: string; epsilonTotal: bigint; deltaTotal: bigint | null; perReleaseEpsilon: bigint | null; epsilonSpent: bigint; deltaSpent: bigint; accounting: string; createdAt: Date; updatedAt: Date }): PrivacyBudgetRecord {
  const maybe = (v: bigint | null) => (v === null ? null : amountOf(v));
  return {
    dataset: { namespace: row.namespace, name: row.name },
    epsilonTotal: amountOf(row.epsilonTotal),
    deltaTotal: maybe(row.deltaTotal),
    perReleaseEpsilon: maybe(row.perReleaseEpsilon),
    epsilonSpent: amountOf(row.epsilonSpent),
    deltaSpent: amountOf(row.deltaSpent),
    accounting: row.accounting,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function checkDataset(dataset: DatasetName): void {
  for (const [field, value] of [["dataset.namespace", dataset.namespace], ["dataset.name", dataset.name]] as const) {
    if (!value.trim()) throw new InvalidArgumentError(field, "must not be empty");
    const unsafe = unsafeNameReason(value);
    if (unsafe) throw new InvalidArgumentError(field, unsafe);
  }
}

function checkLimits(limits: BudgetLimits): { epsilon: Amount; delta: Amount | null; perReleaseEpsilon: Amount | null } {
  const positive = (field: string, value: number, max: number) => {
    if (!Number.isFinite(value) || value <= 0 || value > max) throw new InvalidArgumentError(field, `must be a number above 0 and at most ${max.toLocaleString("en")}, got ${value}`);
    // A limit rounds down to the amounts' grid; one below its first step would allow nothing.
    const amount = toAmount(value, "LIMIT_DOWN");
    if (amount < SMALLEST_AMOUNT) throw new InvalidArgumentError(field, `must be at least ${toDecimal(SMALLEST_AMOUNT)} (amounts are kept to ${AMOUNT_DECIMALS} decimals), got ${value}`);
    return amount;
  };
  const epsilon = positive("epsilon", limits.epsilon, MAX_BUDGET_EPSILON);
  let delta: Amount | null = null;
  if (limits.delta != null) {
    if (!Number.isFinite(limits.delta) || limits.delta < 0 || limits.delta >= 1) throw new InvalidArgumentError("delta", `must be a number from 0 up to (not including) 1, got ${limits.delta}`);
    delta = toAmount(limits.delta, "LIMIT_DOWN");
  }
  const perReleaseEpsilon = limits.perReleaseEpsilon == null ? null : positive("perReleaseEpsilon", limits.perReleaseEpsilon, MAX_RELEASE_EPSILON);
  if (perReleaseEpsilon !== null && perReleaseEpsilon > epsilon) throw new InvalidArgumentError("perReleaseEpsilon", "must not be more than the total ε");
  return { epsilon, delta, perReleaseEpsilon };
}

function checkReason(reason: string): void {
  if (!reason.trim()) throw new InvalidArgumentError("reason", "must say why (it is recorded with the action)");
  if (reason.length > MAX_BUDGET_REASON_LENGTH) throw new InvalidArgumentError("reason", `at most ${MAX_BUDGET_REASON_LENGTH} characters, got ${reason.length}`);
  const unsafe = unsafeTextReason(reason);
  if (unsafe) throw new InvalidArgumentError("reason", unsafe);
}

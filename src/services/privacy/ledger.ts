import type { DbTx } from "../../db/client";
import type { DatabaseProvider } from "../../db/database-url";
import { directStatementsOf } from "../../db/direct-statements";
import { insertRows, type PrivacyReleaseDraft } from "../recording";
import { type Amount, amountOf, toAmount } from "./amounts";
import { compositionOf } from "./composition";
import { PrivacyBudgetExhaustedError, PrivacyCostChangedError, PrivacyReleaseCapExceededError } from "./errors";
import { lockBudgetsStatement, protectedDatasetsStatement } from "./ledger-sql";

/** (run, input) seeds per closure statement: two bind values each, under both databases' limits. */
const SEEDS_PER_STATEMENT = 10_000;

interface BudgetRow {
  namespace: string;
  name: string;
  epsilonTotal: Amount;
  deltaTotal: Amount | null;
  perReleaseEpsilon: Amount | null;
  epsilonSpent: Amount;
  deltaSpent: Amount;
  accounting: string;
}

const datasetKey = (d: { namespace: string; name: string }) => JSON.stringify([d.namespace, d.name]);

/**
 * The ε ledger at the end of a recording unit (docs: "Differential-privacy budgets"): every release
 * the unit records debits every protected dataset it reads, directly or through lineage, in the
 * unit's own transaction — so the debit commits with the run, or neither does. A release that would
 * overspend any budget (or pass its per-release cap) is refused whole, naming the dataset, what is
 * left and what was asked; nothing of the unit is written. Budgets are locked in one order before
 * they are read, so concurrent releases never spend the same remainder twice. A release is debited
 * once per dataset: a later event of the same run (OpenLineage) debits only datasets it newly reaches.
 */
export class PrivacyLedger {
  constructor(private readonly provider: DatabaseProvider) {}

  async settle(tx: DbTx, drafts: readonly PrivacyReleaseDraft[]): Promise<void> {
    if (drafts.length === 0) return;
    const releases = mergeByRun(drafts);
    const at = new Date();
    await this.recordReleases(tx, releases, at);
    // No budget anywhere: nothing to walk for.
    if ((await rows(tx, `SELECT 1 AS one FROM "PrivacyBudget" LIMIT 1`, [])).length === 0) return;

    const reached = await this.protectedDatasets(tx, releases);
    if (reached.length === 0) return;
    const runs = this.list(releases.map((r) => r.runId));
    const debited = new Set(
      // bounded: the releases of one recording unit (a batch at most)
      (await rows(tx, `SELECT "runId", namespace, name FROM "PrivacyLedgerEntry" WHERE "runId" IN (${runs.sql})`, runs.params)).map((e) => `${e.runId}\u0000${datasetKey(e as { namespace: string; name: string })}`),
    );
    const owed = reached.filter((r) => !debited.has(`${r.runId}\u0000${datasetKey(r)}`));
    if (owed.length === 0) return;

    const { sql, params } = lockBudgetsStatement(this.provider, uniqueDatasets(owed));
    const budgets = new Map((await rows(tx, sql, params)).map((row) => [datasetKey(row as { namespace: string; name: string }), budgetOf(row)]));
    const entries: unknown[][] = [];
    const touched = new Set<string>();
    // Releases in the order the unit recorded them; each sees the debits of the ones before it.
    for (const release of releases) {
      const asked = { epsilon: toAmount(release.cost.epsilon, "COST_UP"), delta: toAmount(release.cost.delta, "COST_UP") };
      for (const dataset of owed.filter((o) => o.runId === release.runId)) {
        const key = datasetKey(dataset);
        const budget = budgets.get(key)!;
        if (budget.perReleaseEpsilon !== null && asked.epsilon > budget.perReleaseEpsilon) throw new PrivacyReleaseCapExceededError(release.at, budget, budget.perReleaseEpsilon, asked.epsilon, release.runId);
        const after = compositionOf(budget.accounting).after({ epsilon: budget.epsilonSpent, delta: budget.deltaSpent }, asked);
        if (after.epsilon > budget.epsilonTotal) throw new PrivacyBudgetExhaustedError(release.at, budget, "EPSILON", budget.epsilonTotal - budget.epsilonSpent, asked.epsilon, release.runId);
        if (budget.deltaTotal !== null && after.delta > budget.deltaTotal) throw new PrivacyBudgetExhaustedError(release.at, budget, "DELTA", budget.deltaTotal - budget.deltaSpent, asked.delta, release.runId);
        budget.epsilonSpent = after.epsilon;
        budget.deltaSpent = after.delta;
        touched.add(key);
        entries.push([budget.namespace, budget.name, release.runId, String(asked.epsilon), String(asked.delta), release.cost.mechanism, release.principal.name, release.principal.tokenId, String(after.epsilon), at]);
      }
    }
    await insertRows(tx, "PrivacyLedgerEntry", ["namespace", "name", "runId", "epsilon", "delta", "mechanism", "principal", "tokenId", "epsilonSpentAfter", "createdAt"], entries);
    const p = (n: number) => (this.provider === "sqlite" ? "?" : `$${n}`);
    for (const key of [...touched].sort()) {
      const b = budgets.get(key)!;
      await run(tx, `UPDATE "PrivacyBudget" SET "epsilonSpent" = CAST(${p(1)} AS BIGINT), "deltaSpent" = CAST(${p(2)} AS BIGINT), "updatedAt" = ${p(3)} WHERE namespace = ${p(4)} AND name = ${p(5)}`, [
        String(b.epsilonSpent),
        String(b.deltaSpent),
        at,
        b.namespace,
        b.name,
      ]);
    }
  }

  /** An IN list of placeholders for `values` (one that matches nothing when empty). */
  private list(values: readonly string[]): { sql: string; params: string[] } {
    if (values.length === 0) return { sql: "NULL", params: [] };
    return { sql: values.map((_, i) => (this.provider === "sqlite" ? "?" : `$${i + 1}`)).join(", "), params: [...values] };
  }

  /** New releases are recorded with their cost; one recorded before must declare the same cost. */
  private async recordReleases(tx: DbTx, releases: readonly PrivacyReleaseDraft[], at: Date): Promise<void> {
    const runs = this.list(releases.map((r) => r.runId));
    // bounded: the releases of one recording unit (a batch at most)
    const found = await rows(tx, `SELECT "runId", CAST(epsilon AS TEXT) AS epsilon, CAST(delta AS TEXT) AS delta, mechanism FROM "PrivacyRelease" WHERE "runId" IN (${runs.sql})`, runs.params);
    const stored = new Map(found.map((r) => [String(r.runId), { epsilon: r.epsilon, delta: r.delta, mechanism: String(r.mechanism) }]));
    const fresh: unknown[][] = [];
    for (const release of releases) {
      const epsilon = toAmount(release.cost.epsilon, "COST_UP");
      const delta = toAmount(release.cost.delta, "COST_UP");
      const known = stored.get(release.runId);
      if (!known) fresh.push([release.runId, String(epsilon), String(delta), release.cost.mechanism, release.principal.name, release.principal.tokenId, at]);
      else if (amountOf(known.epsilon) !== epsilon || amountOf(known.delta) !== delta || known.mechanism !== release.cost.mechanism) {
        throw new PrivacyCostChangedError(release.at, release.runId, { epsilon: amountOf(known.epsilon), delta: amountOf(known.delta), mechanism: known.mechanism });
      }
    }
    await insertRows(tx, "PrivacyRelease", ["runId", "epsilon", "delta", "mechanism", "principal", "tokenId", "createdAt"], fresh);
  }

  /** Each release's protected datasets (one recursive statement per chunk of inputs). */
  private async protectedDatasets(tx: DbTx, releases: readonly PrivacyReleaseDraft[]): Promise<{ runId: string; namespace: string; name: string }[]> {
    const seeds = releases.flatMap((r) => [...new Set(r.inputIds)].map((artifactId) => ({ runId: r.runId, artifactId })));
    const found = new Map<string, { runId: string; namespace: string; name: string }>();
    for (let start = 0; start < Math.max(seeds.length, 1); start += SEEDS_PER_STATEMENT) {
      const { sql, params } = protectedDatasetsStatement(this.provider, seeds.slice(start, start + SEEDS_PER_STATEMENT));
      for (const row of (await rows(tx, sql, params)) as { runId: string; namespace: string; name: string }[]) found.set(`${row.runId}\u0000${datasetKey(row)}`, row);
    }
    return [...found.values()];
  }
}

/**
 * A statement's rows on the unit's transaction, as objects: straight to the driver when the commit
 * path opened the transaction (a debit is a handful of statements; Prisma's pipeline would add as
 * much again), else through Prisma.
 */
async function rows(tx: DbTx, sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
  const direct = directStatementsOf(tx);
  if (!direct) return tx.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params);
  const result = await direct.query(sql, params);
  return result.rows.map((row) => Object.fromEntries(result.columnNames.map((column, i) => [column, row[i]])));
}

async function run(tx: DbTx, sql: string, params: readonly unknown[]): Promise<void> {
  const direct = directStatementsOf(tx);
  if (direct) await direct.execute(sql, params);
  else await tx.$executeRawUnsafe(sql, ...params);
}

/** One draft per run (a unit may note a run twice: an OpenLineage chunk with several of its events), inputs merged. */
function mergeByRun(drafts: readonly PrivacyReleaseDraft[]): PrivacyReleaseDraft[] {
  const byRun = new Map<string, PrivacyReleaseDraft>();
  for (const d of drafts) {
    const known = byRun.get(d.runId);
    if (known && (known.cost.epsilon !== d.cost.epsilon || known.cost.delta !== d.cost.delta || known.cost.mechanism !== d.cost.mechanism)) {
      throw new PrivacyCostChangedError(d.at, d.runId, { epsilon: toAmount(known.cost.epsilon, "COST_UP"), delta: toAmount(known.cost.delta, "COST_UP"), mechanism: known.cost.mechanism });
    }
    byRun.set(d.runId, known ? { ...known, inputIds: [...new Set([...known.inputIds, ...d.inputIds])] } : d);
  }
  return [...byRun.values()];
}

function uniqueDatasets(rows: readonly { namespace: string; name: string }[]): { namespace: string; name: string }[] {
  return [...new Map(rows.map((r) => [datasetKey(r), { namespace: r.namespace, name: r.name }])).values()].sort((a, b) => (datasetKey(a) < datasetKey(b) ? -1 : 1));
}

function budgetOf(row: Record<string, unknown>): BudgetRow {
  const maybe = (value: unknown) => (value === null || value === undefined ? null : amountOf(value));
  return {
    namespace: String(row.namespace),
    name: String(row.name),
    epsilonTotal: amountOf(row.epsilonTotal),
    deltaTotal: maybe(row.deltaTotal),
    perReleaseEpsilon: maybe(row.perReleaseEpsilon),
    epsilonSpent: amountOf(row.epsilonSpent),
    deltaSpent: amountOf(row.deltaSpent),
    accounting: String(row.accounting),
  };
}

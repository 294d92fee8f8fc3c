import type { DbTx } from "../db/client";
import { type Amount, type BudgetChangeRecord, type LedgerEntryRecord, type PrivacyBudgetRecord, toNumber } from "../services/privacy";
import { builder } from "./builder";
import { resolveKeysetConnection } from "./connection-page";
import type { GraphQLContext } from "./context";
import { ExecutionRef } from "./execution";

/**
 * Differential-privacy budgets on the GraphQL side (translation only): a dataset's budget and its
 * ledger, and the admin mutations that declare and raise budgets. Amounts are exact to 10⁻¹².
 */

interface AmountsShape {
  total: Amount | null;
  spent: Amount;
}

const PrivacyAmountsObject = builder.objectRef<AmountsShape>("PrivacyAmounts").implement({
  description: "A budget's total, what its releases spent (basic sequential composition: their sum) and what is left.",
  fields: (t) => ({
    total: t.float({ nullable: true, description: "null: no bound (a budget without δ).", resolve: (a) => (a.total === null ? null : toNumber(a.total)) }),
    spent: t.float({ resolve: (a) => toNumber(a.spent) }),
    remaining: t.float({ nullable: true, resolve: (a) => (a.total === null ? null : toNumber(a.total - a.spent)) }),
  }),
});

const LedgerEntryObject = builder.objectRef<LedgerEntryRecord>("PrivacyLedgerEntry").implement({
  description: "One release debited from the budget: its run, who recorded it, what it spent and when.",
  fields: (t) => ({
    runId: t.exposeID("runId"),
    execution: t.field({ type: ExecutionRef, nullable: true, resolve: (e) => e.runId }),
    principal: t.exposeString("principal", { description: "Who recorded the release: the token's name, or 'open mode'." }),
    tokenId: t.exposeID("tokenId", { nullable: true }),
    epsilon: t.float({ resolve: (e) => toNumber(e.epsilon) }),
    delta: t.float({ resolve: (e) => toNumber(e.delta) }),
    mechanism: t.exposeString("mechanism"),
    epsilonSpentAfter: t.float({ description: "The budget's ε spent once this release was debited.", resolve: (e) => toNumber(e.epsilonSpentAfter) }),
    at: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
  }),
});

const BudgetChangeActionEnum = builder.enumType("PrivacyBudgetChangeAction", { values: { DECLARE: { description: "declarePrivacyBudget" }, RAISE: { description: "raisePrivacyBudget" } } });

const BudgetChangeObject = builder.objectRef<BudgetChangeRecord>("PrivacyBudgetChange").implement({
  description: "A budget declared or raised: who, why, when, and the limits before and after.",
  fields: (t) => {
    const amount = (pick: (c: BudgetChangeRecord) => Amount | null) => t.float({ nullable: true, resolve: (c) => (pick(c) === null ? null : toNumber(pick(c)!)) });
    return {
      action: t.field({ type: BudgetChangeActionEnum, resolve: (c) => c.action }),
      epsilon: amount((c) => c.epsilonTotal),
      delta: amount((c) => c.deltaTotal),
      perReleaseEpsilon: amount((c) => c.perReleaseEpsilon),
      previousEpsilon: amount((c) => c.previousEpsilonTotal),
      previousDelta: amount((c) => c.previousDeltaTotal),
      previousPerReleaseEpsilon: amount((c) => c.previousPerReleaseEpsilon),
      reason: t.exposeString("reason"),
      changedBy: t.exposeString("changedBy"),
      tokenId: t.exposeID("tokenId", { nullable: true }),
      at: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
    };
  },
});

const PrivacyBudgetObject = builder.objectRef<PrivacyBudgetRecord>("PrivacyBudget").implement({
  description:
    "A dataset's differential-privacy budget (every version of it draws on it): each release that reads the dataset, directly or through lineage, debits it when recorded; a release that would overspend is refused (PRIVACY_BUDGET_EXHAUSTED).",
  fields: (t) => ({
    namespace: t.string({ resolve: (b) => b.dataset.namespace }),
    name: t.string({ resolve: (b) => b.dataset.name }),
    epsilon: t.field({ type: PrivacyAmountsObject, resolve: (b) => ({ total: b.epsilonTotal, spent: b.epsilonSpent }) }),
    delta: t.field({ type: PrivacyAmountsObject, resolve: (b) => ({ total: b.deltaTotal, spent: b.deltaSpent }) }),
    perReleaseEpsilon: t.float({ nullable: true, description: "The most ε one release may spend (null: no cap).", resolve: (b) => (b.perReleaseEpsilon === null ? null : toNumber(b.perReleaseEpsilon)) }),
    accounting: t.exposeString("accounting", { description: "How releases compose: BASIC_SEQUENTIAL (ε and δ add up)." }),
    releases: t.connection({
      type: LedgerEntryObject,
      description: "The ledger: every release debited from this budget, newest first.",
      resolve: (b, args, ctx) =>
        resolveKeysetConnection<LedgerEntryRecord, number>(args, { connection: "privacyLedger", keyOf: (e) => String(e.id), parseKey: (key) => (/^[1-9]\d{0,15}$/.test(key) ? Number(key) : undefined) }, (page) =>
          ctx.services.privacy.budgets.entries(b.dataset, page),
        ),
    }),
    changes: t.field({ type: [BudgetChangeObject], description: "How the budget was declared and raised, oldest first.", resolve: (b, _args, ctx) => ctx.services.privacy.budgets.changes(b.dataset) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const BudgetInput = builder.inputType("PrivacyBudgetInput", {
  fields: (t) => ({
    namespace: t.string({ required: true, description: "The dataset (every version of it)." }),
    name: t.string({ required: true }),
    epsilon: t.float({ required: true, description: "Total ε (declare), or the new total ε, above the current one (raise)." }),
    delta: t.float({ description: "Total δ (0 ≤ δ < 1); raise: the new total, at least the current one. Without: no δ bound (declare), unchanged (raise)." }),
    perReleaseEpsilon: t.float({ description: "The most ε one release may spend. Without: no cap (declare), unchanged (raise)." }),
    reason: t.string({ required: true, description: "Why: recorded with the change." }),
  }),
});

const actorOf = (ctx: GraphQLContext) => ({ name: ctx.principal.name, tokenId: ctx.principal.tokenId });
/** The admin action's audit entry commits with it. */
const audited = (ctx: GraphQLContext) => (tx: DbTx) => ctx.auditInTransaction?.(tx) ?? Promise.resolve();

builder.mutationFields((t) => ({
  declarePrivacyBudget: t.field({
    type: PrivacyBudgetObject,
    description: "Declares a dataset's differential-privacy budget (total ε, optionally δ and a per-release cap), with the reason. PRIVACY_BUDGET_ALREADY_DECLARED when it has one. Needs the admin scope.",
    args: { input: t.arg({ type: BudgetInput, required: true }) },
    resolve: (_root, { input }, ctx) => ctx.services.privacy.budgets.declare({ namespace: input.namespace, name: input.name }, input, input.reason, actorOf(ctx), audited(ctx)),
  }),
  raisePrivacyBudget: t.field({
    type: PrivacyBudgetObject,
    description: "Raises a dataset's budget — a new total ε above the current one, and optionally δ and the per-release cap, never lower — with the reason; the change is recorded and audited. Needs the admin scope.",
    args: { input: t.arg({ type: BudgetInput, required: true }) },
    resolve: (_root, { input }, ctx) => ctx.services.privacy.budgets.raise({ namespace: input.namespace, name: input.name }, input, input.reason, actorOf(ctx), audited(ctx)),
  }),
}));

builder.queryFields((t) => ({
  privacyBudget: t.field({
    type: PrivacyBudgetObject,
    description: "A dataset's differential-privacy budget and its ledger (every release: run, principal, ε, when). NOT_FOUND when it has none.",
    args: { namespace: t.arg.string({ required: true }), name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.privacy.budgets.budget({ namespace: args.namespace, name: args.name }),
  }),
}));

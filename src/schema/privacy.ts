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
    spent: t.float({ description: "What the releases debited so far have spent, together.", resolve: (a) => toNumber(a.spent) }),
    remaining: t.float({ nullable: true, description: "The total less what was spent (null: no bound).", resolve: (a) => (a.total === null ? null : toNumber(a.total - a.spent)) }),
  }),
});

const LedgerEntryObject = builder.objectRef<LedgerEntryRecord>("PrivacyLedgerEntry").implement({
  description: "One release debited from the budget: its run, who recorded it, what it spent and when.",
  fields: (t) => ({
    runId: t.exposeID("runId", { description: "The release's run." }),
    execution: t.field({ type: ExecutionRef, nullable: true, description: "The release's run as recorded.", resolve: (e) => e.runId }),
    principal: t.exposeString("principal", { description: "Who recorded the release: the token's name, or 'open mode'." }),
    tokenId: t.exposeID("tokenId", { nullable: true, description: "The recording token's id (tok_…; null in open mode)." }),
    epsilon: t.float({ description: "The ε the release spent, as it reported it (rounded up to 10⁻¹² when finer).", resolve: (e) => toNumber(e.epsilon) }),
    delta: t.float({ description: "The δ the release spent, as it reported it (0 when it reported none; rounded up to 10⁻¹² when finer).", resolve: (e) => toNumber(e.delta) }),
    mechanism: t.exposeString("mechanism", { description: "The mechanism the release reported (laplace, gaussian, …)." }),
    epsilonSpentAfter: t.float({ description: "The budget's ε spent once this release was debited.", resolve: (e) => toNumber(e.epsilonSpentAfter) }),
    at: t.field({ type: "DateTime", description: "When the release was recorded and debited.", resolve: (e) => e.createdAt }),
  }),
});

const BudgetChangeActionEnum = builder.enumType("PrivacyBudgetChangeAction", { description: "How a privacy budget changed.", values: { DECLARE: { description: "declarePrivacyBudget" }, RAISE: { description: "raisePrivacyBudget" } } });

const BudgetChangeObject = builder.objectRef<BudgetChangeRecord>("PrivacyBudgetChange").implement({
  description: "A budget declared or raised: who, why, when, and the limits before and after.",
  fields: (t) => {
    const amount = (pick: (c: BudgetChangeRecord) => Amount | null, description: string) => t.float({ nullable: true, description, resolve: (c) => (pick(c) === null ? null : toNumber(pick(c)!)) });
    return {
      action: t.field({ type: BudgetChangeActionEnum, description: "Declared or raised.", resolve: (c) => c.action }),
      epsilon: amount((c) => c.epsilonTotal, "The total ε after the change."),
      delta: amount((c) => c.deltaTotal, "The total δ after the change (null: no δ bound)."),
      perReleaseEpsilon: amount((c) => c.perReleaseEpsilon, "The per-release ε cap after the change (null: no cap)."),
      previousEpsilon: amount((c) => c.previousEpsilonTotal, "The total ε before the change (null for DECLARE)."),
      previousDelta: amount((c) => c.previousDeltaTotal, "The total δ before the change (null for DECLARE, or when there was no δ bound)."),
      previousPerReleaseEpsilon: amount((c) => c.previousPerReleaseEpsilon, "The per-release ε cap before the change (null for DECLARE, or when there was no cap)."),
      reason: t.exposeString("reason", { description: "Why, as given with the change." }),
      changedBy: t.exposeString("changedBy", { description: "Who made the change: the token's name, or 'open mode'." }),
      tokenId: t.exposeID("tokenId", { nullable: true, description: "The token's id (tok_…; null in open mode)." }),
      at: t.field({ type: "DateTime", description: "When the change was made.", resolve: (c) => c.createdAt }),
    };
  },
});

const PrivacyBudgetObject = builder.objectRef<PrivacyBudgetRecord>("PrivacyBudget").implement({
  description:
    "A dataset's differential-privacy budget (every version of it draws on it): each release that reads the dataset, directly or through lineage, debits it when recorded; a release that would overspend is refused (PRIVACY_BUDGET_EXHAUSTED).",
  fields: (t) => ({
    namespace: t.string({ description: "The dataset's namespace.", resolve: (b) => b.dataset.namespace }),
    name: t.string({ description: "The dataset's name.", resolve: (b) => b.dataset.name }),
    epsilon: t.field({ type: PrivacyAmountsObject, description: "ε: the total, what releases spent and what is left.", resolve: (b) => ({ total: b.epsilonTotal, spent: b.epsilonSpent }) }),
    delta: t.field({ type: PrivacyAmountsObject, description: "δ: the total (null: no δ bound), what releases spent and what is left.", resolve: (b) => ({ total: b.deltaTotal, spent: b.deltaSpent }) }),
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
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the budget was declared." }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it last changed: raised, or debited by a release." }),
  }),
});

const BudgetInput = builder.inputType("PrivacyBudgetInput", {
  description: "A dataset's budget limits to declare, or to raise to, with the reason. A limit out of range, or a per-release cap above the total ε, is INVALID_ARGUMENT.",
  fields: (t) => ({
    namespace: t.string({ required: true, description: "The dataset (every version of it)." }),
    name: t.string({ required: true, description: "The dataset's name (with namespace)." }),
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
    args: { input: t.arg({ type: BudgetInput, required: true, description: "The dataset, its limits and the reason." }) },
    resolve: (_root, { input }, ctx) => ctx.services.privacy.budgets.declare({ namespace: input.namespace, name: input.name }, input, input.reason, actorOf(ctx), audited(ctx)),
  }),
  raisePrivacyBudget: t.field({
    type: PrivacyBudgetObject,
    description: "Raises a dataset's budget — a new total ε above the current one, and optionally δ and the per-release cap, never lower — with the reason; the change is recorded and audited. Needs the admin scope.",
    args: { input: t.arg({ type: BudgetInput, required: true, description: "The dataset, its new limits and the reason. NOT_FOUND when the dataset has no budget; a total ε not above the current one, or a δ or cap below the current one, is INVALID_ARGUMENT." }) },
    resolve: (_root, { input }, ctx) => ctx.services.privacy.budgets.raise({ namespace: input.namespace, name: input.name }, input, input.reason, actorOf(ctx), audited(ctx)),
  }),
}));

builder.queryFields((t) => ({
  privacyBudget: t.field({
    type: PrivacyBudgetObject,
    description: "A dataset's differential-privacy budget and its ledger (every release: run, principal, ε, when). NOT_FOUND when it has none.",
    args: { namespace: t.arg.string({ required: true, description: "The dataset's namespace." }), name: t.arg.string({ required: true, description: "The dataset's name." }) },
    resolve: (_root, args, ctx) => ctx.services.privacy.budgets.budget({ namespace: args.namespace, name: args.name }),
  }),
}));

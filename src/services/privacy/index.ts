// The privacy engine's one door (beside compliance): datasets' differential-privacy budgets, the ε
// ledger every release debits inside its recording unit, and how releases compose.
export { type Amount, AMOUNT_DECIMALS, toAmount, toDecimal, toNumber } from "./amounts";
export { BASIC_SEQUENTIAL, type Composition, COMPOSITIONS, compositionOf, type Spend } from "./composition";
export { PrivacyBudgetAlreadyDeclaredError, PrivacyBudgetExhaustedError, PrivacyCostChangedError, PrivacyReleaseCapExceededError } from "./errors";
export { type BudgetChangeRecord, type BudgetLimits, type LedgerEntryRecord, MAX_BUDGET_EPSILON, PrivacyBudgets, type PrivacyBudgetRecord } from "./budgets";
export { PrivacyLedger } from "./ledger";
export { lockBudgetsStatement, protectedDatasetsStatement } from "./ledger-sql";
export { privacyLedger } from "./ledger-invariant";
export { createPrivacyEngines, createPrivacyServices, type PrivacyEngines, type PrivacyServices, settleUnitReleases } from "./privacy-services";

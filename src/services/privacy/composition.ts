import type { Amount } from "./amounts";

/** What a budget has spent, and what a release asks. */
export interface Spend {
  epsilon: Amount;
  delta: Amount;
}

/**
 * How releases against one budget compose (docs: "Differential-privacy budgets", the ε ledger). A
 * budget names its rule (PrivacyBudget.accounting); the ledger asks it what the budget has spent
 * once a release is added. BASIC_SEQUENTIAL is the one there is today: k releases of (εᵢ, δᵢ) on
 * the same data are together (Σεᵢ, Σδᵢ)-differentially private — simple, always sound, and loose
 * for many small releases. A tighter rule (advanced composition, Rényi or zCDP accounting) plugs in
 * here: it may read more of the ledger than the running sums, and it must never report less spent
 * than the privacy actually lost.
 */
export interface Composition {
  name: string;
  /** The budget's spend after this release, from its spend before. */
  after(spent: Spend, release: Spend): Spend;
}

export const BASIC_SEQUENTIAL: Composition = {
  name: "BASIC_SEQUENTIAL",
  after: (spent, release) => ({ epsilon: spent.epsilon + release.epsilon, delta: spent.delta + release.delta }),
};

export const COMPOSITIONS: Readonly<Record<string, Composition>> = { BASIC_SEQUENTIAL };

export function compositionOf(name: string): Composition {
  const rule = COMPOSITIONS[name];
  if (!rule) throw new Error(`unknown privacy accounting ${name}: this server knows ${Object.keys(COMPOSITIONS).join(", ")}`);
  return rule;
}

/**
 * Amounts of ε and δ as the privacy engine keeps them: whole numbers of 10⁻¹² (bigint), so a ledger's
 * sums are exact — ten releases of ε = 0.1 spend exactly 1.0 — whatever order they were added in.
 *
 * A number is read as the decimal it was written as (JavaScript's shortest round-trip form: 0.1, not the
 * binary double nearest it), and one with more than 12 decimals is rounded to the grid on the side that
 * keeps the accounting sound: a cost (what a release spends) up, a limit (a budget's total, a per-release
 * cap) down. Rounding a cost to the nearest would let a release of δ = 10⁻¹⁵, a usual size, spend nothing.
 */
export type Amount = bigint;

export const AMOUNT_DECIMALS = 12;
const SCALE = 10n ** BigInt(AMOUNT_DECIMALS);

/** Which way a number with more decimals than an amount keeps goes: a cost up, a limit down. */
export type Rounding = "COST_UP" | "LIMIT_DOWN";

/** The smallest amount above zero: 10⁻¹². */
export const SMALLEST_AMOUNT: Amount = 1n;

/** A finite, non-negative number (as given: ε, δ) as an amount, rounded as `rounding` says. */
export function toAmount(value: number, rounding: Rounding): Amount {
  if (!Number.isFinite(value) || value < 0) throw new Error(`toAmount: ${value} is not a finite, non-negative number`);
  // String() gives the shortest decimal that reads back as the same double: 0.1 → "0.1", 1e-15 → "1e-15".
  const parts = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!parts) throw new Error(`toAmount: cannot read ${value} as a decimal`);
  const [, whole, fraction = "", exponent = "0"] = parts;
  const digits = BigInt(whole + fraction);
  // value = digits × 10^shift; as an amount, digits × 10^(shift + 12).
  const shift = Number(exponent) - fraction.length + AMOUNT_DECIMALS;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  const floor = digits / divisor;
  return rounding === "COST_UP" && floor * divisor !== digits ? floor + 1n : floor;
}

/** An amount as a number (for GraphQL's Float and error details: exact to 12 decimals below 2⁵³ / 10¹²). */
export function toNumber(amount: Amount): number {
  return Number(toDecimal(amount));
}

/** An amount as decimal text, without trailing zeros: 1000000000000n → "1", 400000000000n → "0.4". */
export function toDecimal(amount: Amount): string {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const whole = abs / SCALE;
  const fraction = (abs % SCALE).toString().padStart(AMOUNT_DECIMALS, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** An amount as a database returns it (bigint, number or text, by driver). */
export function amountOf(value: unknown): Amount {
  return typeof value === "bigint" ? value : BigInt(String(value));
}

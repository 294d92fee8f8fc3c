/**
 * Amounts of ε and δ as the privacy engine keeps them: whole numbers of 10⁻¹² (bigint), so a ledger's
 * sums are exact — ten releases of ε = 0.1 spend exactly 1.0 — whatever order they were added in.
 * A number given with more than 12 decimals is rounded to the nearest 10⁻¹².
 */
export type Amount = bigint;

export const AMOUNT_DECIMALS = 12;
const SCALE = 10n ** BigInt(AMOUNT_DECIMALS);

/** A finite, non-negative number (as given: ε, δ) as an amount. */
export function toAmount(value: number): Amount {
  if (!Number.isFinite(value) || value < 0) throw new Error(`toAmount: ${value} is not a finite, non-negative number`);
  const [whole, fraction = ""] = value.toFixed(AMOUNT_DECIMALS).split(".");
  return BigInt(whole) * SCALE + BigInt(fraction.padEnd(AMOUNT_DECIMALS, "0"));
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

import fc from "fast-check";
import { toAmount, toDecimal } from "../../src/services/privacy/amounts";

/** ε and δ as the ledger keeps them: exact to 10⁻¹², read as the decimal written, a cost rounded up and a limit down. */
describe("privacy amounts", () => {
  test("a number of at most 12 decimals is kept exactly, either way, as the decimal it was written as", () => {
    const cases: [number, string][] = [
      [0.1, "0.1"],
      [0.4, "0.4"],
      [1, "1"],
      [1e6, "1000000"],
      [0.000001, "0.000001"],
      [1e-12, "0.000000000001"],
      [123456.789012345678, "123456.789012345678"],
    ];
    for (const [value] of cases) expect(toAmount(value, "COST_UP")).toBe(toAmount(value, "LIMIT_DOWN"));
    expect(cases.slice(0, 6).map(([value]) => toDecimal(toAmount(value, "COST_UP")))).toEqual(cases.slice(0, 6).map(([, text]) => text));
    // Ten releases of 0.1 make exactly 1: 0.1 is read as written, not as the double nearest it (0.1000000000000000055…).
    expect(toAmount(0.1, "COST_UP") * 10n).toBe(toAmount(1, "LIMIT_DOWN"));
  });

  test("finer than 10⁻¹²: a cost rounds up, a limit down", () => {
    expect([toAmount(1e-15, "COST_UP"), toAmount(1e-15, "LIMIT_DOWN")]).toEqual([1n, 0n]);
    expect([toAmount(1e-300, "COST_UP"), toAmount(5e-324, "LIMIT_DOWN")]).toEqual([1n, 0n]);
    expect([toAmount(0.1234567890125, "COST_UP"), toAmount(0.1234567890125, "LIMIT_DOWN")]).toEqual([123456789013n, 123456789012n]);
    expect([toAmount(0, "COST_UP"), toAmount(0, "LIMIT_DOWN")]).toEqual([0n, 0n]);
  });

  test("for any number: the limit is at most the value, the cost at least, one step apart or equal", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (value) => {
        const down = toAmount(value, "LIMIT_DOWN");
        const up = toAmount(value, "COST_UP");
        expect(up - down === 0n || up - down === 1n).toBe(true);
        // Compared as decimals: down ≤ value ≤ up (Number() of a 12-decimal text is the double nearest it).
        expect(Number(toDecimal(down)) <= value && value <= Number(toDecimal(up))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  test("a negative or infinite number is no amount", () => {
    for (const value of [-1, -1e-300, Infinity, NaN]) expect(() => toAmount(value, "COST_UP")).toThrow(/not a finite, non-negative number/);
  });
});

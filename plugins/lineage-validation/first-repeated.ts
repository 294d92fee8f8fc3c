/** The first value that repeats an earlier one, in order (linear: executions carry tens of thousands of outputs). */
export function firstRepeated<T, K>(values: readonly T[], keyOf: (value: T) => K = (value) => value as unknown as K): T | undefined {
  const seen = new Set<K>();
  for (const value of values) {
    const key = keyOf(value);
    if (seen.has(key)) return value;
    seen.add(key);
  }
  return undefined;
}

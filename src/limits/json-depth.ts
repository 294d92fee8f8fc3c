/**
 * Whether a JSON value nests objects/arrays more than `max` levels (`{}` is 1). The walk recurses
 * at most `max + 1` levels (it stops there), so any input is safe to check; it allocates nothing
 * per value (a 12 MB document is checked on the event loop in tens of ms, not hundreds).
 */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  return exceeds(value, max);
}

function exceeds(value: unknown, left: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (left === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === "object" && exceeds(item, left - 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item !== null && typeof item === "object" && exceeds(item, left - 1)) return true;
  }
  return false;
}

/**
 * How much of what a caller sent an error may carry back (docs: README "Errors"): a message, and each
 * string, list and object in an error's extensions or fields, is cut to these sizes, so a 20 MB
 * argument echoed by a message ("id: '…' is not a valid artifact id") costs the answer 1 KB, not
 * 40 MB (once in the message, once in the extensions). Cut text ends with "… (N characters)".
 */
export const ECHO_LIMITS = {
  /** Characters of one message or one string value. */
  characters: 1_000,
  /** Items of one list (the rest is counted in a last item). */
  items: 100,
  /** Objects and lists nested in one value. */
  depth: 8,
} as const;

/** A message or a string value, cut to ECHO_LIMITS.characters. */
export function cappedText(text: string): string {
  return text.length <= ECHO_LIMITS.characters ? text : `${text.slice(0, ECHO_LIMITS.characters)}… (${text.length} characters)`;
}

/** A value every string, list and object of which fits ECHO_LIMITS (the same value when it fits already). */
export function cappedValue<T>(value: T, depth = 0): T {
  if (typeof value === "string") return cappedText(value) as T;
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  if (depth >= ECHO_LIMITS.depth) return "… (nested too deep to quote)" as T;
  if (Array.isArray(value)) {
    const kept = value.slice(0, ECHO_LIMITS.items).map((item) => cappedValue(item, depth + 1));
    if (value.length <= ECHO_LIMITS.items && kept.every((item, i) => item === value[i])) return value;
    return (value.length > ECHO_LIMITS.items ? [...kept, `… (${value.length} items)`] : kept) as T;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const kept = entries.slice(0, ECHO_LIMITS.items).map(([key, item]) => [cappedText(key), cappedValue(item, depth + 1)] as const);
  if (entries.length <= ECHO_LIMITS.items && kept.every(([key, item], i) => key === entries[i][0] && item === entries[i][1])) return value;
  const object: Record<string, unknown> = Object.fromEntries(kept);
  if (entries.length > ECHO_LIMITS.items) object["…"] = `(${entries.length} keys)`;
  return object as T;
}

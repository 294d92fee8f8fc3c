/**
 * The JSON pointer of the first string (value or key) in `value` holding U+0000, or undefined.
 * PostgreSQL's text cannot hold it, and no OpenLineage field needs it: an event with one is refused
 * as a whole, on every database, wherever the character sits (descriptions, error messages, facets).
 */
export function pointerOfNul(value: unknown, pointer = ""): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? pointer || "/" : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = pointerOfNul(value[i], `${pointer}/${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const at = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (key.includes("\u0000")) return at;
      const found = pointerOfNul(item, at);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The first string (value or key) in `value` holding U+0000: its JSON pointer and the index of the
 * character, or undefined. PostgreSQL's text cannot hold it, and no OpenLineage field needs it: an
 * event with one is refused as a whole, on every database, wherever the character sits
 * (descriptions, error messages, facets).
 */
export function nulIn(value: unknown, pointer = ""): { pointer: string; index: number } | undefined {
  if (typeof value === "string") {
    const index = value.indexOf("\u0000");
    return index >= 0 ? { pointer: pointer || "/", index } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulIn(value[i], `${pointer}/${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const at = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (key.includes("\u0000")) return { pointer: at, index: key.indexOf("\u0000") };
      const found = nulIn(item, at);
      if (found) return found;
    }
  }
  return undefined;
}

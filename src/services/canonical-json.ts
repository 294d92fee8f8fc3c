/** JSON with object keys sorted at every level: equal values always give equal text (for hashing and comparing). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    // A plain object (V8 keeps it in fast mode, which JSON.stringify walks quickly); a "__proto__"
    // key is defined as an own property, as JSON.parse made it, never set as the prototype.
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = sortKeys((value as Record<string, unknown>)[key]);
      if (key === "__proto__") Object.defineProperty(sorted, key, { value: item, enumerable: true, writable: true, configurable: true });
      else sorted[key] = item;
    }
    return sorted;
  }
  return value;
}

/** JSON with object keys sorted at every level: equal values always give equal text (for hashing and comparing). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/**
 * canonicalJson of a big value (a wide OpenLineage event: 20,000 column-lineage fields) built in
 * slices: `turn` is called after every SLICE_NODES values and may answer a promise of the next turn
 * of the event loop (turnSlicer), so the sorted copy — most of the work, ~100 ms for such an event —
 * never holds the loop at once. The same text as canonicalJson: the same copy, built iteratively
 * instead of recursively; only JSON.stringify of the finished copy (native, a fraction of it) runs whole.
 */
export async function canonicalJsonInTurns(value: unknown, turn: () => Promise<void> | undefined): Promise<string> {
  const root: { value?: unknown } = {};
  // Containers being filled, each with the source it copies: an array's items by index, an object's by sorted key.
  const stack: Container[] = [];
  const place = (into: (item: unknown) => void, item: unknown) => {
    const container = containerOf(item);
    into(container ? container.target : item);
    if (container) stack.push(container);
  };
  place((item) => (root.value = item), value);
  let visited = 0;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const length = frame.keys ? frame.keys.length : (frame.source as unknown[]).length;
    if (frame.next >= length) {
      stack.pop();
      continue;
    }
    const at = frame.next++;
    if (frame.keys) {
      const key = frame.keys[at];
      const target = frame.target as Record<string, unknown>;
      place((item) => setOwn(target, key, item), (frame.source as Record<string, unknown>)[key]);
    } else {
      const target = frame.target as unknown[];
      place((item) => target.push(item), (frame.source as unknown[])[at]);
    }
    if (++visited % SLICE_NODES === 0) await turn();
  }
  return JSON.stringify(root.value);
}

/** Values copied between calls of canonicalJsonInTurns's `turn` (each call costs a clock read at most). */
const SLICE_NODES = 2_000;

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isPlainRecord(value)) {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) setOwn(sorted, key, sortKeys(value[key]));
    return sorted;
  }
  return value;
}

/** Arrays and plain records are copied (keys sorted); anything else (a Date, a string, null) is kept as it is. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date);
}

interface Container {
  source: unknown[] | Record<string, unknown>;
  target: unknown[] | Record<string, unknown>;
  /** An object's keys, sorted; null for an array. */
  keys: string[] | null;
  next: number;
}

function containerOf(value: unknown): Container | null {
  if (Array.isArray(value)) return { source: value, target: [], keys: null, next: 0 };
  if (isPlainRecord(value)) return { source: value, target: {}, keys: Object.keys(value).sort(), next: 0 };
  return null;
}

/**
 * Sets a key on a plain object (V8 keeps it in fast mode, which JSON.stringify walks quickly); a
 * "__proto__" key is defined as an own property, as JSON.parse made it, never set as the prototype.
 */
function setOwn(target: Record<string, unknown>, key: string, item: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value: item, enumerable: true, writable: true, configurable: true });
  else target[key] = item;
}

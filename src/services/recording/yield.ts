import { turnBeforeStatement } from "../../db/statement-turns";

/**
 * One turn of the event loop: lets waiting I/O (a read on the other connection, an incoming
 * request) run between the chunks of a big write, so no write holds the process for long.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A loop's yield: once `sliceMs` of work has run since the last turn, one turn of the event loop
 * (else nothing: awaiting undefined costs a microtask). Loops over many items of a big write or
 * check call it per item, so each turn holds the process for about one slice.
 */
export function turnSlicer(sliceMs = 20): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < sliceMs) return undefined;
    return yieldToEventLoop().then(() => {
      since = performance.now();
    });
  };
}

/**
 * `items.map(fn)`, taking a turn of the event loop whenever the current one has run a slice (the
 * clock src/db/statement-turns.ts keeps for the whole thread, so a slice is shared by every loop
 * and statement of the task, not granted afresh to each). For the O(n) steps of a big write —
 * rows, documents, keys for 20,000 artifacts — that would each hold the loop for tens of ms.
 */
export async function mapInTurns<T, U>(items: Iterable<T>, fn: (item: T, index: number) => U): Promise<U[]> {
  const mapped: U[] = [];
  let index = 0;
  for (const item of items) {
    const turn = turnBeforeStatement();
    if (turn) await turn;
    mapped.push(fn(item, index++));
  }
  return mapped;
}

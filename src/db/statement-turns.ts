/**
 * SQLite statements run synchronously on the event loop (better-sqlite3), and an awaited chain of
 * them resolves through microtasks alone: a recording unit of hundreds of statements would hold the
 * loop from its first statement to its commit, however it is written. So before each statement,
 * once the current turn has run STATEMENT_SLICE_MS, the statement waits one turn of the event loop
 * (setImmediate): requests waiting meanwhile (a /healthz, a read on the other connection) are
 * answered between the slices of a big write. A transaction stays one transaction — the commit
 * path runs one unit at a time on the writer connection — it only takes longer to finish. The
 * write's own loops over its items take their turns on the same clock (mapInTurns,
 * src/services/recording/yield.ts): a slice is the task's, whatever runs in it.
 */
export const STATEMENT_SLICE_MS = 15;

let since = 0;
/** Whether the event loop has turned since `since` was marked: a new task, whose time starts at its first statement. */
let turned = true;

function mark(): void {
  since = performance.now();
  turned = false;
  setImmediate(() => {
    turned = true;
  });
}

/** Undefined when the statement may run now (no await needed); else a promise of the next turn. */
export function turnBeforeStatement(): Promise<void> | undefined {
  if (turned) {
    mark();
    return undefined;
  }
  if (performance.now() - since < STATEMENT_SLICE_MS) return undefined;
  return new Promise((resolve) =>
    setImmediate(() => {
      mark();
      resolve();
    }),
  );
}

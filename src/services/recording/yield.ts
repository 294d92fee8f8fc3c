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

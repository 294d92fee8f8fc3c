/**
 * One turn of the event loop: lets waiting I/O (a read on the other connection, an incoming
 * request) run between the chunks of a big write, so no write holds the process for long.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

import type { Transaction } from "@prisma/driver-adapter-utils";

/** Every Transaction method that sends something over the transaction's one connection. */
const CONNECTION_METHODS = new Set<PropertyKey>([
  "queryRaw",
  "executeRaw",
  "executeScript",
  "createSavepoint",
  "rollbackToSavepoint",
  "releaseSavepoint",
  "commit",
  "rollback",
]);

/**
 * A transaction that sends one statement at a time. A transaction owns one connection, yet
 * Prisma's query interpreter issues statements in parallel within it (the chunks of a large
 * createMany, sibling relation loads); node-postgres queues them but deprecates that queue
 * ("client.query() when the client is already executing a query", an error from pg 9). Waiting
 * here gives the same order pg's queue gave, without relying on it (prisma/orm#29979).
 */
export function serializeStatements<T extends Transaction>(transaction: T): T {
  let tail: Promise<unknown> = Promise.resolve();
  return new Proxy(transaction, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (!CONNECTION_METHODS.has(prop)) return value.bind(target);
      return (...args: unknown[]) => {
        // Calls inside the adapter (createSavepoint → executeRaw) reach the target itself, not
        // this proxy, so a method holding the turn never waits for itself.
        const run = tail.then(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        tail = run.catch(() => undefined);
        return run;
      };
    },
  });
}

/**
 * Whether a driver transaction is still open. Prisma ends an interactive transaction on its own when
 * it outlives its `timeout` (it sends ROLLBACK and gives the connection back: on SQLite the writer's
 * lock goes to the next transaction, on PostgreSQL the connection to the pool) while the code in it
 * may still be running. Prisma refuses that code's next query through `tx`; statements sent straight
 * to the driver (direct-statements.ts) would not know, and would run outside the transaction —
 * committed on their own, or inside someone else's transaction. They ask here first.
 */
const ended = new WeakSet<object>();

/** Marks a driver transaction as over (its COMMIT or ROLLBACK is being sent, or it was released). */
export function markTransactionEnded(transaction: object): void {
  ended.add(transaction);
}

export function hasTransactionEnded(transaction: object): boolean {
  return ended.has(transaction);
}

/** A statement was sent on a transaction that had already ended (rolled back by its timeout, or committed). */
export class TransactionEndedError extends Error {
  readonly code = "TRANSACTION_ENDED";
  constructor() {
    super("the transaction had already ended (rolled back after its timeout, or committed) when this statement was sent; it was not run");
    this.name = "TransactionEndedError";
  }
}

/**
 * Whether an error says the statement's transaction was over: ours (TransactionEndedError), or
 * Prisma's for a query sent through `tx` after it ended (P2028, "expired transaction" / "Transaction
 * already closed").
 */
export function isTransactionEnded(error: unknown): boolean {
  if (error instanceof TransactionEndedError) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "P2028" && typeof message === "string" && /expired transaction|Transaction already closed/.test(message);
}

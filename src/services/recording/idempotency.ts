import { createHash } from "node:crypto";
import type { DbTx } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import { IdempotencyKeyReusedError, InvalidArgumentError } from "../errors";
import type { RunId } from "../ids";
import { unsafeTextReason } from "../safe-text";
import { insertRows } from "./bulk-insert";

/**
 * Idempotency keys (issue 13, point 5): a client that cannot tell whether its recording committed
 * (the reply was lost) retries with the same key, and is answered with the first result instead of
 * recording a second run. The key is claimed inside the unit that records, so it commits with the
 * recording or not at all (a refused recording leaves the key free).
 */
export type IdempotentKind = "RECORD_EXECUTION" | "RECORD_COMPOSITE_EXECUTION";

export interface StoredKey {
  kind: IdempotentKind;
  requestHash: string;
  runId: RunId;
  /** What the first answer said besides the stored executions. */
  answer: unknown;
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A key as given, checked: 1 to 255 characters of safe text. */
export function checkIdempotencyKey(field: string, key: string | null | undefined): string | null {
  if (key === null || key === undefined) return null;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw new InvalidArgumentError(field, `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, got ${key.length}`);
  const unsafe = unsafeTextReason(key);
  if (unsafe) throw new InvalidArgumentError(field, unsafe);
  return key;
}

/**
 * The identity of a request under its key: its kind and its canonical JSON (dates as ISO text), the
 * key left out, and so are top-level fields given as null (null and absent say the same there).
 */
export function requestHashOf(kind: IdempotentKind, request: object): string {
  const fields = Object.entries(request).filter(([name, value]) => name !== "idempotencyKey" && value !== null && value !== undefined);
  return createHash("sha256").update(canonicalJson({ kind, request: JSON.parse(JSON.stringify(Object.fromEntries(fields))) })).digest("hex");
}

/** The recording a key already holds, read in the unit's transaction (null: the key is free). */
export async function storedKey(tx: DbTx, key: string): Promise<StoredKey | null> {
  const row = await tx.idempotencyKey.findUnique({ where: { key } });
  return row && { kind: row.kind as IdempotentKind, requestHash: row.requestHash, runId: row.runId as RunId, answer: JSON.parse(row.answer) };
}

/**
 * Claims `key` for this recording: the INSERT on the key arbitrates between concurrent retries (on
 * PostgreSQL it waits for the transaction that inserted the key first, then finds its row). Returns
 * null when claimed, else what holds the key.
 */
export async function claimKey(tx: DbTx, key: string, claim: StoredKey, at: Date): Promise<StoredKey | null> {
  const inserted = await insertRows(tx, "IdempotencyKey", ["key", "kind", "requestHash", "runId", "answer", "createdAt"], [[key, claim.kind, claim.requestHash, claim.runId, JSON.stringify(claim.answer), at]], {
    ignoreConflicts: true,
    returning: "key",
  });
  if (inserted.length === 1) return null;
  const holder = await storedKey(tx, key);
  if (!holder) throw new Error(`idempotency key ${key} was neither inserted nor found`);
  return holder;
}

/** The first recording, when `stored` holds the same request; otherwise IDEMPOTENCY_KEY_REUSED. */
export function sameRequestOrRefuse(key: string, stored: StoredKey, kind: IdempotentKind, requestHash: string): StoredKey {
  if (stored.kind !== kind || stored.requestHash !== requestHash) throw new IdempotencyKeyReusedError(key, stored.runId);
  return stored;
}

import crypto from "node:crypto";
import { v7 as uuidv7 } from "uuid";

/**
 * API token secrets: `pgt_` + 43 base64url characters (256 random bits). The prefix makes a leaked
 * token recognisable (secret scanners, our own log masking). Only the SHA-256 of the whole string
 * is stored: a plain hash is enough for secrets of this entropy (no one can guess their way to a
 * preimage), and unlike a keyed hash it needs no server secret, so the CLI and every server
 * instance compute the same value from the database alone.
 */
export const TOKEN_PREFIX = "pgt_";

/** At least 22 base64url characters after the prefix: ≥ 128 bits when they are random. */
const TOKEN_PATTERN = /^pgt_[A-Za-z0-9_-]{22,256}$/;

export type TokenId = string & { readonly __tokenId: unique symbol };

export function generateTokenSecret(): string {
  return TOKEN_PREFIX + crypto.randomBytes(32).toString("base64url");
}

export function isWellFormedTokenSecret(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function hashTokenSecret(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Public, time-ordered: "tok_" + UUIDv7, so listing by id lists by creation time. */
export function newTokenId(): TokenId {
  return `tok_${uuidv7()}` as TokenId;
}

export function isTokenId(value: string): value is TokenId {
  return /^tok_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(value);
}

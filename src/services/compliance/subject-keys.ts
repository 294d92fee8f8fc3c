import crypto from "node:crypto";
import { ErasureNotConfiguredError } from "./errors";

/**
 * Data-subject keys are never stored: what provgraph keeps (declarations, erasure plans, the
 * suppression list, OpenLineage events as stored) is their keyed hash, HMAC-SHA-256 under the
 * server's PROVGRAPH_ERASURE_SECRET. Without the secret nobody (the database's reader included)
 * can test a guess against it; with another secret the same key hashes differently, so every
 * instance sharing a database must share the secret, and changing it forgets the suppression list.
 */
export class SubjectKeys {
  constructor(private readonly secret: string | null) {}

  get configured(): boolean {
    return this.secret !== null;
  }

  /** `hmac-sha256:` + 64 hex digits. `at` names where the key came from, for the refusal when no secret is configured. */
  hash(key: string, at: { field: string } | { pointer: string }): string {
    if (this.secret === null) throw new ErasureNotConfiguredError(at);
    return `hmac-sha256:${crypto.createHmac("sha256", this.secret).update(`provgraph-subject-key\u0000${key}`, "utf8").digest("hex")}`;
  }
}

import crypto from "node:crypto";
import { ErasureNotConfiguredError } from "./errors";

/** A subject key's namespace: what comes before its first ':' when that is 1–64 letters, digits, '.', '_' or '-' (`email:…`, `crm:…`). */
const NAMESPACED = /^([A-Za-z0-9._-]{1,64}):(.*)$/s;

/**
 * How subject keys are compared (docs: "Data subjects", key normalisation): `caseInsensitive` lists
 * the namespaces whose keys are compared without regard to case (`email`), `*` standing for every
 * key, those without a namespace included. Other keys keep their case.
 */
export interface SubjectKeyRules {
  caseInsensitive: readonly string[];
}

/**
 * Data-subject keys are never stored: what provgraph keeps (declarations, erasure plans, the
 * suppression list, OpenLineage events as stored) is their keyed hash, HMAC-SHA-256 under the
 * server's PROVGRAPH_ERASURE_SECRET. Without the secret nobody (the database's reader included)
 * can test a guess against it; with another secret the same key hashes differently, so every
 * instance sharing a database must share the secret, and changing it forgets the suppression list.
 *
 * A key is normalised before it is hashed, so one subject is one hash however a source spells it:
 * surrounding white space trimmed, Unicode NFC, the namespace (before the first ':') in lower case,
 * and the whole key in lower case where the rules make its namespace case-insensitive. Hashes made
 * before normalisation were of the key as given: `legacyHashes` gives that hash for a key whose
 * normal form differs, so a tombstone recorded then still matches the spelling it was recorded from.
 */
export class SubjectKeys {
  private readonly anyCase: ReadonlySet<string>;

  constructor(
    private readonly secret: string | null,
    rules: SubjectKeyRules = { caseInsensitive: [] },
  ) {
    this.anyCase = new Set(rules.caseInsensitive.map((n) => n.toLowerCase()));
  }

  get configured(): boolean {
    return this.secret !== null;
  }

  /** The key as it is hashed. */
  normalise(key: string): string {
    const composed = key.trim().normalize("NFC");
    const namespaced = NAMESPACED.exec(composed);
    const namespace = namespaced ? namespaced[1].toLowerCase() : null;
    const caseless = this.anyCase.has("*") || (namespace !== null && this.anyCase.has(namespace));
    if (caseless) return composed.toLowerCase();
    return namespaced ? `${namespace}:${namespaced[2]}` : composed;
  }

  /** `hmac-sha256:` + 64 hex digits of the normalised key. `at` names where the key came from, for the refusal when no secret is configured. */
  hash(key: string, at: { field: string } | { pointer: string }): string {
    return this.hmac(this.normalise(key), at);
  }

  /** The hash a key had before keys were normalised (the key as given), when its normal form differs; else none. */
  legacyHashes(key: string, at: { field: string } | { pointer: string }): string[] {
    return this.normalise(key) === key ? [] : [this.hmac(key, at)];
  }

  private hmac(text: string, at: { field: string } | { pointer: string }): string {
    if (this.secret === null) throw new ErasureNotConfiguredError(at);
    return `hmac-sha256:${crypto.createHmac("sha256", this.secret).update(`provgraph-subject-key\u0000${text}`, "utf8").digest("hex")}`;
  }
}

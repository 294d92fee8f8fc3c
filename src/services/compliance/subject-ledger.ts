import { inChunks } from "../../db/chunked-lists";
import type { DbTx } from "../../db/client";
import { insertRows, type SubjectDeclarationDraft } from "../recording";
import { SubjectSuppressedError } from "./errors";
import type { SubjectKeys } from "./subject-keys";

/**
 * The data subjects recordings declare (an artifact's `subjectKeys`, an OpenLineage dataset's
 * provgraph_dataSubjects facet), settled at the end of the recording's unit, before it commits: a
 * subject on the suppression list refuses the whole unit (SUBJECT_SUPPRESSED, naming where it was
 * declared); the others are recorded as (keyed hash, artifact), which erasure plans start from.
 */
export class SubjectLedger {
  constructor(private readonly keys: SubjectKeys) {}

  async settle(tx: DbTx, declarations: readonly SubjectDeclarationDraft[]): Promise<void> {
    if (declarations.length === 0) return;
    // Each key by its hash, and by the hash it had before keys were normalised (a tombstone of then).
    const hashed = declarations.map((d) => ("hash" in d.key ? { ...d, keyHash: d.key.hash, legacy: d.key.legacy ?? [] } : { ...d, keyHash: this.keys.hash(d.key.raw, d.at), legacy: this.keys.legacyHashes(d.key.raw, d.at) }));
    const hashes = [...new Set(hashed.flatMap((d) => [d.keyHash, ...d.legacy]))];
    const suppressed = new Set((await inChunks(hashes, (chunk) => tx.subjectTombstone.findMany({ where: { keyHash: { in: chunk } }, select: { keyHash: true } }))).map((t) => t.keyHash));
    const refused = hashed.find((d) => suppressed.has(d.keyHash) || d.legacy.some((h) => suppressed.has(h)));
    if (refused) throw new SubjectSuppressedError(refused.at, refused.artifactId);
    const at = new Date();
    await insertRows(tx, "SubjectDeclaration", ["keyHash", "artifactId", "createdAt"], uniqueRows(hashed.map((d) => [d.keyHash, d.artifactId, at])), { ignoreConflicts: true });
  }
}

function uniqueRows(rows: unknown[][]): unknown[][] {
  const seen = new Map<string, unknown[]>();
  for (const row of rows) seen.set(`${row[0]}\u0000${row[1]}`, row);
  return [...seen.values()];
}

import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { InvalidArgumentError } from "../errors";
import { type CommitPath, insertRows } from "../recording";
import { unsafeTextReason } from "../safe-text";
import type { BeforeCommit } from "./policy-tag-service";
import { checkTag } from "./policy-tag-service";
import { type Actor, MAX_REASON_LENGTH, PURPOSE_NAME, PURPOSE_SYNTAX } from "./tag-records";

/** The purposes one tag's data may serve, as last declared (with who, why and when). */
export interface TagPurposesRecord {
  id: number;
  tag: string;
  purposes: string[];
  reason: string;
  declaredBy: string;
  tokenId: string | null;
  createdAt: Date;
}

/** The most purposes one tag may declare. */
export const MAX_TAG_PURPOSES = 100;

/**
 * How long the purposes read for redaction are kept (every tagged read asks; the table is a few
 * rows): a declaration takes effect at once on the instance that made it, within this on others.
 * Recordings check runs against the table itself, in their transaction.
 */
export const TAG_PURPOSES_CACHE_MS = 1_000;

/**
 * The purposes policy tags' data may serve (docs: "Purposes"): declared by an admin with a reason,
 * each declaration a record of its own; the newest for a tag applies. A tag never declared serves
 * any purpose (its clearance alone guards it); one declared with no purpose serves none.
 */
export class TagPurposes {
  private cached: { at: number; allowed: Promise<Map<string, string[]>> } | null = null;

  constructor(
    private readonly commits: CommitPath,
    private readonly db: Db,
  ) {}

  async declare(tag: string, purposes: readonly string[], reason: string, actor: Actor, beforeCommit?: BeforeCommit): Promise<TagPurposesRecord> {
    checkTag("tag", tag);
    if (purposes.length > MAX_TAG_PURPOSES) throw new InvalidArgumentError("purposes", `at most ${MAX_TAG_PURPOSES} purposes, got ${purposes.length}`);
    purposes.forEach((purpose, i) => {
      if (!PURPOSE_NAME.test(purpose)) throw new InvalidArgumentError(`purposes[${i}]`, `'${purpose.slice(0, 80)}' is not a purpose: ${PURPOSE_SYNTAX}`);
    });
    if (!reason.trim()) throw new InvalidArgumentError("reason", "must say why (it is recorded with the declaration)");
    if (reason.length > MAX_REASON_LENGTH) throw new InvalidArgumentError("reason", `at most ${MAX_REASON_LENGTH} characters, got ${reason.length}`);
    const unsafe = unsafeTextReason(reason);
    if (unsafe) throw new InvalidArgumentError("reason", unsafe);
    const sorted = [...new Set(purposes)].sort();
    const declared = await this.commits.run(async (tx) => {
      const at = new Date();
      const [id] = await insertRows(tx, "TagPurposePolicy", ["tag", "purposes", "reason", "declaredBy", "tokenId", "createdAt"], [[tag, JSON.stringify(sorted), reason, actor.name, actor.tokenId, at]], { returning: "id" });
      if (beforeCommit) await beforeCommit(tx);
      return { id: Number(id), tag, purposes: sorted, reason, declaredBy: actor.name, tokenId: actor.tokenId, createdAt: at };
    });
    this.cached = null;
    return declared;
  }

  /** For each of `tags` that declared purposes, what it allows (read at most TAG_PURPOSES_CACHE_MS ago). */
  async of(tags: readonly string[]): Promise<Map<string, string[]>> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > TAG_PURPOSES_CACHE_MS) {
      const allowed = this.list().then((records) => new Map(records.map((r) => [r.tag, r.purposes])));
      this.cached = { at: now, allowed };
      // A failed read is not kept: the next read asks again.
      allowed.catch(() => {
        if (this.cached?.allowed === allowed) this.cached = null;
      });
    }
    const allowed = await this.cached.allowed;
    return new Map(tags.flatMap((tag) => (allowed.has(tag) ? [[tag, allowed.get(tag)!] as const] : [])));
  }

  /** Every tag's current declaration (history: all of them, oldest first). */
  async list(history = false): Promise<TagPurposesRecord[]> {
    const rows = await this.db.tagPurposePolicy.findMany({ orderBy: [{ tag: "asc" }, { id: "asc" }] });
    const all = rows.map((r) => ({ ...r, purposes: JSON.parse(r.purposes) as string[] }));
    if (history) return all;
    const newest = new Map(all.map((r) => [r.tag, r]));
    return [...newest.values()];
  }
}

/** The purposes each of `tags` allows, for those that declared any (the newest declaration of each). */
export async function allowedPurposes(db: Pick<Db, "tagPurposePolicy">, tags: readonly string[]): Promise<Map<string, string[]>> {
  const wanted = [...new Set(tags)];
  const allowed = new Map<string, string[]>();
  if (wanted.length === 0) return allowed;
  // Declarations oldest first within each chunk; a tag's declarations all fall in its own chunk, so the newest still wins.
  const rows = await inChunks(wanted, (chunk) => db.tagPurposePolicy.findMany({ where: { tag: { in: chunk } }, orderBy: { id: "asc" }, select: { tag: true, purposes: true } }));
  for (const row of rows) allowed.set(row.tag, JSON.parse(row.purposes) as string[]);
  return allowed;
}

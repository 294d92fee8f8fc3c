import { inChunks } from "../../db/chunked-lists";
import type { DbTx } from "../../db/client";
import { InvalidArgumentError } from "../errors";
import { type CommitPath, insertRows, noteUnitWrites } from "../recording";
import { unsafeTextReason } from "../safe-text";
import { TagNotInheritedError } from "./errors";
import type { TagFlow } from "./tag-flow";
import { assignedNodes, better } from "./tag-flow-sql";
import {
  type Actor,
  assignmentOfRow,
  MAX_REASON_LENGTH,
  type NodeTarget,
  POLICY_TAG,
  POLICY_TAG_SYNTAX,
  type PolicyTagAssignmentRecord,
  type TagDowngradeRecord,
  type TagTarget,
  targetKey,
  targetName,
} from "./tag-records";

/** Runs inside the mutation's unit, last: the audit entry of the admin action commits with it. */
export type BeforeCommit = (tx: DbTx) => Promise<void>;

/** A tag a producer reported (OpenLineage's tags facet), for the node it names. */
export interface ReportedTag {
  target: NodeTarget;
  tag: string;
  value: string | null;
  reportedSource: string | null;
  producer: string;
  runId: string;
  at: Date;
}

const ASSIGNMENT_COLUMNS = ["tag", "nodeKind", "artifactId", "field", "datasetNamespace", "datasetName", "source", "reportedSource", "value", "reason", "assignedBy", "tokenId", "runId", "createdAt"];

/**
 * The write side of policy tags. Assigning a tag records its origin and the origin's own holding
 * (depth 0) in one unit; the propagate stage at the end of that unit lets it flow (the backfill, by
 * the policy-tags plugin). A downgrade records who, why and when, removes the node's holding, and
 * the propagate stage derives the tag afresh from its origins, now with the barrier.
 */
export class PolicyTagService {
  constructor(
    private readonly commits: CommitPath,
    private readonly flow: TagFlow,
  ) {}

  /**
   * Derives every holding afresh from the assignments, the downgrades and the lineage (the rule, by
   * the same statements as the propagate stage): what the incremental flow has kept must equal
   * this. Returns the holdings there are afterwards.
   */
  async recompute(): Promise<number> {
    return this.commits.run(async (tx) => {
      await rederiveAllHoldings(tx, this.flow);
      return tx.policyTagHolding.count();
    });
  }

  /**
   * Gives `tag` to `target` (idempotent: the first assignment of a tag to a node stands, `created:
   * false` after). A dataset's column (DATASET_COLUMN) is held at that column of every version of
   * the dataset, those recorded later included.
   */
  async assign(target: TagTarget, tag: string, reason: string, actor: Actor, beforeCommit?: BeforeCommit): Promise<{ assignment: PolicyTagAssignmentRecord; created: boolean }> {
    checkTag("tag", tag);
    checkReason(reason);
    return this.commits.run(async (tx) => {
      const key = targetKey(target);
      const dataset = target.kind === "DATASET_COLUMN" ? [target.namespace, target.name] : [null, null];
      const [id] = await insertRows(tx, "PolicyTagAssignment", ASSIGNMENT_COLUMNS, [[tag, key.nodeKind, key.artifactId, key.field, ...dataset, "ADMIN", null, null, reason, actor.name, actor.tokenId, null, new Date()]], {
        ignoreConflicts: true,
        returning: "id",
      });
      if (id !== undefined) await holdOwnTags(tx, [Number(id)]);
      if (beforeCommit) await beforeCommit(tx);
      const row = await tx.policyTagAssignment.findUniqueOrThrow({ where: { nodeKind_artifactId_field_tag: { ...key, tag } } });
      return { assignment: assignmentOfRow(row), created: id !== undefined };
    });
  }

  /**
   * Removes an inherited `tag` from `target`, recording who, why and when. Refused (TAG_NOT_INHERITED)
   * when the tag was assigned to this very node, or the node does not hold it (never did, or was
   * downgraded already). An artifact's downgrade removes its holding as a whole and its
   * version-wide one (what an opaque step gives it).
   */
  async downgrade(target: NodeTarget, tag: string, reason: string, actor: Actor, beforeCommit?: BeforeCommit): Promise<TagDowngradeRecord> {
    checkTag("tag", tag);
    checkReason(reason);
    return this.commits.run(async (tx) => {
      const key = targetKey(target);
      const held = await heldAt(tx, target, tag);
      const name = targetName(target);
      if (!held) throw new TagNotInheritedError(name, tag, "NOT_HELD", `does not hold ${tag}: there is nothing to downgrade`);
      if (held.depth === 0 && (held.level === target.kind || (target.kind === "ARTIFACT" && held.level === "VERSION"))) {
        throw new TagNotInheritedError(name, tag, "ASSIGNED", `has ${tag} assigned, not inherited: a downgrade removes inherited tags only`);
      }
      const at = new Date();
      const [id] = await insertRows(
        tx,
        "PolicyTagDowngrade",
        ["nodeKind", "artifactId", "field", "tag", "reason", "downgradedBy", "tokenId", "originId", "depth", "createdAt"],
        [[key.nodeKind, key.artifactId, key.field, tag, reason, actor.name, actor.tokenId, held.originId, held.depth, at]],
        { returning: "id" },
      );
      await tx.policyTagHolding.deleteMany({ where: { ...key, tag } });
      if (target.kind === "ARTIFACT") await tx.policyTagHolding.deleteMany({ where: { ...key, nodeKind: "VERSION", tag } });
      noteUnitWrites(tx, { downgradedTags: [tag] });
      if (beforeCommit) await beforeCommit(tx);
      const origin = await tx.policyTagAssignment.findUnique({ where: { id: held.originId } });
      return { id: Number(id), target, tag, reason, downgradedBy: actor.name, tokenId: actor.tokenId, origin: origin ? assignmentOfRow(origin) : null, depth: held.depth, createdAt: at };
    });
  }
}

/**
 * Records tags producers reported (inside the ingesting unit): each new (node, tag) an origin of
 * source OPENLINEAGE holding its own tag; one reported before keeps its first report. Returns the
 * ids of the new assignments (the propagate stage lets them flow).
 */
export async function stageReportedTags(tx: DbTx, tags: readonly ReportedTag[]): Promise<number[]> {
  if (tags.length === 0) return [];
  const rows = new Map<string, unknown[]>();
  for (const t of tags) {
    const key = targetKey(t.target);
    const rowKey = JSON.stringify([key.nodeKind, key.artifactId, key.field, t.tag]);
    if (!rows.has(rowKey)) rows.set(rowKey, [t.tag, key.nodeKind, key.artifactId, key.field, null, null, "OPENLINEAGE", t.reportedSource, t.value, null, t.producer, null, t.runId, t.at]);
  }
  const ids = (await insertRows(tx, "PolicyTagAssignment", ASSIGNMENT_COLUMNS, [...rows.values()], { ignoreConflicts: true, returning: "id" })).map(Number);
  await holdOwnTags(tx, ids);
  return ids;
}

/**
 * Each assignment's node holds its tag at depth 0 (nearer than anything it inherited) — a dataset's
 * column at that column of every version of it; noted for the propagate stage.
 */
async function holdOwnTags(tx: DbTx, assignmentIds: readonly number[]): Promise<void> {
  if (assignmentIds.length === 0) return;
  await holdAssigned(tx, assignmentIds);
  // The tags are found by search too (the index keeps one entry per tag).
  const tags = await inChunks(assignmentIds, (chunk) => tx.policyTagAssignment.findMany({ where: { id: { in: chunk } }, select: { tag: true } }));
  noteUnitWrites(tx, { assignedTags: [...assignmentIds], searchable: [...new Set(tags.map((r) => r.tag))].map((tag) => ({ kind: "POLICY_TAG" as const, tag })) });
}

/**
 * The nodes of these assignments (all of them without ids) hold their tags at depth 0, by the
 * propagation's own rule (./tag-flow-sql.ts): one statement; where two assignments meet on a node
 * (a version's own and its dataset's), the older stands, and a node holding the tag as well already keeps it.
 */
async function holdAssigned(tx: DbTx, assignmentIds?: readonly number[]): Promise<void> {
  // bounded: integer literals, no bound values (an IN list of literals is one expression at any length)
  const where = assignmentIds ? `a.id IN (${assignmentIds.map((id) => String(Math.trunc(Number(id)))).join(", ") || "NULL"})` : "1 = 1";
  await tx.$executeRawUnsafe(
    `INSERT INTO "PolicyTagHolding" ("nodeKind", "artifactId", field, tag, "originId", depth, opaque, frontier) ` +
      `SELECT r."nodeKind", r."artifactId", r.field, r.tag, r.id, 0, FALSE, NULL FROM (SELECT s."nodeKind", s."artifactId", s.field, s.tag, s.id, ROW_NUMBER() OVER (PARTITION BY s."nodeKind", s."artifactId", s.field, s.tag ORDER BY s.id) AS rn FROM (${assignedNodes(() => where)}) s) r WHERE r.rn = 1 ` +
      `ON CONFLICT ("nodeKind", "artifactId", field, tag) DO UPDATE SET "originId" = excluded."originId", depth = excluded.depth, opaque = excluded.opaque, frontier = excluded.frontier WHERE ${better("excluded", `"PolicyTagHolding"`)}`,
  );
}

/**
 * What `target` holds of `tag`: its own holding, or — a column — its version's or artifact's, unless
 * the column was downgraded; an artifact, its version-wide holding too. `level` says which.
 */
async function heldAt(tx: DbTx, target: NodeTarget, tag: string): Promise<{ originId: number; depth: number; level: "COLUMN" | "VERSION" | "ARTIFACT" } | null> {
  const key = targetKey(target);
  const own = await tx.policyTagHolding.findUnique({ where: { nodeKind_artifactId_field_tag: { ...key, tag } } });
  if (own) return { originId: own.originId, depth: own.depth, level: own.nodeKind as "COLUMN" | "ARTIFACT" };
  if (target.kind === "ARTIFACT") {
    const version = await tx.policyTagHolding.findUnique({ where: { nodeKind_artifactId_field_tag: { ...key, nodeKind: "VERSION", tag } } });
    return version ? { originId: version.originId, depth: version.depth, level: "VERSION" } : null;
  }
  if (await tx.policyTagDowngrade.findUnique({ where: { nodeKind_artifactId_field_tag: { ...key, tag } } })) return null;
  const wider = await tx.policyTagHolding.findMany({ where: { artifactId: target.artifactId, field: "", tag, nodeKind: { in: ["VERSION", "ARTIFACT"] } }, orderBy: [{ depth: "asc" }, { originId: "asc" }] });
  return wider.length > 0 ? { originId: wider[0].originId, depth: wider[0].depth, level: wider[0].nodeKind as "VERSION" | "ARTIFACT" } : null;
}

export function checkTag(field: string, tag: string): void {
  if (!POLICY_TAG.test(tag)) throw new InvalidArgumentError(field, `'${tag.slice(0, 80)}' is not a policy tag: ${POLICY_TAG_SYNTAX}`);
}

function checkReason(reason: string): void {
  if (reason.trim() === "") throw new InvalidArgumentError("reason", "must say why (it is recorded with the action)");
  if (reason.length > MAX_REASON_LENGTH) throw new InvalidArgumentError("reason", `at most ${MAX_REASON_LENGTH} characters, got ${reason.length}`);
  const unsafe = unsafeTextReason(reason);
  if (unsafe) throw new InvalidArgumentError("reason", unsafe);
}

/**
 * Forgets every holding and derives them all again from the assignments, the downgrades and the
 * lineage, by the propagate stage's own statements (recompute, and the inherited-policy-tags invariant).
 */
export async function rederiveAllHoldings(tx: DbTx, flow: TagFlow): Promise<void> {
  await tx.policyTagHolding.deleteMany({});
  await holdAssigned(tx);
  const tags = await tx.policyTagAssignment.findMany({ select: { tag: true }, distinct: ["tag"] });
  await flow.flow(tx, { rederive: tags.map((t) => t.tag) });
}

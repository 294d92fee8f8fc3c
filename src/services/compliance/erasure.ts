import { inChunks } from "../../db/chunked-lists";
import type { Database } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import { InvalidArgumentError, InvalidIdError, NotFoundError } from "../errors";
import { type ErasurePlanId, isIdOfKind, newErasurePlanId } from "../ids";
import type { KeysetPage } from "../pagination";
import { type CommitPath, insertRows } from "../recording";
import { unsafeTextReason } from "../safe-text";
import type { Catalogue, CatalogueFactRecord } from "./catalogue";
import type { DocumentSignature, DocumentSigner } from "./document-signer";
import { erasureClosureStatement } from "./erasure-sql";
import { ErasureAlreadyExecutedError, ErasurePlanTooLargeError } from "./errors";
import type { BeforeCommit } from "./policy-tag-service";
import type { SubjectKeys } from "./subject-keys";
import type { Actor } from "./tag-records";
import { appendTo } from "../grouping";

/** The seed's k: an aggregate whose smallest group has at least this many members may be argued non-personal. */
export const DEFAULT_K_THRESHOLD = 50;
/** Every action of a plan is due this many days after the plan (GDPR Article 12(3): one month). */
export const ERASURE_SLA_DAYS = 30;
/** The most artifacts one plan's closure may reach (walk rows). */
export const ERASURE_WALK_BUDGET = 200_000;
/** Where the tombstone goes. */
export const SUPPRESSION_LIST = "suppression_list";

/**
 * What to do with a derived artifact (seed "Four classes of derived artefact"): CRYPTO_SHRED an
 * immutable store, REBUILD what is rebuildable from source, AGGREGATE_OK an aggregate argued
 * non-personal (with the numbers), ESCALATE anything else. DELETE_RECORDS: the subject's records in
 * an artifact that holds them (a root), unless it is immutable (CRYPTO_SHRED).
 */
export type ErasureActionKind = "CRYPTO_SHRED" | "REBUILD" | "AGGREGATE_OK" | "ESCALATE" | "DELETE_RECORDS";

export interface ErasureAction {
  artifactId: string;
  /** Hops from the nearest root. */
  depth: number;
  action: ErasureActionKind;
  slaDays: number;
  dueBy: string;
  /** Why this action: the facts and, for an aggregate, the numbers the argument rests on. */
  argument: string;
  kThreshold: number;
  minGroupSize: number | null;
  uniqueQuasiIdentifierCombinations: number | null;
  /** The catalogue facts the action was decided on (null: none known). */
  factsId: number | null;
}

export interface ErasureRoot {
  artifactId: string;
  /** Why it is a root: DECLARED_SUBJECT (a recording declared the subject on it), HOLDS_SUBJECT_DATA (its catalogue facts). */
  holds: ("DECLARED_SUBJECT" | "HOLDS_SUBJECT_DATA")[];
  action: "DELETE_RECORDS" | "CRYPTO_SHRED";
  slaDays: number;
  dueBy: string;
  argument: string;
}

/** The plan as recorded: canonical JSON of this, with the plan's id. */
export interface ErasurePlanDocument {
  id: string;
  keyHash: string;
  kThreshold: number;
  createdAt: string;
  roots: ErasureRoot[];
  actions: ErasureAction[];
  tombstone: { action: "INSERT_TOMBSTONE"; list: string; keyHash: string };
}

/** The format an erasure plan's signature names (its JWS `cty`). */
export const ERASURE_PLAN_FORMAT = "provgraph-erasure-plan/1";

export interface ErasurePlanRecord extends ErasurePlanDocument {
  createdBy: string;
  tokenId: string | null;
  execution: { executedBy: string; tokenId: string | null; executedAt: Date } | null;
  /** The plan document as recorded (canonical JSON): what `signature` signs. */
  text: string;
  /** The server's signature of `text` (null when no signing key is configured). */
  signature: DocumentSignature | null;
}

/**
 * Erasure plans (seed "GDPR erasure"): the forward closure from every artifact holding a subject,
 * one action per derived artifact with its SLA, and the tombstone step; recorded when planned, and
 * when executed the tombstone — the subject key's keyed hash — goes on the suppression list, after
 * which recording or ingesting that subject is refused (SUBJECT_SUPPRESSED). The subject key itself
 * is hashed on arrival and never stored or logged.
 */
export class Erasure {
  constructor(
    private readonly database: Database,
    private readonly commits: CommitPath,
    private readonly catalogue: Catalogue,
    private readonly keys: SubjectKeys,
    private readonly signer: DocumentSigner,
  ) {}

  async plan(subjectKey: string, kThreshold: number, actor: Actor, beforeCommit?: BeforeCommit): Promise<ErasurePlanRecord> {
    checkSubjectKey(subjectKey);
    if (!Number.isInteger(kThreshold) || kThreshold < 1 || kThreshold > 1_000_000_000) throw new InvalidArgumentError("kThreshold", `must be a whole number from 1 to 1,000,000,000, got ${kThreshold}`);
    const keyHash = this.keys.hash(subjectKey, { field: "subjectKey" });
    // Declarations recorded before keys were normalised are under the hash of the key as given then.
    const hashes = [keyHash, ...this.keys.legacyHashes(subjectKey, { field: "subjectKey" })];
    const db = this.database.primaryReader;
    // bounded: one key's hash and its few earlier forms
    const declared = [...new Set((await db.subjectDeclaration.findMany({ where: { keyHash: { in: hashes } }, select: { artifactId: true } })).map((d) => d.artifactId))];
    const holders = await this.catalogue.subjectHolders();
    const roots = [...new Set([...declared, ...holders])].sort();

    const { sql, params } = erasureClosureStatement(this.database.provider, roots, ERASURE_WALK_BUDGET);
    const rows = await db.$queryRawUnsafe<{ row: string; id: string | null; otherId: string | null; n: number | bigint | null }[]>(sql, ...params);
    if (Number(rows.find((r) => r.row === "meta")?.n ?? 0) >= ERASURE_WALK_BUDGET) throw new ErasurePlanTooLargeError(ERASURE_WALK_BUDGET);
    const depth = depthsFrom(roots, rows.filter((r) => r.row === "edge").map((r) => [r.id!, r.otherId!] as const));
    const derived = rows.filter((r) => r.row === "node" && !roots.includes(r.id!)).map((r) => r.id!);
    derived.sort((a, b) => (depth.get(a) ?? 0) - (depth.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));

    const createdAt = new Date();
    const dueBy = new Date(createdAt.getTime() + ERASURE_SLA_DAYS * 86_400_000).toISOString();
    const facts = await this.catalogue.factsOf([...roots, ...derived]);
    const factsOf = new Map([...roots, ...derived].map((id, i) => [id, facts[i]]));
    const declaredSet = new Set(declared);
    const holderSet = new Set(holders);
    const id = newErasurePlanId();
    const document: ErasurePlanDocument = {
      id,
      keyHash,
      kThreshold,
      createdAt: createdAt.toISOString(),
      roots: roots.map((artifactId) => {
        const f = factsOf.get(artifactId) ?? null;
        const locked = f !== null && (f.immutable || f.objectLock);
        return {
          artifactId,
          holds: [...(declaredSet.has(artifactId) ? ["DECLARED_SUBJECT" as const] : []), ...(holderSet.has(artifactId) ? ["HOLDS_SUBJECT_DATA" as const] : [])],
          action: locked ? "CRYPTO_SHRED" : "DELETE_RECORDS",
          slaDays: ERASURE_SLA_DAYS,
          dueBy,
          argument: locked
            ? `holds the subject's records in an immutable store (${f!.immutable ? "immutable" : "object lock"}): destroy the subject's data key`
            : "holds the subject's records: delete them here",
        };
      }),
      actions: derived.map((artifactId) => ({ artifactId, depth: depth.get(artifactId) ?? 0, ...decide(factsOf.get(artifactId) ?? null, kThreshold), slaDays: ERASURE_SLA_DAYS, dueBy, kThreshold })),
      tombstone: { action: "INSERT_TOMBSTONE", list: SUPPRESSION_LIST, keyHash },
    };
    const text = canonicalJson(document);
    return this.commits.run(async (tx) => {
      await insertRows(tx, "ErasurePlan", ["id", "keyHash", "kThreshold", "plan", "createdBy", "tokenId", "createdAt"], [[id, keyHash, kThreshold, text, actor.name, actor.tokenId, createdAt]]);
      if (beforeCommit) await beforeCommit(tx);
      return { ...document, createdBy: actor.name, tokenId: actor.tokenId, execution: null, text, signature: this.signer.sign(text, ERASURE_PLAN_FORMAT) };
    });
  }

  /** Records the plan as executed and puts its tombstone on the suppression list (once: ERASURE_ALREADY_EXECUTED after). */
  async execute(planId: string, actor: Actor, beforeCommit?: BeforeCommit): Promise<ErasurePlanRecord> {
    const plan = await this.get(planId, "planId");
    if (plan.execution) throw new ErasureAlreadyExecutedError(planId, plan.execution.executedAt);
    const executedAt = new Date();
    return this.commits.run(async (tx) => {
      // A concurrent execution of the same plan finds the row taken, and refuses.
      const [inserted] = await insertRows(tx, "ErasureExecution", ["planId", "executedBy", "tokenId", "executedAt"], [[planId, actor.name, actor.tokenId, executedAt]], { ignoreConflicts: true, returning: "planId" });
      if (inserted === undefined) throw new ErasureAlreadyExecutedError(planId, (await tx.erasureExecution.findUniqueOrThrow({ where: { planId } })).executedAt);
      await insertRows(tx, "SubjectTombstone", ["keyHash", "planId", "createdAt"], [[plan.keyHash, planId, executedAt]], { ignoreConflicts: true });
      if (beforeCommit) await beforeCommit(tx);
      return { ...plan, execution: { executedBy: actor.name, tokenId: actor.tokenId, executedAt } };
    });
  }

  async get(planId: string, field = "id"): Promise<ErasurePlanRecord> {
    if (!isIdOfKind(planId, "erasurePlan")) throw new InvalidIdError(field, planId, "erasure plan (erp_…)");
    const [plan] = await this.read([planId as ErasurePlanId]);
    if (!plan) throw new NotFoundError("erasure plan", planId, field);
    return plan;
  }

  /** Plans, newest first ("after" a cursor means older). */
  async list(page: KeysetPage<string>): Promise<ErasurePlanRecord[]> {
    const range: { lt?: string; gt?: string } = {};
    if (page.after !== undefined) range.lt = page.after;
    if (page.before !== undefined) range.gt = page.before;
    const rows = await this.database.primaryReader.erasurePlan.findMany({
      where: page.after !== undefined || page.before !== undefined ? { id: range } : {},
      orderBy: { id: page.inverted ? "asc" : "desc" },
      take: page.limit,
      select: { id: true },
    });
    return (await this.read(rows.map((r) => r.id as ErasurePlanId))).filter((p): p is ErasurePlanRecord => p !== null);
  }

  private async read(ids: readonly ErasurePlanId[]): Promise<(ErasurePlanRecord | null)[]> {
    const db = this.database.primaryReader;
    const [plans, executions] = await Promise.all([
      inChunks(ids, (chunk) => db.erasurePlan.findMany({ where: { id: { in: chunk } } })),
      inChunks(ids, (chunk) => db.erasureExecution.findMany({ where: { planId: { in: chunk } } })),
    ]);
    const byId = new Map(plans.map((p) => [p.id, p]));
    const executed = new Map(executions.map((e) => [e.planId, e]));
    return ids.map((id) => {
      const row = byId.get(id);
      if (!row) return null;
      const e = executed.get(id);
      return {
        ...(JSON.parse(row.plan) as ErasurePlanDocument),
        createdBy: row.createdBy,
        tokenId: row.tokenId,
        execution: e ? { executedBy: e.executedBy, tokenId: e.tokenId, executedAt: e.executedAt } : null,
        text: row.plan,
        signature: this.signer.sign(row.plan, ERASURE_PLAN_FORMAT),
      };
    });
  }
}

/** The seed's classification, in its order: immutable first, then rebuildable, then an aggregate above k with no unique quasi-identifier combination. */
function decide(facts: CatalogueFactRecord | null, k: number): Pick<ErasureAction, "action" | "argument" | "minGroupSize" | "uniqueQuasiIdentifierCombinations" | "factsId"> {
  const numbers = { minGroupSize: facts?.aggregate?.minGroupSize ?? null, uniqueQuasiIdentifierCombinations: facts?.aggregate?.uniqueQuasiIdentifierCombinations ?? null, factsId: facts?.id ?? null };
  if (!facts) return { action: "ESCALATE", argument: "nothing is catalogued about it (immutable, rebuildable, aggregate): decide at DPO level", ...numbers };
  if (facts.immutable || facts.objectLock) {
    return { action: "CRYPTO_SHRED", argument: `immutable store (${facts.immutable ? "immutable" : "object lock"}): rewriting is impossible; destroy the subject's data key so the ciphertext is unreachable`, ...numbers };
  }
  if (facts.rebuildableFromSource) return { action: "REBUILD", argument: "rebuildable from source: delete it and re-materialise it once the subject's records are erased upstream", ...numbers };
  const what = facts.note ? ` (${facts.note})` : "";
  if (facts.aggregate) {
    const { minGroupSize, uniqueQuasiIdentifierCombinations } = facts.aggregate;
    if (minGroupSize >= k && uniqueQuasiIdentifierCombinations === 0) {
      return { action: "AGGREGATE_OK", argument: `aggregate: minimum group size ${minGroupSize} ≥ k = ${k} and no unique quasi-identifier combination (0): argued non-personal`, ...numbers };
    }
    const why = minGroupSize < k ? `minimum group size ${minGroupSize} < k = ${k}` : `${uniqueQuasiIdentifierCombinations} unique quasi-identifier combination(s)`;
    return { action: "ESCALATE", argument: `aggregate that cannot be argued non-personal: ${why}${what}: decide at DPO level`, ...numbers };
  }
  return { action: "ESCALATE", argument: `irreversible but personal${what || " (embeddings, model weights, feature-store statistics)"}: decide at DPO level, usually retrain`, ...numbers };
}

/** Breadth first from every root at once: each artifact's fewest hops from a root. */
function depthsFrom(roots: readonly string[], edges: readonly (readonly [string, string])[]): Map<string, number> {
  const out = new Map<string, string[]>();
  for (const [s, t] of edges) appendTo(out, s, t);
  const depth = new Map(roots.map((r) => [r, 0]));
  let frontier = [...roots];
  for (let d = 1; frontier.length > 0; d++) {
    const next: string[] = [];
    for (const node of frontier) for (const t of out.get(node) ?? []) if (!depth.has(t)) depth.set(t, d), next.push(t);
    frontier = next;
  }
  return depth;
}

/** The key itself is never quoted: what is wrong with it is said without it. */
function checkSubjectKey(key: string): void {
  if (key.trim() === "") throw new InvalidArgumentError("subjectKey", "must not be empty");
  if (key.length > 1_024) throw new InvalidArgumentError("subjectKey", "is longer than 1024 characters");
  const unsafe = unsafeTextReason(key);
  if (unsafe) throw new InvalidArgumentError("subjectKey", unsafe);
}

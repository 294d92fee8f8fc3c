import { inChunks, orChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { InvalidArgumentError } from "../errors";
import type { CommitPath } from "../recording";
import { insertRows } from "../recording";
import { unsafeNameReason, unsafeTextReason } from "../safe-text";
import type { BeforeCommit } from "./policy-tag-service";
import { type Actor, MAX_REASON_LENGTH } from "./tag-records";

/** What the catalogue facts are about: one artifact, or a dataset (every version, present and future). */
export type CatalogueTarget = { kind: "ARTIFACT"; artifactId: string } | { kind: "DATASET"; namespace: string; name: string };

/** What erasure plans classify a derived artifact by (seed "Four classes of derived artefact"). */
export interface CatalogueFacts {
  /** WORM, tape, 90-day backups: rewriting is physically impossible. */
  immutable: boolean;
  /** Object lock (S3 and the like): as immutable for erasure. */
  objectLock: boolean;
  /** Delete and re-materialise is possible (an idempotent pipeline rebuilds it from its sources). */
  rebuildableFromSource: boolean;
  /** An aggregate, with the numbers its non-personal argument rests on; null = not an aggregate. */
  aggregate: { minGroupSize: number; uniqueQuasiIdentifierCombinations: number; quasiIdentifiers: string[] } | null;
  /** It holds data subjects' records: every erasure plan starts from it. */
  holdsSubjectData: boolean;
  /** What it is (an embedding index, model weights, a feature store, …). */
  note: string | null;
}

export interface CatalogueFactRecord extends CatalogueFacts {
  id: number;
  target: CatalogueTarget;
  reason: string | null;
  recordedBy: string;
  tokenId: string | null;
  createdAt: Date;
}

type FactRow = Awaited<ReturnType<Db["catalogueFact"]["findFirstOrThrow"]>>;

function recordOf(row: FactRow): CatalogueFactRecord {
  return {
    id: row.id,
    target: row.targetKind === "ARTIFACT" ? { kind: "ARTIFACT", artifactId: row.artifactId! } : { kind: "DATASET", namespace: row.namespace!, name: row.name! },
    immutable: row.immutable,
    objectLock: row.objectLock,
    rebuildableFromSource: row.rebuildableFromSource,
    aggregate: row.aggregate ? { minGroupSize: row.minGroupSize ?? 0, uniqueQuasiIdentifierCombinations: row.uniqueQuasiIdentifierCombinations ?? 0, quasiIdentifiers: row.quasiIdentifiers ? (JSON.parse(row.quasiIdentifiers) as string[]) : [] } : null,
    holdsSubjectData: row.holdsSubjectData,
    note: row.note,
    reason: row.reason,
    recordedBy: row.recordedBy,
    tokenId: row.tokenId,
    createdAt: row.createdAt,
  };
}

/**
 * Catalogue facts by admin mutation: appended (history kept), the newest for a target applies. An
 * artifact's facts are its own newest, else its dataset's newest.
 */
export class Catalogue {
  constructor(
    private readonly db: Db,
    private readonly commits: CommitPath,
  ) {}

  async record(target: CatalogueTarget, facts: CatalogueFacts, reason: string | null, actor: Actor, beforeCommit?: BeforeCommit): Promise<CatalogueFactRecord> {
    checkTarget(target);
    checkFacts(facts, reason);
    return this.commits.run(async (tx) => {
      const [id] = await insertRows(
        tx,
        "CatalogueFact",
        ["targetKind", "artifactId", "namespace", "name", "immutable", "objectLock", "rebuildableFromSource", "aggregate", "minGroupSize", "uniqueQuasiIdentifierCombinations", "quasiIdentifiers", "holdsSubjectData", "note", "reason", "recordedBy", "tokenId", "createdAt"],
        [
          [
            target.kind,
            target.kind === "ARTIFACT" ? target.artifactId : null,
            target.kind === "DATASET" ? target.namespace : null,
            target.kind === "DATASET" ? target.name : null,
            facts.immutable,
            facts.objectLock,
            facts.rebuildableFromSource,
            facts.aggregate !== null,
            facts.aggregate?.minGroupSize ?? null,
            facts.aggregate?.uniqueQuasiIdentifierCombinations ?? null,
            facts.aggregate ? JSON.stringify(facts.aggregate.quasiIdentifiers) : null,
            facts.holdsSubjectData,
            facts.note,
            reason,
            actor.name,
            actor.tokenId,
            new Date(),
          ],
        ],
        { returning: "id" },
      );
      if (beforeCommit) await beforeCommit(tx);
      return recordOf(await tx.catalogueFact.findUniqueOrThrow({ where: { id: Number(id) } }));
    });
  }

  /** For each artifact, the facts that apply: its own newest, else its dataset's newest, else null. */
  async factsOf(artifactIds: readonly string[]): Promise<(CatalogueFactRecord | null)[]> {
    const ids = [...new Set(artifactIds)];
    if (ids.length === 0) return [];
    const artifacts = await inChunks(ids, (chunk) => this.db.artifact.findMany({ where: { id: { in: chunk } }, select: { id: true, datasetNamespace: true, datasetName: true } }));
    const datasets = new Map(artifacts.filter((a) => a.datasetNamespace !== null && a.datasetName !== null).map((a) => [`${a.datasetNamespace}\u0000${a.datasetName}`, { namespace: a.datasetNamespace!, name: a.datasetName! }]));
    const own = await inChunks(ids, (chunk) => this.db.catalogueFact.findMany({ where: { targetKind: "ARTIFACT", artifactId: { in: chunk } } }));
    const ofDatasets = await orChunks(datasets.values(), (chunk) => this.db.catalogueFact.findMany({ where: { targetKind: "DATASET", OR: chunk.map((d) => ({ namespace: d.namespace, name: d.name })) } }));
    const rows = [...own, ...ofDatasets].sort((a, b) => a.id - b.id);
    const newest = new Map<string, FactRow>();
    for (const row of rows) newest.set(row.targetKind === "ARTIFACT" ? `a\u0000${row.artifactId}` : `d\u0000${row.namespace}\u0000${row.name}`, row);
    const byId = new Map(artifacts.map((a) => [a.id, a]));
    return artifactIds.map((id) => {
      const a = byId.get(id);
      const row = newest.get(`a\u0000${id}`) ?? (a?.datasetNamespace != null ? newest.get(`d\u0000${a.datasetNamespace}\u0000${a.datasetName}`) : undefined);
      return row ? recordOf(row) : null;
    });
  }

  /** Every artifact whose applying facts say it holds subject data. */
  async subjectHolders(): Promise<string[]> {
    const rows = await this.db.catalogueFact.findMany({ orderBy: { id: "asc" } });
    const newest = new Map<string, FactRow>();
    for (const row of rows) newest.set(row.targetKind === "ARTIFACT" ? `a\u0000${row.artifactId}` : `d\u0000${row.namespace}\u0000${row.name}`, row);
    const holding = [...newest.values()].filter((r) => r.holdsSubjectData);
    const datasets = holding.filter((r) => r.targetKind === "DATASET");
    const versions =
      datasets.length === 0 ? [] : await orChunks(datasets, (chunk) => this.db.artifact.findMany({ where: { OR: chunk.map((d) => ({ datasetNamespace: d.namespace!, datasetName: d.name! })) }, select: { id: true } }));
    const candidates = [...new Set([...holding.filter((r) => r.targetKind === "ARTIFACT").map((r) => r.artifactId!), ...versions.map((v) => v.id)])];
    // An artifact's own facts override its dataset's.
    const facts = await this.factsOf(candidates);
    return candidates.filter((_, i) => facts[i]?.holdsSubjectData === true).sort();
  }
}

/** A dataset is named as recording names one: safe text, at most MAX_NAME_BYTES (its namespace and name key an index). */
function checkTarget(target: CatalogueTarget): void {
  if (target.kind !== "DATASET") return;
  for (const [field, value] of [["namespace", target.namespace], ["name", target.name]] as const) {
    const unsafe = unsafeNameReason(value);
    if (unsafe) throw new InvalidArgumentError(field, unsafe);
  }
}

function checkFacts(facts: CatalogueFacts, reason: string | null): void {
  if (facts.aggregate) {
    const { minGroupSize, uniqueQuasiIdentifierCombinations, quasiIdentifiers } = facts.aggregate;
    if (!Number.isInteger(minGroupSize) || minGroupSize < 1) throw new InvalidArgumentError("aggregate.minGroupSize", `must be a whole number ≥ 1, got ${minGroupSize}`);
    if (!Number.isInteger(uniqueQuasiIdentifierCombinations) || uniqueQuasiIdentifierCombinations < 0) {
      throw new InvalidArgumentError("aggregate.uniqueQuasiIdentifierCombinations", `must be a whole number ≥ 0, got ${uniqueQuasiIdentifierCombinations}`);
    }
    quasiIdentifiers.forEach((q, i) => {
      const unsafe = unsafeTextReason(q);
      if (unsafe) throw new InvalidArgumentError(`aggregate.quasiIdentifiers[${i}]`, unsafe);
    });
  }
  for (const [field, text] of [["note", facts.note], ["reason", reason]] as const) {
    if (text === null) continue;
    if (text.length > MAX_REASON_LENGTH) throw new InvalidArgumentError(field, `at most ${MAX_REASON_LENGTH} characters, got ${text.length}`);
    const unsafe = unsafeTextReason(text);
    if (unsafe) throw new InvalidArgumentError(field, unsafe);
  }
}

import type { Db } from "../../db/client";
import type { KeysetPage } from "../pagination";
import { assignmentOfRow, type PolicyTagAssignmentRecord, type PolicyTagHoldingRecord, type TagDowngradeRecord, type TagLevel, targetOfRow } from "./tag-records";

/** What a policy decision is about: a column's details, an artifact's metadata, an event that names runs or datasets. */
export type PolicySubject =
  | { kind: "COLUMN"; artifactId: string; field: string }
  | { kind: "ARTIFACT"; artifactId: string }
  | { kind: "RUN"; runId: string }
  | { kind: "DATASET"; namespace: string; name: string }
  /** Guarded by the tags of any of these (an OpenLineage event: its run and every dataset it names). */
  | { kind: "ANY"; of: readonly PolicySubject[] };

interface HoldingRow {
  nodeKind: string;
  artifactId: string;
  field: string;
  tag: string;
  originId: number;
  depth: number;
}

/** Reads of policy tags: what nodes hold (with their origins), the downgrades, the tags a policy subject carries. */
export class PolicyTagReader {
  constructor(private readonly db: Db) {}

  /**
   * For each column, the tags it holds: its own holdings, then those of its dataset version as a
   * whole and of its artifact, unless the column was downgraded for them. One tag once, nearest first.
   */
  async ofColumns(columns: readonly { artifactId: string; field: string }[]): Promise<PolicyTagHoldingRecord[][]> {
    const ids = [...new Set(columns.map((c) => c.artifactId))];
    if (ids.length === 0) return columns.map(() => []);
    const [holdings, downgrades] = await Promise.all([
      this.db.policyTagHolding.findMany({ where: { artifactId: { in: ids } } }),
      this.db.policyTagDowngrade.findMany({ where: { artifactId: { in: ids }, nodeKind: "COLUMN" }, select: { artifactId: true, field: true, tag: true } }),
    ]);
    const origins = await this.origins(holdings);
    const downgraded = new Set(downgrades.map((d) => JSON.stringify([d.artifactId, d.field, d.tag])));
    return columns.map((column) => {
      const own = holdings.filter((h) => h.nodeKind === "COLUMN" && h.artifactId === column.artifactId && h.field === column.field);
      const wider = holdings.filter((h) => h.nodeKind !== "COLUMN" && h.artifactId === column.artifactId && !downgraded.has(JSON.stringify([column.artifactId, column.field, h.tag])));
      return nearestPerTag([...own, ...wider], origins);
    });
  }

  /** For each artifact, the tags it holds as a whole (assigned to it, or inherited along wasDerivedFrom). */
  async ofArtifacts(ids: readonly string[]): Promise<PolicyTagHoldingRecord[][]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    const holdings = await this.db.policyTagHolding.findMany({ where: { nodeKind: "ARTIFACT", artifactId: { in: wanted } } });
    const origins = await this.origins(holdings);
    return ids.map((id) => nearestPerTag(holdings.filter((h) => h.artifactId === id), origins));
  }

  /**
   * For each subject, the tags that guard it: a column's (as ofColumns); an artifact's as a whole;
   * a run's: every tag held anywhere on the artifacts it used or produced (columns included); a
   * dataset's: every tag held anywhere on its versions. Sorted, distinct.
   */
  async tagsOf(requested: readonly PolicySubject[]): Promise<string[][]> {
    // ANY subjects are the union of their parts: look every part up with the rest, then merge.
    const parts = requested.map((s) => (s.kind === "ANY" ? s.of.filter((p) => p.kind !== "ANY") : [s]));
    const subjects = parts.flat();
    const flat = await this.tagsOfPlain(subjects);
    let next = 0;
    return parts.map((group) => [...new Set(group.flatMap(() => flat[next++]))].sort());
  }

  private async tagsOfPlain(subjects: readonly PolicySubject[]): Promise<string[][]> {
    const columns = subjects.flatMap((s) => (s.kind === "COLUMN" ? [s] : []));
    const artifacts = subjects.flatMap((s) => (s.kind === "ARTIFACT" ? [s.artifactId] : []));
    const runs = subjects.flatMap((s) => (s.kind === "RUN" ? [s.runId] : []));
    const datasets = subjects.flatMap((s) => (s.kind === "DATASET" ? [s] : []));
    const [columnTags, artifactTags, runArtifacts, datasetArtifacts] = await Promise.all([
      this.ofColumns(columns),
      this.ofArtifacts(artifacts),
      runs.length === 0 ? [] : this.db.executionArtifact.findMany({ where: { runId: { in: [...new Set(runs)] } }, select: { runId: true, artifactId: true } }),
      datasets.length === 0 ? [] : this.db.artifact.findMany({ where: { OR: datasets.map((d) => ({ datasetNamespace: d.namespace, datasetName: d.name })) }, select: { id: true, datasetNamespace: true, datasetName: true } }),
    ]);
    const reachedIds = [...new Set([...runArtifacts.map((l) => l.artifactId), ...datasetArtifacts.map((a) => a.id)])];
    const anywhere = reachedIds.length === 0 ? [] : await this.db.policyTagHolding.findMany({ where: { artifactId: { in: reachedIds } }, select: { artifactId: true, tag: true }, distinct: ["artifactId", "tag"] });
    const tagsOfArtifact = new Map<string, Set<string>>();
    for (const h of anywhere) tagsOfArtifact.set(h.artifactId, (tagsOfArtifact.get(h.artifactId) ?? new Set()).add(h.tag));
    const union = (ids: readonly string[]) => [...new Set(ids.flatMap((id) => [...(tagsOfArtifact.get(id) ?? [])]))].sort();
    let c = 0;
    let a = 0;
    return subjects.map((s) => {
      switch (s.kind) {
        case "COLUMN":
          return [...new Set(columnTags[c++].map((h) => h.tag))].sort();
        case "ARTIFACT":
          return [...new Set(artifactTags[a++].map((h) => h.tag))].sort();
        case "RUN":
          return union(runArtifacts.filter((l) => l.runId === s.runId).map((l) => l.artifactId));
        case "DATASET":
          return union(datasetArtifacts.filter((d) => d.datasetNamespace === s.namespace && d.datasetName === s.name).map((d) => d.id));
        case "ANY":
          return [];
      }
    });
  }

  /** How many nodes hold a tag through this assignment (the node itself included). */
  async holdersOf(assignmentId: number): Promise<number> {
    return this.db.policyTagHolding.count({ where: { originId: assignmentId } });
  }

  /** Downgrades, newest first ("after" a cursor means older), optionally of one tag. */
  async downgrades(page: KeysetPage<number>, tag?: string | null): Promise<TagDowngradeRecord[]> {
    const range: { lt?: number; gt?: number } = {};
    if (page.after !== undefined) range.lt = page.after;
    if (page.before !== undefined) range.gt = page.before;
    const rows = await this.db.policyTagDowngrade.findMany({
      where: { ...(tag != null ? { tag } : {}), ...(page.after !== undefined || page.before !== undefined ? { id: range } : {}) },
      orderBy: { id: page.inverted ? "asc" : "desc" },
      take: page.limit,
    });
    const origins = new Map((await this.db.policyTagAssignment.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.originId))] } } })).map((o) => [o.id, assignmentOfRow(o)]));
    return rows.map((r) => ({
      id: r.id,
      target: targetOfRow(r),
      tag: r.tag,
      reason: r.reason,
      downgradedBy: r.downgradedBy,
      tokenId: r.tokenId,
      origin: origins.get(r.originId) ?? null,
      depth: r.depth,
      createdAt: r.createdAt,
    }));
  }

  private async origins(holdings: readonly HoldingRow[]): Promise<Map<number, PolicyTagAssignmentRecord>> {
    const ids = [...new Set(holdings.map((h) => h.originId))];
    if (ids.length === 0) return new Map();
    return new Map((await this.db.policyTagAssignment.findMany({ where: { id: { in: ids } } })).map((o) => [o.id, assignmentOfRow(o)]));
  }
}

/** One holding per tag: the nearest (then the oldest origin, then the narrowest level), sorted by tag. */
function nearestPerTag(holdings: readonly HoldingRow[], origins: Map<number, PolicyTagAssignmentRecord>): PolicyTagHoldingRecord[] {
  const rank: Record<string, number> = { COLUMN: 0, VERSION: 1, ARTIFACT: 2 };
  const best = new Map<string, HoldingRow>();
  for (const h of holdings) {
    const current = best.get(h.tag);
    if (!current || h.depth < current.depth || (h.depth === current.depth && (h.originId < current.originId || (h.originId === current.originId && rank[h.nodeKind] < rank[current.nodeKind])))) best.set(h.tag, h);
  }
  return [...best.values()]
    .sort((x, y) => (x.tag < y.tag ? -1 : x.tag > y.tag ? 1 : 0))
    .flatMap((h) => {
      const origin = origins.get(h.originId);
      return origin ? [{ tag: h.tag, level: h.nodeKind as TagLevel, depth: h.depth, origin }] : [];
    });
}

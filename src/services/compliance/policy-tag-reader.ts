import DataLoader from "dataloader";
import { inChunks, orChunks } from "../../db/chunked-lists";
import type { Database, Db } from "../../db/client";
import { jsonListSelect, jsonParameter } from "../../db/json-list";
import { storedBoolean } from "../../db/rows-by-id";
import type { DatabaseProvider } from "../../db/database-url";
import type { Statement } from "../../db/sql-statement";
import type { KeysetPage } from "../pagination";
import { assignmentOfRow, nodeTargetOfRow, type PolicyTagAssignmentRecord, type PolicyTagHoldingRecord, type TagDowngradeRecord, type TagLevel } from "./tag-records";

/** What a policy decision is about: a column's details, an artifact's metadata, an event that names runs or datasets. */
export type PolicySubject =
  | { kind: "COLUMN"; artifactId: string; field: string }
  | { kind: "ARTIFACT"; artifactId: string }
  | { kind: "RUN"; runId: string }
  | { kind: "DATASET"; namespace: string; name: string }
  /** Guarded by the tags of any of these (an OpenLineage event: its run and every dataset it names). */
  | { kind: "ANY"; of: readonly PolicySubject[] };

/** Runs one statement asks about (their ids are bound values). */
const RUNS_PER_STATEMENT = 1_000;

interface HoldingRow {
  nodeKind: string;
  artifactId: string;
  field: string;
  tag: string;
  originId: number;
  depth: number;
  opaque: boolean;
}

/** Reads of policy tags: what nodes hold (with their origins), the downgrades, the tags a policy subject carries. */
export class PolicyTagReader {
  constructor(
    private readonly db: Db,
    private readonly provider: DatabaseProvider,
    /** The same read connection, one statement answered as arrays of values (Database.readRows). */
    private readonly rows: Pick<Database, "readRows">,
  ) {}

  /**
   * For each column, the tags it holds: its own holdings, then those of its dataset version as a
   * whole and of its artifact, unless the column was downgraded for them. One tag once, nearest first.
   */
  async ofColumns(columns: readonly { artifactId: string; field: string }[]): Promise<PolicyTagHoldingRecord[][]> {
    const ids = [...new Set(columns.map((c) => c.artifactId))];
    if (ids.length === 0) return columns.map(() => []);
    const [holdings, downgrades] = await Promise.all([
      inChunks(ids, (chunk) => this.db.policyTagHolding.findMany({ where: { artifactId: { in: chunk } } })),
      inChunks(ids, (chunk) => this.db.policyTagDowngrade.findMany({ where: { artifactId: { in: chunk }, nodeKind: "COLUMN" }, select: { artifactId: true, field: true, tag: true } })),
    ]);
    const origins = await this.origins(holdings);
    const downgraded = new Set(downgrades.map((d) => JSON.stringify([d.artifactId, d.field, d.tag])));
    return columns.map((column) => {
      const own = holdings.filter((h) => h.nodeKind === "COLUMN" && h.artifactId === column.artifactId && h.field === column.field);
      const wider = holdings.filter((h) => h.nodeKind !== "COLUMN" && h.artifactId === column.artifactId && !downgraded.has(JSON.stringify([column.artifactId, column.field, h.tag])));
      return nearestPerTag([...own, ...wider], origins);
    });
  }

  /**
   * For each column, the names of the tags it holds, as ofColumns decides them, without their
   * origins: what redaction asks on every read of a guarded column, so one statement straight to
   * the driver (columnTagNamesStatement: the holdings and the column downgrades of the artifacts at
   * once), whether the columns hold tags or not. Sorted.
   */
  private async tagNamesOfColumns(columns: readonly { artifactId: string; field: string }[]): Promise<string[][]> {
    const ids = [...new Set(columns.map((c) => c.artifactId))];
    if (ids.length === 0) return columns.map(() => []);
    const { sql, params } = columnTagNamesStatement(this.provider, ids);
    const { rows } = await this.rows.readRows(sql, params);
    if (rows.length === 0) return columns.map(() => []);
    const holdings: { nodeKind: string; artifactId: string; field: string; tag: string }[] = [];
    const downgraded = new Set<string>();
    for (const [row, nodeKind, artifactId, field, tag] of rows as [string, string, string, string, string][]) {
      if (row === "D") downgraded.add(JSON.stringify([artifactId, field, tag]));
      else holdings.push({ nodeKind, artifactId, field, tag });
    }
    return columns.map((column) => {
      const tags = new Set<string>();
      for (const h of holdings) {
        if (h.artifactId !== column.artifactId) continue;
        if (h.nodeKind === "COLUMN" ? h.field === column.field : !downgraded.has(JSON.stringify([column.artifactId, column.field, h.tag]))) tags.add(h.tag);
      }
      return [...tags].sort();
    });
  }

  /** For each artifact, the tags it holds as a whole (assigned to it, or inherited along wasDerivedFrom). */
  async ofArtifacts(ids: readonly string[]): Promise<PolicyTagHoldingRecord[][]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    // Asked on every read of an artifact's tags and of whether it is redacted: one statement straight
    // to the read connection (the holding key leads with its kind), past Prisma's query pipeline.
    const placeholder = this.provider === "sqlite" ? "?" : "$1";
    const { rows } = await this.rows.readRows(
      `SELECT "nodeKind", "artifactId", "field", "tag", "originId", "depth", "opaque" FROM "PolicyTagHolding" WHERE "nodeKind" = 'ARTIFACT' AND "artifactId" IN (${jsonListSelect(this.provider, placeholder, wanted.length)})`,
      [jsonParameter(wanted)],
    );
    const holdings: HoldingRow[] = rows.map(([nodeKind, artifactId, field, tag, originId, depth, opaque]) => ({
      nodeKind: String(nodeKind),
      artifactId: String(artifactId),
      field: String(field),
      tag: String(tag),
      originId: Number(originId),
      depth: Number(depth),
      opaque: storedBoolean(opaque) ?? false,
    }));
    const origins = await this.origins(holdings);
    return ids.map((id) => nearestPerTag(holdings.filter((h) => h.artifactId === id), origins));
  }

  /**
   * For each subject, the tags that guard it: a column's (as ofColumns); an artifact's as a whole;
   * a run's: every tag held anywhere on the artifacts it used or produced (columns included); a
   * dataset's: every tag held anywhere on its versions. Sorted, distinct.
   */
  /**
   * One subject's tags (tagsOf), the lookups made in the same tick batched into one tagsOf and
   * cached for the lookup's lifetime (DataLoader): one per request, as GraphQL's context and the
   * evidence route each hold one — a package of 10,000 runs is then a few statements, not 10,000.
   */
  batchedTagsOf(): (subject: PolicySubject) => Promise<string[]> {
    const loader = new DataLoader<PolicySubject, string[], string>((subjects) => this.tagsOf(subjects), { cacheKeyFn: (subject) => JSON.stringify(subject) });
    return (subject) => loader.load(subject);
  }

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
    const [columnTags, artifactTags, runTags, datasetArtifacts] = await Promise.all([
      this.tagNamesOfColumns(columns),
      this.ofArtifacts(artifacts),
      this.ofRuns([...new Set(runs)]),
      datasets.length === 0
        ? []
        : orChunks(datasets, (chunk) => this.db.artifact.findMany({ where: { OR: chunk.map((d) => ({ datasetNamespace: d.namespace, datasetName: d.name })) }, select: { id: true, datasetNamespace: true, datasetName: true } })),
    ]);
    const reachedIds = [...new Set(datasetArtifacts.map((a) => a.id))];
    const anywhere = reachedIds.length === 0 ? [] : await inChunks(reachedIds, (chunk) => this.db.policyTagHolding.findMany({ where: { artifactId: { in: chunk } }, select: { artifactId: true, tag: true }, distinct: ["artifactId", "tag"] }));
    const tagsOfArtifact = new Map<string, Set<string>>();
    for (const h of anywhere) tagsOfArtifact.set(h.artifactId, (tagsOfArtifact.get(h.artifactId) ?? new Set()).add(h.tag));
    const union = (ids: readonly string[]) => [...new Set(ids.flatMap((id) => [...(tagsOfArtifact.get(id) ?? [])]))].sort();
    let c = 0;
    let a = 0;
    return subjects.map((s) => {
      switch (s.kind) {
        case "COLUMN":
          return columnTags[c++];
        case "ARTIFACT":
          return [...new Set(artifactTags[a++].map((h) => h.tag))].sort();
        case "RUN":
          return [...(runTags.get(s.runId) ?? [])].sort();
        case "DATASET":
          return union(datasetArtifacts.filter((d) => d.datasetNamespace === s.namespace && d.datasetName === s.name).map((d) => d.id));
        case "ANY":
          return [];
      }
    });
  }

  /**
   * For each run, every tag held anywhere (columns, versions, the artifact) on what it used or
   * produced: one statement, joined in the database, so a run of 20,000 outputs costs no list of
   * 20,000 ids. The holding key leads with its kind, so naming the kinds lets the join use it.
   */
  private async ofRuns(runIds: readonly string[]): Promise<Map<string, Set<string>>> {
    const tags = new Map<string, Set<string>>();
    // At most RUNS_PER_STATEMENT bound values a statement, whatever the number of runs asked about.
    for (let from = 0; from < runIds.length; from += RUNS_PER_STATEMENT) {
      const chunk = runIds.slice(from, from + RUNS_PER_STATEMENT);
      const placeholders = chunk.map((_, i) => (this.provider === "sqlite" ? "?" : `$${i + 1}`)).join(", ");
      // bounded: RUNS_PER_STATEMENT values (the loop's chunk); straight to the read connection, as arrays
      const { rows } = await this.rows.readRows(
        `SELECT DISTINCT l."runId" AS "runId", h.tag AS tag FROM "ExecutionArtifact" l JOIN "PolicyTagHolding" h ON h."nodeKind" IN ('COLUMN', 'VERSION', 'ARTIFACT') AND h."artifactId" = l."artifactId" WHERE l."runId" IN (${placeholders})`,
        chunk,
      );
      for (const [runId, tag] of rows as [string, string][]) tags.set(runId, (tags.get(runId) ?? new Set()).add(tag));
    }
    return tags;
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
    const origins = new Map((await inChunks(new Set(rows.map((r) => r.originId)), (chunk) => this.db.policyTagAssignment.findMany({ where: { id: { in: chunk } } }))).map((o) => [o.id, assignmentOfRow(o)]));
    return rows.map((r) => ({
      id: r.id,
      target: nodeTargetOfRow(r),
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
    return new Map((await inChunks(ids, (chunk) => this.db.policyTagAssignment.findMany({ where: { id: { in: chunk } } }))).map((o) => [o.id, assignmentOfRow(o)]));
  }
}

/** One holding per tag: the nearest (then the oldest origin, then not through an opaque step, then the narrowest level), sorted by tag. */
function nearestPerTag(holdings: readonly HoldingRow[], origins: Map<number, PolicyTagAssignmentRecord>): PolicyTagHoldingRecord[] {
  const rank: Record<string, number> = { COLUMN: 0, VERSION: 1, ARTIFACT: 2 };
  const order = (h: HoldingRow) => [h.depth, h.originId, h.opaque ? 1 : 0, rank[h.nodeKind]];
  const before = (a: HoldingRow, b: HoldingRow) => {
    const [x, y] = [order(a), order(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i];
    return false;
  };
  const best = new Map<string, HoldingRow>();
  for (const h of holdings) {
    const current = best.get(h.tag);
    if (!current || before(h, current)) best.set(h.tag, h);
  }
  return [...best.values()]
    .sort((x, y) => (x.tag < y.tag ? -1 : x.tag > y.tag ? 1 : 0))
    .flatMap((h) => {
      const origin = origins.get(h.originId);
      return origin ? [{ tag: h.tag, level: h.nodeKind as TagLevel, depth: h.depth, throughOpaqueStep: h.opaque, origin }] : [];
    });
}

/**
 * The policy tags of the artifacts `ids` (rows 'H': kind, artifact, field, tag) and the tags their
 * columns were downgraded from (rows 'D'), in one statement; the ids bound as one JSON array (on
 * SQLite once per part). The holding key leads with its kind, so naming the kinds lets each id use it.
 */
export function columnTagNamesStatement(provider: DatabaseProvider, ids: readonly string[]): Statement {
  const json = JSON.stringify(ids);
  // SQLite: each part binds the list; PostgreSQL: both name $1.
  const [first, second] = provider === "sqlite" ? ["?", "?"] : ["$1", "$1"];
  return {
    sql:
      `SELECT 'H' AS "row", h."nodeKind", h."artifactId", h.field, h.tag FROM "PolicyTagHolding" h WHERE h."nodeKind" IN ('COLUMN', 'VERSION', 'ARTIFACT') AND h."artifactId" IN (${jsonListSelect(provider, first, ids.length)}) ` +
      `UNION ALL SELECT 'D', d."nodeKind", d."artifactId", d.field, d.tag FROM "PolicyTagDowngrade" d WHERE d."nodeKind" = 'COLUMN' AND d."artifactId" IN (${jsonListSelect(provider, second, ids.length)})`,
    params: provider === "sqlite" ? [json, json] : [json],
  };
}

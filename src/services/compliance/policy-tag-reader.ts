import DataLoader from "dataloader";
import { inChunks, orChunks } from "../../db/chunked-lists";
import type { Database, Db } from "../../db/client";
import { jsonListSelect, jsonParameter } from "../../db/json-list";
import { genericPlanSql } from "../../db/prepared-statements";
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

/** The kinds of node a tag is held by (PolicyTagHolding.nodeKind), which leads the holding key. */
const HOLDING_KINDS = ["COLUMN", "VERSION", "ARTIFACT"] as const;

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
    const { holdings, downgraded } = await this.columnHoldings(columns);
    const origins = await this.origins(holdings);
    return columns.map((column) => nearestPerTag(heldByColumn(holdings, downgraded, column), origins));
  }

  /**
   * For each column, the names of the tags it holds, as ofColumns decides them, without their
   * origins: what redaction asks on every read of a guarded column. Sorted.
   */
  private async tagNamesOfColumns(columns: readonly { artifactId: string; field: string }[]): Promise<string[][]> {
    const { holdings, downgraded } = await this.columnHoldings(columns);
    return columns.map((column) => [...new Set(heldByColumn(holdings, downgraded, column).map((h) => h.tag))].sort());
  }

  /**
   * The holdings of the columns' artifacts (of a column, of the version as a whole, of the artifact)
   * and the artifacts' column downgrades: one statement straight to the read connection
   * (columnHoldingsStatement), whether the columns hold tags or not, asked on every read of a column's
   * tags and of whether it is redacted.
   */
  private async columnHoldings(columns: readonly { artifactId: string }[]): Promise<{ holdings: HoldingRow[]; downgraded: Set<string> }> {
    const holdings: HoldingRow[] = [];
    const downgraded = new Set<string>();
    const ids = [...new Set(columns.map((c) => c.artifactId))];
    if (ids.length === 0) return { holdings, downgraded };
    const { sql, params } = columnHoldingsStatement(this.provider, ids);
    const { rows } = await this.rows.readRows(sql, params);
    for (const row of rows) {
      if (row[0] === "D") downgraded.add(downgradeKey(String(row[2]), String(row[3]), String(row[4])));
      else holdings.push(holdingOfRow(row.slice(1)));
    }
    return { holdings, downgraded };
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
    const holdings = rows.map(holdingOfRow);
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
    // Every kind named: the holding key leads with it (without, each chunk scanned every holding of the store).
    const anywhere =
      reachedIds.length === 0
        ? []
        : await inChunks(reachedIds, (chunk) => this.db.policyTagHolding.findMany({ where: { nodeKind: { in: [...HOLDING_KINDS] }, artifactId: { in: chunk } }, select: { artifactId: true, tag: true }, distinct: ["artifactId", "tag"] }));
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
/**
 * The holdings of these artifacts, of every node kind (rows 'H': nodeKind, artifactId, field, tag,
 * originId, depth, opaque), and their column downgrades (rows 'D': nodeKind, artifactId, field, tag).
 * The holding key leads with its kind, so each kind is one range of it.
 */
export function columnHoldingsStatement(provider: DatabaseProvider, ids: readonly string[]): Statement {
  const json = JSON.stringify(ids);
  // SQLite: each part binds the list; PostgreSQL: both name $1.
  const [first, second] = provider === "sqlite" ? ["?", "?"] : ["$1", "$1"];
  return {
    // On PostgreSQL prepared, on one generic plan (two index lookups per id, whatever the ids): planned
    // for its values it was parsed and planned on every read, 0.3–0.5 ms, and between search's lanes,
    // which run on generic plans, it changed the connection's plan mode and back (db/plan-modes.ts).
    sql: genericPlanSql(
      provider,
      `SELECT 'H' AS "row", h."nodeKind", h."artifactId", h.field, h.tag, h."originId", h.depth, h.opaque FROM "PolicyTagHolding" h WHERE h."nodeKind" IN ('COLUMN', 'VERSION', 'ARTIFACT') AND h."artifactId" IN (${jsonListSelect(provider, first, ids.length)}) ` +
      `UNION ALL SELECT 'D', d."nodeKind", d."artifactId", d.field, d.tag, NULL, NULL, NULL FROM "PolicyTagDowngrade" d WHERE d."nodeKind" = 'COLUMN' AND d."artifactId" IN (${jsonListSelect(provider, second, ids.length)})`,
    ),
    params: provider === "sqlite" ? [json, json] : [json],
  };
}

/** A holding as the read connection answers it: [nodeKind, artifactId, field, tag, originId, depth, opaque]. */
function holdingOfRow([nodeKind, artifactId, field, tag, originId, depth, opaque]: readonly unknown[]): HoldingRow {
  return { nodeKind: String(nodeKind), artifactId: String(artifactId), field: String(field), tag: String(tag), originId: Number(originId), depth: Number(depth), opaque: storedBoolean(opaque) ?? false };
}

const downgradeKey = (artifactId: string, field: string, tag: string) => JSON.stringify([artifactId, field, tag]);

/** A column's holdings: its own, then those of its version as a whole and of its artifact unless the column was downgraded for them. */
function heldByColumn(holdings: readonly HoldingRow[], downgraded: ReadonlySet<string>, column: { artifactId: string; field: string }): HoldingRow[] {
  const own = holdings.filter((h) => h.nodeKind === "COLUMN" && h.artifactId === column.artifactId && h.field === column.field);
  const wider = holdings.filter((h) => h.nodeKind !== "COLUMN" && h.artifactId === column.artifactId && !downgraded.has(downgradeKey(column.artifactId, column.field, h.tag)));
  return [...own, ...wider];
}

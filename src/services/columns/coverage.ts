import { inChunks } from "../../db/chunked-lists";
import type { Database, ReadDatabase } from "../../db/client";
import { PageSizeError } from "../errors";
import type { ArtifactId, RunId } from "../ids";
import { ColumnReader } from "./column-reader";
import { type ColumnRef, columnKey } from "./column-records";
import { runColumnWalk } from "./column-closure";
import { appendAllTo } from "../grouping";

/** Seed "Measure coverage": below this share of resolved output columns, the graph is not fit for impact analysis. */
export const COVERAGE_THRESHOLD = 0.9;
/** Rows the coverage walk may produce; a walk cut there is reported (truncated) and never called fit. */
export const COVERAGE_WALK_BUDGET = 1_000_000;
export const DEFAULT_COVERAGE_ITEMS = 1_000;
export const MAX_COVERAGE_ITEMS = 10_000;

export type UnresolvedReason = "NO_COLUMN_LINEAGE" | "UPSTREAM_UNRESOLVED";

export interface UnresolvedColumn extends ColumnRef {
  field: string;
  /** NO_COLUMN_LINEAGE: the run that produced it reported no column lineage for it; UPSTREAM_UNRESOLVED: a column it depends on does not resolve. */
  reason: UnresolvedReason;
}

/** A run that produced a dataset version and reported no column lineage into it: its outputs' provenance stops there. */
export interface OpaqueNode {
  runId: RunId;
  artifactId: ArtifactId;
  /** Columns of that version (known from its schema or from edges). */
  columns: number;
}

export interface LineageCoverage {
  namespace: string;
  /** The newest produced version of every dataset of the namespace: the ones measured. */
  outputVersions: ArtifactId[];
  outputColumns: number;
  resolvedColumns: number;
  /** resolved / output columns; null when the namespace has no output columns. */
  share: number | null;
  threshold: number;
  fitForImpactAnalysis: boolean;
  unresolvedCount: number;
  /** The first `first` unresolved output columns (by artifact id, then field). */
  unresolved: UnresolvedColumn[];
  /** Opaque runs among the producers of the output versions and of everything upstream of them. */
  opaqueNodes: OpaqueNode[];
  /** The upstream walk was cut at its budget: the figures are a lower bound of the gaps, and never fit. */
  truncated: boolean;
}

/**
 * Seed "Measure coverage, mark the gaps": the share of output columns whose provenance resolves to a
 * root. A root is a column with no upstream edge whose dataset version no run inside provgraph
 * produced (a source). A column does not resolve when it, or any column upstream of it (through
 * field edges and the dataset-wide edges of its version), was produced by a run that reported no
 * column lineage for it. Measured on the newest produced version of each dataset in the namespace,
 * with one recursive walk upstream from all their columns at once.
 */
export class CoverageReader {
  private readonly columns: ColumnReader;

  constructor(private readonly database: ReadDatabase) {
    this.columns = new ColumnReader(database.reader);
  }

  async coverage(namespace: string, first: number = DEFAULT_COVERAGE_ITEMS): Promise<LineageCoverage> {
    if (!Number.isInteger(first) || first < 0 || first > MAX_COVERAGE_ITEMS) throw new PageSizeError("first", first, MAX_COVERAGE_ITEMS);
    const db = this.database.reader;
    const produced = await db.artifact.findMany({
      where: { datasetNamespace: namespace, links: { some: { direction: "PRODUCED" } } },
      select: { id: true, datasetName: true, createdAt: true },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    const newest = new Map<string, ArtifactId>();
    for (const a of produced) if (!newest.has(a.datasetName!)) newest.set(a.datasetName!, a.id as ArtifactId);
    const outputVersions = [...newest.values()].sort();
    const outputColumns = (await this.columns.columnsOf(outputVersions)).flat().map((c) => ({ artifactId: c.artifactId, field: c.field }));

    const walk = outputVersions.length === 0 ? null : await runColumnWalk(this.database, { mode: "reach", seeds: { artifactColumnsOf: outputVersions }, direction: "UPSTREAM", depthBound: 0, types: null, budget: COVERAGE_WALK_BUDGET });
    const nodes = [...(walk?.nodes.values() ?? []), ...outputColumns];
    const edges = walk?.edges ?? [];
    const artifactIds = [...new Set([...outputVersions, ...nodes.map((n) => n.artifactId)])];
    const producers = artifactIds.length === 0 ? [] : await inChunks(artifactIds, (chunk) => db.executionArtifact.findMany({ where: { artifactId: { in: chunk }, direction: "PRODUCED" }, select: { artifactId: true, runId: true } }));
    const producedIds = new Set(producers.map((p) => p.artifactId));

    // Gaps: produced columns no field edge leads into. Then everything downstream of a gap, within the walk.
    const withFieldLineage = new Set(edges.filter((e) => e.targetField !== null).map((e) => columnKey({ artifactId: e.targetId, field: e.targetField })));
    const gaps = new Set(nodes.filter((n) => n.field !== null && producedIds.has(n.artifactId) && !withFieldLineage.has(columnKey(n))).map(columnKey));
    const fieldSets = new Map<string, Set<string>>();
    for (const n of nodes) if (n.field !== null) fieldSets.set(n.artifactId, (fieldSets.get(n.artifactId) ?? new Set()).add(columnKey(n)));
    const fieldsOf = new Map([...fieldSets].map(([artifactId, keys]) => [artifactId, [...keys]]));
    const downstream = new Map<string, string[]>();
    for (const e of edges) {
      const targets = e.targetField === null ? (fieldsOf.get(e.targetId) ?? []) : [columnKey({ artifactId: e.targetId, field: e.targetField })];
      const source = columnKey({ artifactId: e.sourceId, field: e.sourceField });
      appendAllTo(downstream, source, targets);
    }
    const unresolved = new Set(gaps);
    const pending = [...gaps];
    while (pending.length > 0) {
      for (const next of downstream.get(pending.pop()!) ?? []) {
        if (!unresolved.has(next)) {
          unresolved.add(next);
          pending.push(next);
        }
      }
    }
    const unresolvedOutputs: UnresolvedColumn[] = outputColumns
      .filter((c) => unresolved.has(columnKey(c)))
      .map((c) => ({ artifactId: c.artifactId, field: c.field, reason: gaps.has(columnKey(c)) ? "NO_COLUMN_LINEAGE" : "UPSTREAM_UNRESOLVED" }));

    // Opaque: (run, version) pairs where the run produced the version and recorded no field edge into it.
    const edgesByRun = artifactIds.length === 0 ? [] : await inChunks(artifactIds, (chunk) => db.columnEdge.groupBy({ by: ["runId", "targetId"], where: { targetId: { in: chunk }, targetField: { not: null } } }));
    const described = new Set(edgesByRun.map((g) => `${g.runId}\u0000${g.targetId}`));
    const opaqueNodes = producers
      .filter((p) => !described.has(`${p.runId}\u0000${p.artifactId}`))
      .map((p) => ({ runId: p.runId as RunId, artifactId: p.artifactId as ArtifactId, columns: fieldsOf.get(p.artifactId)?.length ?? 0 }))
      .sort((a, b) => compare(a.artifactId, b.artifactId) || compare(a.runId, b.runId));

    const resolvedColumns = outputColumns.length - unresolvedOutputs.length;
    const share = outputColumns.length === 0 ? null : resolvedColumns / outputColumns.length;
    const truncated = walk?.budgetSpent ?? false;
    return {
      namespace,
      outputVersions,
      outputColumns: outputColumns.length,
      resolvedColumns,
      share,
      threshold: COVERAGE_THRESHOLD,
      fitForImpactAnalysis: share !== null && share >= COVERAGE_THRESHOLD && !truncated,
      unresolvedCount: unresolvedOutputs.length,
      unresolved: unresolvedOutputs.sort((a, b) => compare(a.artifactId, b.artifactId) || compare(a.field, b.field)).slice(0, first),
      opaqueNodes: opaqueNodes.slice(0, first),
      truncated,
    };
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

import { inChunks } from "../../db/chunked-lists";
import type { Db, DbTx } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import { insertRows } from "../recording";

/** One facet's report about one column of a dataset version. */
export interface ColumnFacetRow {
  artifactId: string;
  field: string;
  facet: string;
  value: unknown;
  createdAt: Date;
}

/** The facet whose values are a column's sample values (provgraph's custom dataset facet). */
export const SAMPLE_VALUES_FACET = "provgraph_columnSamples";

/** What producers report about columns that policy tags protect: each facet as first reported for a column. */
export async function stageColumnFacets(tx: DbTx, rows: readonly ColumnFacetRow[]): Promise<void> {
  const unique = new Map<string, unknown[]>();
  for (const r of rows) {
    const key = JSON.stringify([r.artifactId, r.field, r.facet]);
    if (!unique.has(key)) unique.set(key, [r.artifactId, r.field, r.facet, canonicalJson(r.value), r.createdAt]);
  }
  await insertRows(tx, "ColumnFacet", ["artifactId", "field", "facet", "value", "createdAt"], [...unique.values()], { ignoreConflicts: true });
}

/** A column's details as the API shows them (when the viewer may see them). */
export interface ColumnDetails {
  /** What the facets say about it, by facet name (schema, tags, dataQualityMetrics, provgraph_columnSamples); null when none does. */
  facets: Record<string, unknown> | null;
  /** Its sample values (the provgraph_columnSamples facet); null when none were reported. */
  sampleValues: unknown[] | null;
}

export class ColumnDetailsReader {
  constructor(private readonly db: Db) {}

  /** For each column, its details; one statement for all. */
  async of(columns: readonly { artifactId: string; field: string }[]): Promise<ColumnDetails[]> {
    const ids = [...new Set(columns.map((c) => c.artifactId))];
    const rows = ids.length === 0 ? [] : await inChunks(ids, (chunk) => this.db.columnFacet.findMany({ where: { artifactId: { in: chunk } } }));
    return columns.map((column) => {
      const own = rows.filter((r) => r.artifactId === column.artifactId && r.field === column.field).sort((a, b) => (a.facet < b.facet ? -1 : 1));
      if (own.length === 0) return { facets: null, sampleValues: null };
      const facets = Object.fromEntries(own.map((r) => [r.facet, JSON.parse(r.value)]));
      const samples = facets[SAMPLE_VALUES_FACET];
      return { facets, sampleValues: Array.isArray(samples) ? samples : null };
    });
  }
}

import type { HeavyReadContext, HeavyReadJobs } from "../heavy-reads";
import { NotFoundError } from "../errors";
import type { ColumnClosure, ColumnClosureQuery } from "./column-closure";
import type { ColumnProvJsonDocument } from "./column-prov-json";
import type { ColumnEdgeType } from "./column-records";
import { createColumnServices } from "./column-services";
import type { LineageDirection } from "../lineage";

/** A column of a dataset (its newest version, or `version`) and how to walk from it. */
export interface DatasetColumnLineageQuery {
  namespace: string;
  name: string;
  version?: string | null;
  field: string;
  direction: LineageDirection;
  maxDepth?: number | null;
  types?: readonly ColumnEdgeType[] | null;
  first?: number | null;
  /** Also make the closure's PROV-JSON document (when the request selects it). */
  withProvJson: boolean;
}

export type DatasetColumnLineage = ColumnClosure & { provJson: ColumnProvJsonDocument | null };

/**
 * The column room's heavy reads (run off the event loop, src/services/heavy-reads): the dataset's
 * columns are read to find the root (a wide dataset has tens of thousands), then the recursive walk.
 * An unknown dataset, version or field is NOT_FOUND.
 */
export const columnReads = {
  columnLineage: async (query: DatasetColumnLineageQuery, ctx: HeavyReadContext): Promise<DatasetColumnLineage> => {
    const columns = ctx.use(createColumnServices);
    const version = await columns.datasets.version(query.namespace, query.name, query.version);
    if (!version) {
      if (query.version != null && (await columns.datasets.version(query.namespace, query.name))) throw new NotFoundError("dataset version", `${query.namespace}/${query.name}@${query.version}`, "version");
      throw new NotFoundError("dataset", `${query.namespace}/${query.name}`, "name");
    }
    const [versionColumns] = await columns.columns.columnsOf([version.id]);
    if (!versionColumns.some((c) => c.field === query.field)) throw new NotFoundError("column", `${query.field} of ${query.namespace}/${query.name}@${version.dataset?.version}`, "field");
    ctx.checkDeadline();
    const closureQuery: ColumnClosureQuery = { root: { artifactId: version.id, field: query.field }, direction: query.direction, maxDepth: query.maxDepth, types: query.types, first: query.first };
    const closure = await columns.closures.closure(closureQuery);
    ctx.checkDeadline();
    return { ...closure, provJson: query.withProvJson ? await columns.provJson.export(closure) : null };
  },
} satisfies HeavyReadJobs;

import type { ReadDatabase } from "../../db/client";
import { ColumnClosureReader } from "./column-closure";
import { ColumnProvJsonExporter } from "./column-prov-json";
import { ColumnReader } from "./column-reader";
import { CoverageReader } from "./coverage";
import { DatasetReader } from "./dataset-reader";

/** The read side of column lineage: columns and one-hop edges, closures, datasets across versions, coverage, PROV-JSON. */
export interface ColumnServices {
  columns: ColumnReader;
  closures: ColumnClosureReader;
  datasets: DatasetReader;
  coverage: CoverageReader;
  provJson: ColumnProvJsonExporter;
}

export function createColumnServices(database: ReadDatabase): ColumnServices {
  return {
    columns: new ColumnReader(database.reader),
    closures: new ColumnClosureReader(database),
    datasets: new DatasetReader(database.reader),
    coverage: new CoverageReader(database),
    provJson: new ColumnProvJsonExporter(database.reader),
  };
}

import type { Db } from "../db/client";
import { OpenLineageIngestor, type OpenLineageIngestorDeps } from "./ingestor";
import { OpenLineageReader } from "./openlineage-reader";

/** OpenLineage as the rest of the server sees it: ingestion (every transport uses it) and what was stored. */
export interface OpenLineage {
  ingestor: OpenLineageIngestor;
  reader: OpenLineageReader;
}

export function createOpenLineage(deps: OpenLineageIngestorDeps, db: Db): OpenLineage {
  return { ingestor: new OpenLineageIngestor(deps), reader: new OpenLineageReader(db) };
}

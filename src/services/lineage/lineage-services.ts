import type { ReadDatabase } from "../../db/client";
import { ClosureReader } from "./closure";
import { ProvenanceEdgeReader } from "./lineage-edges";
import { ProvJsonExporter } from "./prov-json";
import { ProvenanceMapReader } from "./provenance-map";

/** The read side of artifact provenance: one-hop edges, closures, full maps and PROV-JSON export. */
export interface LineageServices {
  edges: ProvenanceEdgeReader;
  closures: ClosureReader;
  maps: ProvenanceMapReader;
  provJson: ProvJsonExporter;
}

/** The lineage services over one database's read side. */
export function createLineageServices(database: ReadDatabase): LineageServices {
  const closures = new ClosureReader(database);
  return {
    edges: new ProvenanceEdgeReader(database.reader),
    closures,
    maps: new ProvenanceMapReader(database),
    provJson: new ProvJsonExporter(database.reader, closures),
  };
}

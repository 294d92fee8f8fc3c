import type { Db } from "../db/client";
import { OpenLineageIngestor, type OpenLineageIngestorDeps } from "./ingestor";
import { OpenLineageReader } from "./openlineage-reader";
import type { RunHistory } from "../services/compliance";
import type { Invariant } from "../services/integrity";
import { openLineageRunHistory } from "./run-history";
import { openLineageRunState } from "./run-state-invariant";

/** OpenLineage as the rest of the server sees it: ingestion (every transport uses it) and what was stored. */
export interface OpenLineage {
  ingestor: OpenLineageIngestor;
  reader: OpenLineageReader;
  /** What every store holds of OpenLineage runs (registered with the integrity checker). */
  invariants: readonly Invariant[];
  /** How runs stood as of an instant, before their later events (registered with the evidence reader). */
  runHistory: RunHistory;
}

export function createOpenLineage(deps: OpenLineageIngestorDeps, db: Db): OpenLineage {
  return { ingestor: new OpenLineageIngestor(deps), reader: new OpenLineageReader(db), invariants: [openLineageRunState], runHistory: openLineageRunHistory };
}

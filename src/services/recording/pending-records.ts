import type { ProvenanceEdgeDraft } from "../../../plugins/types";
import type { ArtifactRecord } from "../records";

/**
 * What a unit has prepared but not staged yet, visible to the drafts it prepares next: a composite's
 * steps read the intermediates of the steps before them from here (in DISCARD they are never staged),
 * and their lineage through the edges prepared so far. Plain recordings have none.
 */
export interface PendingRecords {
  artifacts: Map<string, ArtifactRecord>;
  runIds: Set<string>;
  edges: ProvenanceEdgeDraft[];
}

export function emptyPendingRecords(): PendingRecords {
  return { artifacts: new Map(), runIds: new Set(), edges: [] };
}

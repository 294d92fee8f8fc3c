import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { groupInOrder } from "../batching";
import type { ArtifactId } from "../ids";
import { type ProvenanceEdgeRecord, toProvenanceEdgeRecord } from "./lineage-records";

/** One-hop reads: the edges into (parents) or out of (children) a batch of artifacts, one statement per batch. */
export class ProvenanceEdgeReader {
  constructor(private readonly db: Db) {}

  /** For each artifact, the edges whose target it is (its derivations from its parents), in recording order. */
  async intoTargets(ids: readonly ArtifactId[]): Promise<ProvenanceEdgeRecord[][]> {
    const rows = await inChunks(new Set(ids), (chunk) => this.db.provenanceEdge.findMany({ where: { targetId: { in: chunk } }, orderBy: { id: "asc" } }));
    return groupInOrder(ids, rows.map(toProvenanceEdgeRecord), (edge) => edge.targetId);
  }

  /** For each artifact, the edges whose source it is (what was derived from it), in recording order. */
  async fromSources(ids: readonly ArtifactId[]): Promise<ProvenanceEdgeRecord[][]> {
    const rows = await inChunks(new Set(ids), (chunk) => this.db.provenanceEdge.findMany({ where: { sourceId: { in: chunk } }, orderBy: { id: "asc" } }));
    return groupInOrder(ids, rows.map(toProvenanceEdgeRecord), (edge) => edge.sourceId);
  }
}

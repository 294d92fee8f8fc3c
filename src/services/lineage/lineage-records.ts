import type { ProvenanceEdge } from "../../generated/sqlite/client";
import type { ArtifactId, RunId } from "../ids";

/** The read side's view of artifact provenance: wasDerivedFrom edges and the walks over them. */

/** UPSTREAM = towards sources ("where did this come from?"), DOWNSTREAM = towards targets ("what was derived from this?"). */
export const LINEAGE_DIRECTIONS = ["UPSTREAM", "DOWNSTREAM"] as const;
export type LineageDirection = (typeof LINEAGE_DIRECTIONS)[number];

export const PROVENANCE_EDGE_KINDS = ["INDEPENDENT", "CO_INPUT", "OUTPUT_TO_OUTPUT", "CONFIG_REFERENCE"] as const;
export type ProvenanceEdgeKind = (typeof PROVENANCE_EDGE_KINDS)[number];

/** source (parent) → target (derived), recorded by one run [prov:wasDerivedFrom]. */
export interface ProvenanceEdgeRecord {
  id: number;
  sourceId: ArtifactId;
  targetId: ArtifactId;
  runId: RunId;
  kind: ProvenanceEdgeKind;
  /** Shared by every edge of one joint derivation of one target in one run. */
  groupId: string | null;
  stepBoundary: boolean;
  sourceType: string;
  targetType: string;
  createdAt: Date;
}

export function toProvenanceEdgeRecord(row: ProvenanceEdge): ProvenanceEdgeRecord {
  return {
    id: row.id,
    sourceId: row.sourceId as ArtifactId,
    targetId: row.targetId as ArtifactId,
    runId: row.runId as RunId,
    kind: row.kind as ProvenanceEdgeKind,
    groupId: row.groupId,
    stepBoundary: row.stepBoundary,
    sourceType: row.sourceType,
    targetType: row.targetType,
    createdAt: row.createdAt,
  };
}

/** The artifact on the far side of an edge when walking in `direction`. */
export function farEndOf(edge: ProvenanceEdgeRecord, direction: LineageDirection): ArtifactId {
  return direction === "UPSTREAM" ? edge.sourceId : edge.targetId;
}

/**
 * One joint derivation of a target: every edge one run recorded for it with one groupId
 * (seed "Co-input edges and joint derivation"). `sources` are ALL the inputs of that derivation.
 */
export interface DerivationRecord {
  targetId: ArtifactId;
  groupId: string | null;
  runId: RunId;
  kind: ProvenanceEdgeKind;
  sourceIds: ArtifactId[];
  edges: ProvenanceEdgeRecord[];
}

/**
 * Groups the edges into one target by (groupId, runId), in the order their first edge was
 * recorded. An edge without a groupId (never written by the recorder, but the table allows it)
 * is a derivation of its own.
 */
export function derivationsOf(targetId: ArtifactId, edgesIntoTarget: readonly ProvenanceEdgeRecord[]): DerivationRecord[] {
  const byKey = new Map<string, DerivationRecord>();
  for (const edge of [...edgesIntoTarget].sort((a, b) => a.id - b.id)) {
    const key = edge.groupId === null ? `edge:${edge.id}` : `${edge.runId}\u0000${edge.groupId}`;
    const derivation = byKey.get(key);
    if (derivation) {
      derivation.edges.push(edge);
      if (!derivation.sourceIds.includes(edge.sourceId)) derivation.sourceIds.push(edge.sourceId);
    } else {
      byKey.set(key, { targetId, groupId: edge.groupId, runId: edge.runId, kind: edge.kind, sourceIds: [edge.sourceId], edges: [edge] });
    }
  }
  return [...byKey.values()];
}

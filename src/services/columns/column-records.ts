import type { ArtifactId, RunId } from "../ids";
import { storedBoolean, storedTime } from "../../db/rows-by-id";

/** The two classes of column edge (seed "column-level lineage"): the value reached the output, or it only shaped it. */
export const COLUMN_EDGE_TYPES = ["DIRECT", "INDIRECT"] as const;
export type ColumnEdgeType = (typeof COLUMN_EDGE_TYPES)[number];

/**
 * (input dataset version, field) → (output dataset version, field), as one run reported it.
 * targetField null: a dataset-wide dependency (OpenLineage's columnLineage `dataset` list): the
 * source field shapes every column of the target (a filter, a join key, a grouping, …).
 */
export interface ColumnEdgeDraft {
  sourceId: ArtifactId;
  sourceField: string;
  targetId: ArtifactId;
  targetField: string | null;
  runId: RunId;
  type: ColumnEdgeType;
  /** IDENTITY, TRANSFORMATION, AGGREGATION, FILTER, JOIN, GROUP_BY, SORT, WINDOW, CONDITIONAL, … as reported. */
  subtype: string | null;
  description: string | null;
  masking: boolean;
}

export interface ColumnEdgeRecord extends ColumnEdgeDraft {
  id: number;
  createdAt: Date;
}

/** A column of a dataset version, as its schema facet listed it (nested fields as dotted paths). */
export interface DatasetColumnRecord {
  artifactId: ArtifactId;
  field: string;
  position: number;
  type: string | null;
  description: string | null;
}

/** One column of one dataset version; field null = the dataset version as a whole (a dataset-wide edge's target). */
export interface ColumnRef {
  artifactId: ArtifactId;
  field: string | null;
}

/** A map key for a column (the whole-dataset ref, field null, has a key of its own). */
export const columnKey = (ref: { artifactId: string; field: string | null }) => (ref.field === null ? `${ref.artifactId}\u0001` : `${ref.artifactId}\u0000${ref.field}`);

export function toColumnEdgeRecord(row: {
  id: number;
  sourceId: string;
  sourceField: string;
  targetId: string;
  targetField: string | null;
  runId: string;
  type: string;
  subtype: string | null;
  description: string | null;
  masking: boolean | number;
  createdAt: Date | string;
}): ColumnEdgeRecord {
  return {
    id: Number(row.id),
    sourceId: row.sourceId as ArtifactId,
    sourceField: row.sourceField,
    targetId: row.targetId as ArtifactId,
    targetField: row.targetField,
    runId: row.runId as RunId,
    type: row.type as ColumnEdgeType,
    subtype: row.subtype,
    description: row.description,
    masking: storedBoolean(row.masking) ?? false,
    createdAt: storedTime(row.createdAt)!,
  };
}

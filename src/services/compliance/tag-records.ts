import { type ArtifactId, digest40 } from "../ids";

/**
 * Policy tags (seed "Policy travels along the same edges"): PII, PCI, CONFIDENTIAL or any name a
 * clearance scope can name (`clearance:<TAG>`).
 */
export const POLICY_TAG = /^[A-Za-z0-9_.-]{1,64}$/;
export const POLICY_TAG_SYNTAX = "1-64 letters, digits, '_', '.' or '-' (what a clearance:<TAG> scope can name)";
// A purpose's syntax is the recording room's (a run declares one): PURPOSE_NAME, PURPOSE_SYNTAX.
export { PURPOSE_NAME, PURPOSE_SYNTAX } from "../recording";
/** The most characters a reason (for a tag, a downgrade, a catalogue fact) may have. */
export const MAX_REASON_LENGTH = 2_000;

/** What a tag is given to: a column of a dataset version, or an artifact as a whole. */
export type NodeTarget = { kind: "COLUMN"; artifactId: ArtifactId; field: string } | { kind: "ARTIFACT"; artifactId: ArtifactId };

/** A column of a dataset: every version of it, present and future (tagColumn's default scope). */
export interface DatasetColumnTarget {
  kind: "DATASET_COLUMN";
  namespace: string;
  name: string;
  field: string;
}

/** What a tag is assigned to: a node, or a column of a dataset across its versions. */
export type TagTarget = NodeTarget | DatasetColumnTarget;

/** How far a column's tag reaches: the dataset's column in every version (DATASET), or one version's (VERSION). */
export type TagScope = "DATASET" | "VERSION";

/** How a node holds a tag: on the column itself, through its dataset version as a whole (a dataset-wide edge), or through its artifact. */
export type TagLevel = "COLUMN" | "VERSION" | "ARTIFACT";

export type TagSource = "ADMIN" | "OPENLINEAGE";

export interface PolicyTagAssignmentRecord {
  id: number;
  tag: string;
  target: TagTarget;
  source: TagSource;
  /** OpenLineage: the tag's own `source` (INTEGRATION, USER, DBT CORE, …) and `value`. */
  reportedSource: string | null;
  value: string | null;
  reason: string | null;
  /** The token's name or "open mode" (ADMIN); the event's producer (OPENLINEAGE). */
  assignedBy: string;
  tokenId: string | null;
  runId: string | null;
  createdAt: Date;
}

/** A tag a node holds: assigned to it (depth 0) or inherited, through `level`, from its nearest origin. */
export interface PolicyTagHoldingRecord {
  tag: string;
  level: TagLevel;
  /** Edges from the origin (0: assigned to this very node, or to its column of the dataset). */
  depth: number;
  /** The path from the origin crosses an opaque step (a run without column lineage for its output). */
  throughOpaqueStep: boolean;
  origin: PolicyTagAssignmentRecord;
}

export interface TagDowngradeRecord {
  id: number;
  target: NodeTarget;
  tag: string;
  reason: string;
  downgradedBy: string;
  tokenId: string | null;
  /** What the node held when it was downgraded. */
  origin: PolicyTagAssignmentRecord | null;
  depth: number;
  createdAt: Date;
}

/** Who did an admin action: the principal's name and token (null in open mode). */
export interface Actor {
  name: string;
  tokenId: string | null;
}

export function targetOfRow(row: { nodeKind: string; artifactId: string; field: string; datasetNamespace?: string | null; datasetName?: string | null }): TagTarget {
  if (row.nodeKind === "DATASET_COLUMN") return { kind: "DATASET_COLUMN", namespace: row.datasetNamespace!, name: row.datasetName!, field: row.field };
  return nodeTargetOfRow(row);
}

export function nodeTargetOfRow(row: { nodeKind: string; artifactId: string; field: string }): NodeTarget {
  return row.nodeKind === "COLUMN" ? { kind: "COLUMN", artifactId: row.artifactId as ArtifactId, field: row.field } : { kind: "ARTIFACT", artifactId: row.artifactId as ArtifactId };
}

export function assignmentOfRow(row: {
  id: number;
  tag: string;
  nodeKind: string;
  artifactId: string;
  field: string;
  datasetNamespace: string | null;
  datasetName: string | null;
  source: string;
  reportedSource: string | null;
  value: string | null;
  reason: string | null;
  assignedBy: string;
  tokenId: string | null;
  runId: string | null;
  createdAt: Date;
}): PolicyTagAssignmentRecord {
  return {
    id: row.id,
    tag: row.tag,
    target: targetOfRow(row),
    source: row.source as TagSource,
    reportedSource: row.reportedSource,
    value: row.value,
    reason: row.reason,
    assignedBy: row.assignedBy,
    tokenId: row.tokenId,
    runId: row.runId,
    createdAt: row.createdAt,
  };
}

/** The row key of a target: field "" for an artifact; a dataset's column is keyed by the dataset's key (datasetKey). */
export const targetKey = (target: TagTarget) =>
  target.kind === "DATASET_COLUMN"
    ? { nodeKind: target.kind, artifactId: datasetKey(target.namespace, target.name), field: target.field }
    : { nodeKind: target.kind, artifactId: target.artifactId as string, field: target.kind === "COLUMN" ? target.field : "" };

/** A dataset's key in the assignment table (where a node's artifact id goes): `dst_` and a digest of its namespace and name. */
export const datasetKey = (namespace: string, name: string) => `dst_${digest40("dataset", namespace, name)}`;

/** How a target is named in messages. */
export function targetName(target: TagTarget): string {
  switch (target.kind) {
    case "COLUMN":
      return `column ${target.field} of ${target.artifactId}`;
    case "ARTIFACT":
      return `artifact ${target.artifactId}`;
    case "DATASET_COLUMN":
      return `column ${target.field} of dataset ${target.namespace}/${target.name}`;
  }
}

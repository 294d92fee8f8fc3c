import type { Artifact, Execution, Operation, OperationRole } from "../generated/sqlite/client";
import type { ArtifactId, OperationId, RunId, SpecId } from "./ids";

/** The core's view of stored rows: ids branded, JSON parsed, enumerations narrowed. */

export const EXECUTION_STATUSES = ["STARTED", "RUNNING", "COMPLETED", "FAILED", "ABORTED"] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** COMPOSITE: a registered composite (registerComposite); its runs are recorded with recordCompositeExecution. */
export const OPERATION_KINDS = ["CREATOR", "CURATOR", "COMPOSITE"] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

export const GROUP_BY_MODES = ["ZIP", "CROSS_PRODUCT", "LINEAGE"] as const;
export type GroupByMode = (typeof GROUP_BY_MODES)[number];

export type LinkDirection = "CONSUMED" | "PRODUCED";

export interface DatasetRef {
  namespace: string;
  name: string;
  version: string | null;
}

export interface ArtifactRecord {
  id: ArtifactId;
  artifactType: string;
  contentHash: string;
  originalName: string;
  metadata: unknown;
  dataset: DatasetRef | null;
  createdAt: Date;
}

export interface ReplayPins {
  inputVersions: unknown;
  codeVersion: string | null;
  imageDigest: string | null;
  deterministic: boolean | null;
}

export interface ExecutionRecord {
  runId: RunId;
  specId: SpecId;
  operationId: OperationId;
  status: ExecutionStatus;
  params: unknown;
  agent: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  recordedAt: Date;
  pins: ReplayPins;
  pipeline: string | null;
  step: number | null;
  parentRunId: RunId | null;
}

/** Where an output's lineage comes from: input roles, output roles, or none declared (curators). */
export type LineageSource = { from: "INPUTS"; roles: string[] } | { from: "OUTPUTS"; roles: string[] } | null;

export interface RoleRecord {
  role: string;
  artifactType: string;
  required: boolean;
  position: number;
  inferLineageFrom: LineageSource;
}

export interface OperationRecord {
  id: OperationId;
  name: string;
  version: string;
  kind: OperationKind;
  groupBy: GroupByMode | null;
  /** The parameter whose value is a run's business date (the date its figures are as of); null: none declared. */
  businessDateParam: string | null;
  createdAt: Date;
  inputs: RoleRecord[];
  outputs: RoleRecord[];
}

/** One execution ↔ artifact link, in the role the execution used or produced it. */
export interface ExecutionLinkRecord {
  runId: RunId;
  artifactId: ArtifactId;
  role: string;
  position: number;
}

export function parseJson(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

export function toArtifactRecord(row: Artifact): ArtifactRecord {
  return {
    id: row.id as ArtifactId,
    artifactType: row.artifactType,
    contentHash: row.contentHash,
    originalName: row.originalName,
    metadata: parseJson(row.metadata),
    dataset:
      row.datasetNamespace !== null && row.datasetName !== null
        ? { namespace: row.datasetNamespace, name: row.datasetName, version: row.datasetVersion }
        : null,
    createdAt: row.createdAt,
  };
}

export function toExecutionRecord(row: Execution): ExecutionRecord {
  return {
    runId: row.runId as RunId,
    specId: row.specId as SpecId,
    operationId: row.operationId as OperationId,
    status: row.status as ExecutionStatus,
    params: parseJson(row.params),
    agent: row.agent,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    recordedAt: row.recordedAt,
    pins: {
      inputVersions: parseJson(row.pinInputVersions),
      codeVersion: row.pinCodeVersion,
      imageDigest: row.pinImageDigest,
      deterministic: row.pinDeterministic,
    },
    pipeline: row.pipeline,
    step: row.step,
    parentRunId: row.parentRunId as RunId | null,
  };
}

export function toRoleRecord(row: OperationRole): RoleRecord {
  const roles = row.lineageRoles === null ? [] : (JSON.parse(row.lineageRoles) as string[]);
  return {
    role: row.role,
    artifactType: row.artifactType,
    required: row.required,
    position: row.position,
    inferLineageFrom:
      row.lineageFrom === "INPUTS" || row.lineageFrom === "OUTPUTS" ? { from: row.lineageFrom, roles } : null,
  };
}

/** The business-date parameter a stored declaration names (declarations without one never spell the key). */
function declaredBusinessDateParam(declaration: string): string | null {
  if (!declaration.includes('"businessDateParam"')) return null;
  const value = (JSON.parse(declaration) as { businessDateParam?: unknown }).businessDateParam;
  return typeof value === "string" ? value : null;
}

export function toOperationRecord(row: Operation & { roles: OperationRole[] }): OperationRecord {
  const byPosition = (a: RoleRecord, b: RoleRecord) => a.position - b.position;
  return {
    id: row.id as OperationId,
    name: row.name,
    version: row.version,
    kind: row.kind as OperationKind,
    groupBy: row.groupBy as GroupByMode | null,
    businessDateParam: declaredBusinessDateParam(row.declaration),
    createdAt: row.createdAt,
    inputs: row.roles.filter((r) => r.direction === "INPUT").map(toRoleRecord).sort(byPosition),
    outputs: row.roles.filter((r) => r.direction === "OUTPUT").map(toRoleRecord).sort(byPosition),
  };
}

/**
 * The plugin contract. A plugin is a plain object that names the stage of the recording
 * pipeline it serves; the pipeline runs every registered plugin of a stage, in list order,
 * inside the transaction that commits the execution. Plugins never import from src/: what
 * they need to read comes through the narrow ReadPort they are handed, and what a propagate plugin
 * derives it writes through the DerivationPort (both backed by the Prisma transaction in
 * production, by in-memory stand-ins in unit tests). To reject an execution, a plugin throws one
 * of the errors in ./errors; nothing is then written.
 */

export type OperationKind = "CREATOR" | "CURATOR";
/**
 * How inputs are paired across roles into groups (seed "How multi-input pairing works"); each group is
 * one joint derivation's inputs. ZIP: the i-th artifact of every role; CROSS_PRODUCT: every combination
 * across roles; LINEAGE: two roles, an artifact of each paired when they share an ancestor.
 */
export type GroupByMode = "ZIP" | "CROSS_PRODUCT" | "LINEAGE";
export type EdgeKind = "INDEPENDENT" | "CO_INPUT" | "OUTPUT_TO_OUTPUT" | "CONFIG_REFERENCE";

/** The role in which an execution uses the artifacts its params reference (`{"$artifact": id}`). */
export const CONFIG_INPUT_ROLE = "$config";

/** `{inputs: [roles]}`, `{outputs: [roles]}`; `{inputs: []}` is generative (an orphan); null = curator passthrough. */
export type LineageSource = { from: "INPUTS"; roles: string[] } | { from: "OUTPUTS"; roles: string[] } | null;

export interface RoleDeclaration {
  role: string;
  artifactType: string;
  /** The role must hold at least one artifact (an output role: when the execution is COMPLETED). */
  required: boolean;
  /** Outputs only. */
  inferLineageFrom: LineageSource;
}

export interface OperationDeclaration {
  name: string;
  version: string;
  kind: OperationKind;
  /**
   * How inputs are paired into groups (see GroupByMode and InputPairing). An output is stem-matched
   * against its primary role only (the first role its inferLineageFrom names); the group of the
   * matched artifact gives the co-inputs.
   */
  groupBy: GroupByMode | null;
  inputs: RoleDeclaration[];
  outputs: RoleDeclaration[];
  /** The parameter whose value is a run's business date (absent: none declared). */
  businessDateParam?: string;
}

/** An input artifact as stored, in the role and position the execution reported it. */
export interface InputArtifact {
  id: string;
  role: string;
  index: number;
  artifactType: string;
  originalName: string;
}

/** An output as reported, before it is committed. `id` is final: content-addressed from type and hash. */
export interface OutputDraft {
  id: string;
  role: string;
  index: number;
  originalName: string;
  contentHash: string;
  /** The declared type of its role, or null when the role is not declared (artifact validation refuses it). */
  artifactType: string | null;
  metadata: unknown;
  /** The dataset this output is a version of (OpenLineage namespace, name, version), when it is one. */
  dataset?: DatasetVersionRef | null;
}

/** A version of a dataset (OpenLineage's namespace + name); version null = the dataset as such, unversioned. */
export interface DatasetVersionRef {
  namespace: string;
  name: string;
  version: string | null;
}

/**
 * An explicit mapping as reported: `output` names a draft, `sources` are artifact ids or output draft
 * names. JOINT: the sources are one joint derivation (co-inputs when several); INDEPENDENT: each
 * source alone explains the output (one derivation per source).
 */
export interface ExplicitLineage {
  output: string;
  sources: string[];
  kind: "JOINT" | "INDEPENDENT";
}

export interface DraftExecution {
  runId: string;
  specId: string;
  operation: OperationDeclaration;
  /** STARTED, RUNNING, COMPLETED, FAILED or ABORTED. */
  status: string;
  params: unknown;
  inputs: InputArtifact[];
  /**
   * The stored artifacts `params` reference (`{"$artifact": id}`), sorted by id, in role
   * CONFIG_INPUT_ROLE: the execution used them, but they are not lineage sources of its outputs.
   */
  configInputs: InputArtifact[];
  outputs: OutputDraft[];
  explicitLineage: ExplicitLineage[];
  pipeline: string | null;
  step: number | null;
  parentRunId: string | null;
  /** The input groups of a groupBy operation, paired before capture; null without groupBy. */
  pairing: InputPairing | null;
}

/**
 * Inputs paired into groups before lineage capture (the orchestrator's "pairs inputs before dispatch").
 * Each group holds one artifact per input role, in declared role order. `unpaired`: inputs that are in
 * no group (LINEAGE: no shared ancestor; ZIP: beyond the shortest role), reported, never dropped silently.
 */
export interface InputPairing {
  strategy: GroupByMode;
  groups: InputArtifact[][];
  unpaired: InputArtifact[];
}

/** Where a source of a derivation is: an input of this execution, an output draft (by name), or any stored artifact. */
export type SourceRef = { input: string } | { output: string } | { stored: string };

/**
 * One derivation of one output, as the capture stage found it (seed: LineageMapping). All its
 * sources are jointly the derivation: they share one groupId once built.
 */
export interface LineageMapping {
  /** The output draft's originalName. */
  output: string;
  sources: SourceRef[];
  kind: EdgeKind;
  /** Who produced it (a plugin name or "explicit"), for error messages and debugging. */
  capturedBy: string;
  /**
   * The declaration it comes from, when one declaration yields several independent derivations of an
   * output (an INDEPENDENT explicit mapping: one per source). Two mappings of one output are a
   * DUPLICATE_MAPPING unless they share capturedBy and entry. CONFIG_REFERENCE mappings are exempt.
   */
  entry?: string;
}

/** A built, enriched edge, ready to be staged (seed: ArtifactProvenanceEdge). */
export interface ProvenanceEdgeDraft {
  sourceId: string;
  targetId: string;
  runId: string;
  kind: EdgeKind;
  groupId: string;
  stepBoundary: boolean;
  sourceType: string;
  targetType: string;
}

/** What a plugin may read: stored artifacts and their ancestry, nothing else. */
export interface ReadPort {
  artifactsByIds(ids: readonly string[]): Promise<{ id: string; artifactType: string; originalName: string }[]>;
  /**
   * Every ancestor of each of these artifacts: the sources reached by following provenance edges
   * (of any kind) upstream, transitively; an artifact is not its own ancestor. One row per pair.
   */
  ancestorsOf(ids: readonly string[]): Promise<{ id: string; ancestorId: string }[]>;
}

export interface CapturePlugin {
  name: string;
  stage: "capture";
  /**
   * Returns lineage mappings for outputs. `alreadyMapped` holds the outputs earlier plugins
   * (and explicit mappings) have mapped: a plugin should leave them alone.
   */
  capture(draft: DraftExecution, context: { alreadyMapped: ReadonlySet<string>; port: ReadPort }): Promise<LineageMapping[]> | LineageMapping[];
}

export interface ValidatePlugin {
  name: string;
  stage: "validate";
  /** Throws ArtifactValidationError / LineageCompletenessError / LineageIntegrityError to reject. */
  validate(draft: DraftExecution, lineage: { mappings: LineageMapping[]; edges: ProvenanceEdgeDraft[]; port: ReadPort }): Promise<void> | void;
}

/**
 * A node of the lineage graph, as propagation sees it: a column of a dataset version, a dataset
 * version as a whole (the target of a dataset-wide column edge: it shapes every column of the
 * version), or an artifact (its wasDerivedFrom edges).
 */
export type LineageNode = { kind: "COLUMN"; artifactId: string; field: string } | { kind: "VERSION"; artifactId: string } | { kind: "ARTIFACT"; artifactId: string };

/** A column edge as staged: (input version, field) → (output version, field); targetField null = the whole output version. */
export interface ColumnEdgeStep {
  sourceId: string;
  sourceField: string;
  targetId: string;
  targetField: string | null;
  type: "DIRECT" | "INDIRECT";
}

/**
 * What one recording unit wrote that derived facts depend on, handed to the propagate plugins at the
 * end of the unit, inside its transaction, whatever wrote it (recordExecution, batches, composites,
 * OpenLineage ingestion, the admin tag mutations).
 */
export interface WrittenLineage {
  /** wasDerivedFrom edges staged. */
  artifactEdges: readonly ProvenanceEdgeDraft[];
  /** Column edges staged (OpenLineage columnLineage). */
  columnEdges: readonly ColumnEdgeStep[];
  /** Policy tags assigned (by an admin, or reported by a producer): their assignment ids. */
  assignedTags: readonly number[];
  /** Tags downgraded on some node: where they flow has changed. */
  downgradedTags: readonly string[];
  /** Dataset versions recorded for the first time (artifact ids): they take the tags their dataset's columns carry. */
  datasetVersions: readonly string[];
}

/** Which tags to let flow: from nodes (their held tags), from assignments, or a tag afresh from all its origins. */
export interface TagFlowRequest {
  /** Nodes whose held tags flow on downstream (the near ends of new lineage). */
  from?: readonly LineageNode[];
  /** Assignments whose tag flows from the node it was given to. */
  origins?: readonly number[];
  /** Tags derived afresh: what was derived of them is forgotten, and they flow again from every origin. */
  rederive?: readonly string[];
  /**
   * New versions of datasets (artifact ids): each holds the tags assigned to a column of its dataset
   * as a whole (every version, past and future), which then flow from it like from any near end.
   */
  versions?: readonly string[];
}

/**
 * What a propagate plugin may write: derived facts, through the unit's own transaction (so they
 * commit or roll back with what they derive from). Backed by the Prisma transaction in production.
 */
export interface DerivationPort {
  policyTags: {
    /**
     * Tags flow downstream along stored lineage — column edges (DIRECT and INDIRECT; a dataset-wide
     * one to its whole target version, and from a whole version along every edge out of it) and
     * wasDerivedFrom edges (an artifact's own tags; and every tag of an input to the whole output
     * version when the run reported no column lineage into it: an opaque step) — never into a node
     * where the tag was downgraded; each node keeps its nearest origin. An ARTIFACT node in `from`
     * stands for every holding on that artifact. Runs in the database, one recursive statement per
     * hop set. Returns how many holdings were added or moved to a better origin.
     */
    flow(request: TagFlowRequest): Promise<{ changed: number }>;
  };
}

export interface PropagatePlugin {
  name: string;
  stage: "propagate";
  /**
   * Runs once per recording unit, after the unit staged everything and before it commits, with what
   * it wrote. What the plugin derives it writes through `derive`; a throw rolls the unit back.
   */
  propagate(written: WrittenLineage, context: { port: ReadPort; derive: DerivationPort }): Promise<void> | void;
}

export type ProvgraphPlugin = CapturePlugin | ValidatePlugin | PropagatePlugin;

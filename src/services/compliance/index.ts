// The compliance room's one door: policy tags (assignments, downgrades, the flow along lineage,
// what nodes hold), the details of columns they protect, evidence packages and erasure plans.
export { type ComplianceEngines, type ComplianceServices, createComplianceEngines, createComplianceServices, settleUnitSubjects } from "./compliance-services";
export { ErasureAlreadyExecutedError, ErasureNotConfiguredError, ErasurePlanTooLargeError, SubjectSuppressedError, TagNotInheritedError } from "./errors";
export { inheritedPolicyTags } from "./policy-tag-invariant";
export { type PolicySubject, PolicyTagReader } from "./policy-tag-reader";
export { type BeforeCommit, checkTag, type ReportedTag, stageReportedTags } from "./policy-tag-service";
export {
  type Actor,
  MAX_REASON_LENGTH,
  POLICY_TAG,
  POLICY_TAG_SYNTAX,
  type PolicyTagAssignmentRecord,
  type PolicyTagHoldingRecord,
  type TagDowngradeRecord,
  type TagLevel,
  type TagSource,
  type TagTarget,
} from "./tag-records";
export type { ColumnSelector, NodeSelector } from "./tag-targets";
export { SubjectKeys } from "./subject-keys";
export { HOPS_PER_STATEMENT, tagFlowStatement } from "./tag-flow-sql";
export { type ColumnDetails, ColumnDetailsReader, type ColumnFacetRow, SAMPLE_VALUES_FACET, stageColumnFacets } from "./column-details";
export {
  EVIDENCE_FORMAT,
  EVIDENCE_RULES,
  EVIDENCE_WALK_BUDGET,
  type EvidenceEdge,
  type EvidenceInput,
  type EvidenceNode,
  type EvidencePackage,
  type EvidenceQuery,
  EvidenceReader,
  type EvidenceRule,
  type EvidenceRun,
  type EvidenceVerification,
  type EvidenceViolation,
} from "./evidence";
export { evidenceStatement } from "./evidence-sql";
export { Catalogue, type CatalogueFactRecord, type CatalogueFacts, type CatalogueTarget } from "./catalogue";
export {
  DEFAULT_K_THRESHOLD,
  Erasure,
  type ErasureAction,
  type ErasureActionKind,
  ERASURE_SLA_DAYS,
  ERASURE_WALK_BUDGET,
  type ErasurePlanDocument,
  type ErasurePlanRecord,
  type ErasureRoot,
  SUPPRESSION_LIST,
} from "./erasure";
export { erasureClosureStatement } from "./erasure-sql";

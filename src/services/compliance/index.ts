// The compliance room's one door: policy tags (assignments, downgrades, the flow along lineage,
// what nodes hold), the details of columns they protect, evidence packages and erasure plans.
export { type ComplianceEngines, type ComplianceServices, createComplianceEngines, createComplianceServices, settleUnitRunPurposes, settleUnitSubjects } from "./compliance-services";
export {
  ErasureAlreadyExecutedError,
  ErasureNotConfiguredError,
  ErasurePlanTooLargeError,
  PurposeChangedError,
  PurposeNotGrantedError,
  PurposeNotPermittedError,
  SigningNotConfiguredError,
  SubjectSuppressedError,
  TagNotInheritedError,
} from "./errors";
export { type PurposeAccessEntry, type PurposeAccessKind, PurposeAccessLog, type PurposeServedRecord } from "./purpose-access";
export { MAX_TAG_PURPOSES, TagPurposes, type TagPurposesRecord } from "./tag-purposes";
export { inheritedPolicyTags } from "./policy-tag-invariant";
export { type PolicySubject, PolicyTagReader } from "./policy-tag-reader";
export { type BeforeCommit, checkTag, type ReportedTag, stageReportedTags } from "./policy-tag-service";
export {
  type Actor,
  MAX_REASON_LENGTH,
  POLICY_TAG,
  POLICY_TAG_SYNTAX,
  PURPOSE_NAME,
  PURPOSE_SYNTAX,
  type PolicyTagAssignmentRecord,
  type PolicyTagHoldingRecord,
  type DatasetColumnTarget,
  type NodeTarget,
  type TagDowngradeRecord,
  type TagLevel,
  type TagScope,
  type TagSource,
  type TagTarget,
  datasetKey,
} from "./tag-records";
export type { ColumnSelector, NodeSelector } from "./tag-targets";
export { SubjectKeys, type SubjectKeyRules } from "./subject-keys";
export { HOPS_PER_STATEMENT, tagFlowStatement } from "./tag-flow-sql";
export { type ColumnDetails, ColumnDetailsReader, type ColumnFacetRow, SAMPLE_VALUES_FACET, stageColumnFacets } from "./column-details";
export {
  EVIDENCE_FORMAT,
  EVIDENCE_RULES,
  EVIDENCE_WALK_BUDGET,
  IMAGE_DIGEST,
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
  withholdRunParams,
} from "./evidence";
export { evidenceReads, evidenceTooLarge, servedEvidencePackage, type ServedEvidenceContent, type ServedEvidencePackage } from "./heavy-reads";
export { evidenceStatement } from "./evidence-sql";
export { type RunHistory, type RunStateAsOf } from "./run-history";
export { type DocumentSignature, DocumentSigner, keyIdOf, type PublicSigningKey, type SignatureCheck, type SigningKeys } from "./document-signer";
export { Catalogue, type CatalogueFactRecord, type CatalogueFacts, type CatalogueTarget } from "./catalogue";
export {
  DEFAULT_K_THRESHOLD,
  Erasure,
  type ErasureAction,
  type ErasureActionKind,
  ERASURE_PLAN_FORMAT,
  ERASURE_SLA_DAYS,
  ERASURE_WALK_BUDGET,
  type ErasurePlanDocument,
  type ErasurePlanRecord,
  type ErasureRoot,
  SUPPRESSION_LIST,
} from "./erasure";
export { erasureClosureStatement } from "./erasure-sql";

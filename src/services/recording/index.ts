// The recording room's one door. Every way into the store (recordExecution, batches, composites,
// OpenLineage ingestion) builds on these: a unit runs on the CommitPath; inside it, prepareExecution
// runs the lineage pipeline (plugins) over a draft and stageExecution writes its rows — or, for an
// execution recorded earlier that reports again (OpenLineage), stageAppend adds what is new.
export {
  type CommitListener,
  type CommitPath,
  type EventJournal,
  type JournalReceipt,
  type RecordingEvent,
  type RecordingUnit,
  TransactionPerUnit,
  type UnitFinisher,
  type UnitScope,
} from "./commit-path";
export { GroupCommit, type GroupCommitOptions, MAX_TRANSACTION_ATTEMPTS } from "./group-commit";
export { noteUnitWrites, type PrivacyReleaseDraft, type RecordingActor, type RunPurposeDraft, type SearchableWrite, type SubjectDeclarationDraft, type UnitWrites } from "./unit-writes";
export { type DerivationEngines, derivationPort, runPropagatePlugins } from "./unit-derivations";
export { inferAndValidateLineage, type InferredLineage } from "./lineage-pipeline";
export { type OperationDeclarationInput, type OperationPlan, OperationRegistry, operationWrite, type PlannedOperation } from "./operation-registry";
export { type PreparedExecution, type PrepareItem, prepareExecution, prepareExecutions, type StageableExecution } from "./prepared-execution";
export { emptyPendingRecords, type PendingRecords } from "./pending-records";
export { ExecutionRecorder, type ReplayedExecution } from "./record-execution";
export { observeRecording, type RecordingKind, type RecordingObserver, recordingOutcomeOf } from "./recording-observer";
export { type RecordedExecution, recordedExecutionOf, unpairedOf } from "./recorded-execution";
export { checkIdempotencyKey, claimKey, type IdempotentKind, requestHashOf, sameRequestOrRefuse, type StoredKey, storedKey } from "./idempotency";
export { checkPrivacyCost, checkRequestShape, MAX_RELEASE_EPSILON, type PrivacyCost, PURPOSE_NAME, PURPOSE_SYNTAX, type RecordExecutionRequest } from "./request-shape";
export { specIdOf } from "./spec-id";
export { type StageOptions, stageAppend, stageAppends, type StagedAppend, type StagedArtifact, stageExecution, stageExecutions, stageSourceArtifacts } from "./stage";
export { insertRows } from "./bulk-insert";
export { mapInTurns, turnSlicer, yieldToEventLoop } from "./yield";
export { groupIdFor } from "./build-edges";
export { businessDateOf, dateOf } from "./business-date";

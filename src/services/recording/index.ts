// The recording room's one door. Every way into the store (recordExecution, batches, composites,
// OpenLineage ingestion) builds on these: a unit runs on the CommitPath; inside it, prepareExecution
// runs the lineage pipeline (plugins) over a draft and stageExecution writes its rows.
export { type CommitListener, type CommitPath, type EventJournal, type RecordingEvent, type RecordingUnit, TransactionPerUnit, type UnitScope } from "./commit-path";
export { GroupCommit, type GroupCommitOptions } from "./group-commit";
export { inferAndValidateLineage, type InferredLineage } from "./lineage-pipeline";
export { type OperationDeclarationInput, OperationRegistry } from "./operation-registry";
export { type PreparedExecution, prepareExecution, type StageableExecution } from "./prepared-execution";
export { emptyPendingRecords, type PendingRecords } from "./pending-records";
export { ExecutionRecorder } from "./record-execution";
export { type RecordedExecution, recordedExecutionOf } from "./recorded-execution";
export { checkRequestShape, type RecordExecutionRequest } from "./request-shape";
export { specIdOf } from "./spec-id";
export { stageExecution } from "./stage";
export { insertRows } from "./bulk-insert";
export { yieldToEventLoop } from "./yield";
export { groupIdFor } from "./build-edges";

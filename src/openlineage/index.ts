// The OpenLineage room's one door: ingestion of OpenLineage events (the HTTP routes and the
// ingestor the GraphQL mutation calls) and how they map onto the core (docs/openlineage.md).
export { CHUNK_EVENTS, type EventError, type EventResult, type EventResultStatus, OpenLineageIngestor, openLineageSchema, type ReceivedEvent } from "./ingestor";
export { createOpenLineage, type OpenLineage } from "./openlineage";
export { OPENLINEAGE_LIMITS } from "./limits";
export { OpenLineageReader, type OpenLineageRunRecord, type StoredEventRecord, type StoredEventSelector } from "./openlineage-reader";
export { allowEveryRequest, type AuthorizeLineageRequest, LINEAGE_BATCH_PATH, LINEAGE_PATH, type LineageRequestRecorded, useOpenLineageRoutes } from "./route";
export { DATASET_ARTIFACT_TYPE, datasetArtifactId, datasetContentHash } from "./dataset-identity";
export { INPUT_ROLE, jobOperationVersion, OUTPUT_ROLE } from "./job-operation";

// The column-lineage room's one door: column edges and dataset columns (written inside recording
// units), the recursive column closure, columns of dataset versions with their one-hop edges,
// datasets across versions, lineage coverage and column lineage as PROV-JSON.
export { COLUMN_EDGE_TYPES, type ColumnEdgeDraft, type ColumnEdgeRecord, type ColumnEdgeType, type ColumnRef, columnKey, type DatasetColumnRecord } from "./column-records";
export { stageColumnEdges, stageDatasetColumns } from "./stage-columns";
export { type ColumnServices, createColumnServices } from "./column-services";
export { type ColumnClosure, type ColumnClosureNode, type ColumnClosureQuery, DEFAULT_COLUMN_CLOSURE_NODES, MAX_COLUMN_CLOSURE_NODES } from "./column-closure";
export type { ColumnView } from "./column-reader";
export { MAX_DATASET_VERSIONS } from "./dataset-reader";
export { COVERAGE_THRESHOLD, DEFAULT_COVERAGE_ITEMS, type LineageCoverage, MAX_COVERAGE_ITEMS, type OpaqueNode, type UnresolvedColumn } from "./coverage";
export { type ColumnProvJsonDocument, columnQualifiedId } from "./column-prov-json";
export { columnReads, type DatasetColumnLineage, type DatasetColumnLineageQuery } from "./heavy-reads";

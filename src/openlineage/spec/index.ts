// The official OpenLineage JSON Schemas (Apache-2.0, see LICENSE beside them), copied from OpenLineage at
// commit 8f02abfb7a252783b95df79f443edb13959bf52c: the event schema (2-0-2) and every facet schema it references.
// Imported rather than read from disk, so the build carries them; compiled once (./../schema-validator.ts).
import openLineage from "./OpenLineage.json";
import baseSubsetDatasetFacet from "./facets/BaseSubsetDatasetFacet.json";
import catalogDatasetFacet from "./facets/CatalogDatasetFacet.json";
import columnLineageDatasetFacet from "./facets/ColumnLineageDatasetFacet.json";
import dataQualityAssertionsDatasetFacet from "./facets/DataQualityAssertionsDatasetFacet.json";
import dataQualityMetricsDatasetFacet from "./facets/DataQualityMetricsDatasetFacet.json";
import dataQualityMetricsInputDatasetFacet from "./facets/DataQualityMetricsInputDatasetFacet.json";
import datasetTypeDatasetFacet from "./facets/DatasetTypeDatasetFacet.json";
import datasetVersionDatasetFacet from "./facets/DatasetVersionDatasetFacet.json";
import datasourceDatasetFacet from "./facets/DatasourceDatasetFacet.json";
import documentationDatasetFacet from "./facets/DocumentationDatasetFacet.json";
import documentationJobFacet from "./facets/DocumentationJobFacet.json";
import environmentVariablesRunFacet from "./facets/EnvironmentVariablesRunFacet.json";
import errorMessageRunFacet from "./facets/ErrorMessageRunFacet.json";
import executionParametersRunFacet from "./facets/ExecutionParametersRunFacet.json";
import externalQueryRunFacet from "./facets/ExternalQueryRunFacet.json";
import extractionErrorRunFacet from "./facets/ExtractionErrorRunFacet.json";
import hierarchyDatasetFacet from "./facets/HierarchyDatasetFacet.json";
import inputStatisticsInputDatasetFacet from "./facets/InputStatisticsInputDatasetFacet.json";
import jobDependenciesRunFacet from "./facets/JobDependenciesRunFacet.json";
import jobTypeJobFacet from "./facets/JobTypeJobFacet.json";
import lifecycleStateChangeDatasetFacet from "./facets/LifecycleStateChangeDatasetFacet.json";
import lineageFacet from "./facets/LineageFacet.json";
import nominalTimeRunFacet from "./facets/NominalTimeRunFacet.json";
import outputStatisticsOutputDatasetFacet from "./facets/OutputStatisticsOutputDatasetFacet.json";
import ownershipDatasetFacet from "./facets/OwnershipDatasetFacet.json";
import ownershipJobFacet from "./facets/OwnershipJobFacet.json";
import parentRunFacet from "./facets/ParentRunFacet.json";
import processingEngineRunFacet from "./facets/ProcessingEngineRunFacet.json";
import sQLJobFacet from "./facets/SQLJobFacet.json";
import schemaDatasetFacet from "./facets/SchemaDatasetFacet.json";
import sourceCodeJobFacet from "./facets/SourceCodeJobFacet.json";
import sourceCodeLocationJobFacet from "./facets/SourceCodeLocationJobFacet.json";
import storageDatasetFacet from "./facets/StorageDatasetFacet.json";
import symlinksDatasetFacet from "./facets/SymlinksDatasetFacet.json";
import tagsDatasetFacet from "./facets/TagsDatasetFacet.json";
import tagsJobFacet from "./facets/TagsJobFacet.json";
import tagsRunFacet from "./facets/TagsRunFacet.json";
import testRunFacet from "./facets/TestRunFacet.json";

type JsonSchema = { $id: string } & Record<string, unknown>;

export const EVENT_SCHEMA: JsonSchema = openLineage;

export const FACET_SCHEMAS: readonly JsonSchema[] = [
  baseSubsetDatasetFacet,
  catalogDatasetFacet,
  columnLineageDatasetFacet,
  dataQualityAssertionsDatasetFacet,
  dataQualityMetricsDatasetFacet,
  dataQualityMetricsInputDatasetFacet,
  datasetTypeDatasetFacet,
  datasetVersionDatasetFacet,
  datasourceDatasetFacet,
  documentationDatasetFacet,
  documentationJobFacet,
  environmentVariablesRunFacet,
  errorMessageRunFacet,
  executionParametersRunFacet,
  externalQueryRunFacet,
  extractionErrorRunFacet,
  hierarchyDatasetFacet,
  inputStatisticsInputDatasetFacet,
  jobDependenciesRunFacet,
  jobTypeJobFacet,
  lifecycleStateChangeDatasetFacet,
  lineageFacet,
  nominalTimeRunFacet,
  outputStatisticsOutputDatasetFacet,
  ownershipDatasetFacet,
  ownershipJobFacet,
  parentRunFacet,
  processingEngineRunFacet,
  sQLJobFacet,
  schemaDatasetFacet,
  sourceCodeJobFacet,
  sourceCodeLocationJobFacet,
  storageDatasetFacet,
  symlinksDatasetFacet,
  tagsDatasetFacet,
  tagsJobFacet,
  tagsRunFacet,
  testRunFacet,
];

import { type KeysetPage, MAX_COUNTED_LISTED } from "../pagination";
import {
  type ArtifactFilter,
  type ArtifactListing,
  countArtifacts,
  countDatasets,
  countJobs,
  countNamespaces,
  countPipelines,
  type DatasetFilter,
  type DatasetListing,
  type JobFilter,
  type JobListing,
  type LastRun,
  lastRunsOfOperations,
  lastRunsOfPipelines,
  listArtifacts,
  listDatasets,
  listJobs,
  listNamespaces,
  listPipelines,
  type NamespaceListing,
  type PipelineFilter,
  type PipelineListing,
  runCounts,
  stepCounts,
} from "./listings";
import { countHits, type SearchPage, type SearchReader, type SearchRequest, searchPage } from "./search";

/** Search pages at 20 hits by default, 100 at most; autocomplete answers 10 by default, 50 at most. */
export const SEARCH_PAGE = { default: 20, max: 100 } as const;
export const AUTOCOMPLETE_PAGE = { default: 10, max: 50 } as const;

/** Hits counted for a search's totalCount, at most (above: null). */
export const MAX_COUNTED_HITS = 1_000;

/** The discovery room as the rest of the server sees it, over one read connection. */
export interface Discovery {
  search(request: SearchRequest): Promise<SearchPage>;
  /** How many hits a search has, up to MAX_COUNTED_HITS (null above). */
  count(request: Omit<SearchRequest, "first" | "after">): Promise<number | null>;
  namespaces(filter: { prefix?: string | null }, page: KeysetPage<string>): Promise<NamespaceListing[]>;
  datasets(filter: DatasetFilter, page: KeysetPage<number>): Promise<DatasetListing[]>;
  jobs(filter: JobFilter, page: KeysetPage<number>): Promise<JobListing[]>;
  pipelines(filter: PipelineFilter, page: KeysetPage<number>): Promise<PipelineListing[]>;
  artifacts(filter: ArtifactFilter, page: KeysetPage<number>): Promise<ArtifactListing[]>;
  /** How many each listing takes with a filter, up to MAX_COUNTED_LISTED (null above). */
  listed: {
    namespaces(filter: { prefix?: string | null }): Promise<number | null>;
    datasets(filter: DatasetFilter): Promise<number | null>;
    jobs(filter: JobFilter): Promise<number | null>;
    pipelines(filter: PipelineFilter): Promise<number | null>;
    artifacts(filter: ArtifactFilter): Promise<number | null>;
  };
  lastRunsOfOperations(operationIds: readonly string[]): Promise<(LastRun | null)[]>;
  lastRunsOfPipelines(pipelines: readonly string[]): Promise<(LastRun | null)[]>;
  runCounts(operationIds: readonly string[]): Promise<number[]>;
  stepCounts(pipelines: readonly string[]): Promise<number[]>;
}

/**
 * The discovery room over a read connection. `readLaneRest`: where a SQLite search lane over many
 * candidates reads on (the server's heavy-read threads: services.ts); without it, on `reader`.
 */
export function createDiscovery(reader: SearchReader, readLaneRest?: SearchReader["readLaneRest"]): Discovery {
  const searcher: SearchReader = readLaneRest ? { provider: reader.provider, readRows: (sql, params) => reader.readRows(sql, params), readLaneRest } : reader;
  return {
    search: (request) => searchPage(searcher, request),
    count: (request) => countHits(searcher, request, MAX_COUNTED_HITS),
    namespaces: (filter, page) => listNamespaces(reader, filter, page),
    datasets: (filter, page) => listDatasets(reader, filter, page),
    jobs: (filter, page) => listJobs(reader, filter, page),
    pipelines: (filter, page) => listPipelines(reader, filter, page),
    artifacts: (filter, page) => listArtifacts(reader, filter, page),
    listed: {
      namespaces: (filter) => countNamespaces(reader, filter, MAX_COUNTED_LISTED),
      datasets: (filter) => countDatasets(reader, filter, MAX_COUNTED_LISTED),
      jobs: (filter) => countJobs(reader, filter, MAX_COUNTED_LISTED),
      pipelines: (filter) => countPipelines(reader, filter, MAX_COUNTED_LISTED),
      artifacts: (filter) => countArtifacts(reader, filter, MAX_COUNTED_LISTED),
    },
    lastRunsOfOperations: (ids) => lastRunsOfOperations(reader, ids),
    lastRunsOfPipelines: (names) => lastRunsOfPipelines(reader, names),
    runCounts: (ids) => runCounts(reader, ids),
    stepCounts: (names) => stepCounts(reader, names),
  };
}

import type { KeysetPage } from "../pagination";
import {
  type ArtifactListing,
  type DatasetListing,
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
  datasets(filter: { namespace: string; prefix?: string | null }, page: KeysetPage<number>): Promise<DatasetListing[]>;
  jobs(filter: { namespace?: string | null; prefix?: string | null }, page: KeysetPage<number>): Promise<JobListing[]>;
  pipelines(filter: { prefix?: string | null }, page: KeysetPage<number>): Promise<PipelineListing[]>;
  artifacts(filter: { artifactType?: string | null; namePrefix?: string | null }, page: KeysetPage<number>): Promise<ArtifactListing[]>;
  lastRunsOfOperations(operationIds: readonly string[]): Promise<(LastRun | null)[]>;
  lastRunsOfPipelines(pipelines: readonly string[]): Promise<(LastRun | null)[]>;
  runCounts(operationIds: readonly string[]): Promise<number[]>;
  stepCounts(pipelines: readonly string[]): Promise<number[]>;
}

export function createDiscovery(reader: SearchReader): Discovery {
  return {
    search: (request) => searchPage(reader, request),
    count: (request) => countHits(reader, request, MAX_COUNTED_HITS),
    namespaces: (filter, page) => listNamespaces(reader, filter, page),
    datasets: (filter, page) => listDatasets(reader, filter, page),
    jobs: (filter, page) => listJobs(reader, filter, page),
    pipelines: (filter, page) => listPipelines(reader, filter, page),
    artifacts: (filter, page) => listArtifacts(reader, filter, page),
    lastRunsOfOperations: (ids) => lastRunsOfOperations(reader, ids),
    lastRunsOfPipelines: (names) => lastRunsOfPipelines(reader, names),
    runCounts: (ids) => runCounts(reader, ids),
    stepCounts: (names) => stepCounts(reader, names),
  };
}

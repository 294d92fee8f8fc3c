// The discovery room's one door: finding things by name. The search index is kept current inside
// recording units (indexSearchableWrites, called by the commit path's unit finisher); search and the
// listings are pure functions over a read connection, so they can run wherever one is.
export { indexSearchableWrites } from "./search-index";
export {
  checkedQuery,
  countHits,
  type GuardSubject,
  InvalidPositionError,
  type MatchedField,
  MAX_QUERY_LENGTH,
  type ReadableCheck,
  type SearchHit,
  type SearchPage,
  type SearchReader,
  type SearchRequest,
  searchPage,
} from "./search";
export { SEARCH_KINDS, type SearchKind } from "./search-kinds";
export { SEARCH_RANKS, type SearchRank, type TextRange } from "./search-text";
export { AUTOCOMPLETE_PAGE, createDiscovery, type Discovery, MAX_COUNTED_HITS, SEARCH_PAGE } from "./discovery";
export { type ArtifactListing, type DatasetListing, type JobListing, type LastRun, type NamespaceListing, type PipelineListing } from "./listings";

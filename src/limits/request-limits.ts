import { DEFAULT_COLUMN_CLOSURE_NODES, DEFAULT_COVERAGE_ITEMS, MAX_COLUMN_CLOSURE_NODES, MAX_COVERAGE_ITEMS } from "../services/columns";
import { AUTOCOMPLETE_PAGE, SEARCH_PAGE } from "../services/discovery";
import { DEFAULT_CLOSURE_NODES, MAX_CLOSURE_NODES } from "../services/lineage";
import { DEFAULT_EXPAND_PAGE, DEFAULT_GRAPH_NODES, MAX_EXPAND_PAGE, MAX_GRAPH_NODES } from "../services/lineage-graph";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../services/pagination";

/**
 * What one GraphQL request may ask for (HTTP and graphql-ws alike), checked before anything runs.
 * Each is generous for what a pipeline or a graph client sends and far below what would stall the
 * server; docs/api.md "Request limits" lists them with their codes.
 */
export const REQUEST_LIMITS = {
  /** Characters of the GraphQL document, checked before it is parsed. Large inputs belong in variables. */
  maxDocumentLength: 100_000,
  /** Brackets ({ [ ( ) nested inside one another, checked before parsing: the parser recurses on them. */
  maxDocumentNesting: 128,
  /** Lexical tokens in the document (graphql-armor max-tokens, while parsing). */
  maxTokens: 10_000,
  /**
   * Operations (queries, mutations, subscriptions) defined in one document, checked once it is parsed:
   * graphql-js validates each against the whole document, so a document of thousands holds the event
   * loop for a tenth of a second or more, and a client runs one of them per request anyway.
   */
  maxOperations: 100,
  /**
   * Fragments defined in one document, checked once it is parsed: graphql-js compares every pair of
   * fragments spread in one selection (OverlappingFieldsCanBeMerged), so 1,000 of them held the event
   * loop 230 ms and more before its own budget stopped it; 100 cost it a few milliseconds.
   */
  maxFragments: 100,
  /** Fields nested in one another (graphql-armor max-depth; fragments are not levels). */
  maxDepth: 15,
  /** Aliased fields in one operation, fragments included (graphql-armor max-aliases). */
  maxAliases: 100,
  /** Estimated cost of one operation (src/limits/query-cost.ts). */
  maxCost: 1_000_000,
  /** Selections the cost estimate counts, each fragment where it is spread; beyond, QUERY_TOO_COSTLY. */
  maxCostedSelections: 10_000,
  /** Mutation fields one request may carry: each is a write transaction. */
  maxMutations: 20,
  /** Ids one nodes(ids) call may ask for. */
  maxNodeIds: 1_000,
  /** Items of a filter list: search's and autocomplete's kinds, columnLineage's types, lineage's and provJson's artifactTypes. */
  maxFilterItems: 1_000,
  /** Executions one recordExecutions call may carry. */
  maxBatchExecutions: 500,
  /** Objects and lists nested in a JSON argument (params, metadata, inputVersions). */
  maxJsonDepth: 64,
  /**
   * Objects and arrays nested in a request body (JSON: /graphql, the OpenLineage routes), a
   * graphql-ws message or a query-string parameter, counted on the raw bytes as they arrive, before
   * anything is parsed (JSON_TOO_DEEP): room for a JSON argument at maxJsonDepth inside its input objects.
   */
  maxBodyNesting: 128,
} as const;

/** How many items a field with `first`/`last` returns when the argument is absent, and at most. */
export interface ListBound {
  default: number;
  max: number;
}

/** Connections page at 50 by default, 500 at most; closures return 1,000 artifacts (or columns) by default, 50,000 at most. */
export const CONNECTION_BOUND: ListBound = { default: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE };
export const CLOSURE_BOUND: ListBound = { default: DEFAULT_CLOSURE_NODES, max: MAX_CLOSURE_NODES };
export const COLUMN_CLOSURE_BOUND: ListBound = { default: DEFAULT_COLUMN_CLOSURE_NODES, max: MAX_COLUMN_CLOSURE_NODES };
/** lineageCoverage lists 1,000 unresolved columns and opaque nodes by default, 10,000 at most. */
export const COVERAGE_BOUND: ListBound = { default: DEFAULT_COVERAGE_ITEMS, max: MAX_COVERAGE_ITEMS };

/** lineageGraph returns 200 nodes besides its roots by default, 5,000 at most; an expand page 50 neighbours, 500 at most. */
export const GRAPH_BOUND: ListBound = { default: DEFAULT_GRAPH_NODES, max: MAX_GRAPH_NODES };
export const EXPAND_BOUND: ListBound = { default: DEFAULT_EXPAND_PAGE, max: MAX_EXPAND_PAGE };

/** Fields whose `first` has bounds of its own rather than a connection's page: closures count artifacts, graphs nodes, search its hits. */
export const CLOSURE_FIELDS: Readonly<Record<string, ListBound>> = {
  "Query.lineageGraph": GRAPH_BOUND,
  "Query.expand": EXPAND_BOUND,
  "Query.lineage": CLOSURE_BOUND,
  "Query.provJson": CLOSURE_BOUND,
  "Query.columnLineage": COLUMN_CLOSURE_BOUND,
  "Query.lineageCoverage": COVERAGE_BOUND,
  "Query.search": SEARCH_PAGE,
  "Query.autocomplete": AUTOCOMPLETE_PAGE,
};

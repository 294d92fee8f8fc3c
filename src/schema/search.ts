import { withheld } from "../auth/pothos";
import { AUTOCOMPLETE_PAGE, checkedQuery, InvalidPositionError, MAX_COUNTED_HITS, MAX_QUERY_LENGTH, type ReadableCheck, SEARCH_PAGE, SEARCH_RANKS, type SearchHit, type SearchKind, type TextRange } from "../services/discovery";
import { InvalidCursorError, PageSizeError } from "../services/errors";
import { decodeCursor, encodeCursor } from "../services/pagination";
import { ArtifactRef, DatasetRefObject } from "./artifact";
import { builder } from "./builder";
import type { GraphQLContext } from "./context";
import { ExecutionRef } from "./execution";
import { OperationRef } from "./operation";

/**
 * Search and autocomplete (docs: "Search"): the GraphQL side of the discovery room. What a hit
 * opens is loaded through the types' own loaders; a column's description is searched only for a
 * viewer holding the clearance for each of its tags (the redaction rule, src/auth/pothos).
 */

const SearchKindEnum = builder.enumType("SearchKind", {
  description: "What kind of thing a hit is; `kinds` narrows a search to some.",
  values: {
    ARTIFACT: { description: "An artifact, by its original name, its type or its id (a dataset version is found as its dataset, or by its id)." },
    DATASET: { description: "A dataset (OpenLineage namespace and name) across its versions; it opens its newest version." },
    COLUMN: { description: "A column of a dataset (`namespace/name.field`), by its name or its description; it opens the newest version that has it." },
    JOB: { description: "A registered operation (op_…) or an OpenLineage job (`job:<namespace>/<name>`), by its name or namespace." },
    PIPELINE: { description: "A pipeline, by its name (`pipeline:<name>`)." },
    RUN: { description: "An execution, by its runId or the start of it (an OpenLineage run: the UUID its producer gave it)." },
    POLICY_TAG: { description: "A policy tag (`tag:<TAG>`)." },
  } satisfies Record<SearchKind, unknown>,
});

const SearchRankEnum = builder.enumType("SearchRank", {
  description: "How a hit matched, best first; hits are listed by rank.",
  values: {
    EXACT: { description: "The whole text is the query (case of A–Z ignored)." },
    PREFIX: { description: "The text starts with the query." },
    WORD: { description: "A word of the text starts with the query (words start after a space or ASCII punctuation: _ . / - : …). Queries of two characters or more." },
    SUBSTRING: { description: "The query is somewhere in the text. Queries of three characters or more." },
    WORDS: {
      description:
        "Each word of the query starts a word of the text, in any order and whatever separates them (`customer orders` finds `raw/customer_orders.csv`). Queries of two words or more, one of them two characters or more; after every hit of the better ranks.",
    },
  } satisfies Record<(typeof SEARCH_RANKS)[number], unknown>,
});

const SearchFieldEnum = builder.enumType("SearchField", {
  description: "What of a hit the query matched.",
  values: {
    LABEL: { description: "Its label." },
    KEYWORDS: { description: "Its second name: an artifact's type, a dataset's or column's own name, an OpenLineage job's namespace." },
    ID: { description: "Its id (art_…, run_…, op_…), or the UUID of an OpenLineage run." },
    DESCRIPTION: { description: "A column's description (searched only where you may read it)." },
  },
});

const TextRangeObject = builder.objectRef<TextRange>("TextRange").implement({
  description: "A range of a text that matched, for highlighting: UTF-16 offsets, end exclusive.",
  fields: (t) => ({
    start: t.exposeInt("start", { description: "UTF-16 offset of the range's first character." }),
    end: t.exposeInt("end", { description: "UTF-16 offset just past the range's last character (exclusive)." }),
  }),
});

const SearchMatchObject = builder.objectRef<SearchHit["matched"]>("SearchMatch").implement({
  description: "The text of a hit the query matched, with the query's occurrences in it.",
  fields: (t) => ({
    field: t.field({ type: SearchFieldEnum, description: "Which text of the hit it is.", resolve: (m) => m.field }),
    text: t.exposeString("text", { description: "The text: the label, the keywords, the id or a column's description." }),
    highlights: t.field({ type: [TextRangeObject], description: "The query's occurrences in `text`, left to right, not overlapping.", resolve: (m) => m.highlights }),
  }),
});

const SearchHitObject = builder.objectRef<SearchHit>("SearchHit").implement({
  description: "One thing search found.",
  fields: (t) => ({
    kind: t.field({ type: SearchKindEnum, description: "What kind of thing it is.", resolve: (h) => h.kind }),
    id: t.exposeID("id", {
      description:
        "What to open. ARTIFACT: its art_… id; DATASET: its newest version's art_… id; COLUMN: `col:<art_id>:<field>` (the newest version that has it; the field URI-encoded); RUN: run_…; JOB: op_… for a registered operation, `job:<namespace>/<name>` for an OpenLineage job; PIPELINE: `pipeline:<name>`; POLICY_TAG: `tag:<TAG>`.",
    }),
    label: t.exposeString("label", { description: "An artifact's original name, `namespace/name`, `namespace/name.field`, a job's or pipeline's name, a runId, a tag." }),
    detail: t.exposeString("detail", { nullable: true, description: "One line of context: an artifact's type, a dataset's namespace, a run's operation, status and time…" }),
    rank: t.field({ type: SearchRankEnum, description: "How well it matched: its best match (see SearchRank).", resolve: (h) => h.rank }),
    highlights: t.field({ type: [TextRangeObject], description: "The query's occurrences in `label`, whatever it matched (empty when it does not occur there; `matched` says what matched).", resolve: (h) => h.highlights }),
    matched: t.field({ type: SearchMatchObject, description: "The text the query matched and where.", resolve: (h) => h.matched }),
    artifact: t.field({ type: ArtifactRef, nullable: true, description: "ARTIFACT: itself; DATASET: its newest version; COLUMN: the newest version that has it.", resolve: (h) => h.artifactId }),
    execution: t.field({ type: ExecutionRef, nullable: true, description: "RUN: the execution.", resolve: (h) => h.runId }),
    operation: t.field({ type: OperationRef, nullable: true, description: "JOB: the operation (an OpenLineage job's too).", resolve: (h) => h.operationId }),
    dataset: t.field({
      type: DatasetRefObject,
      nullable: true,
      description: "DATASET and COLUMN: the dataset, across its versions.",
      resolve: (h) => (h.dataset ? { ...h.dataset, version: null } : null),
    }),
  }),
});

interface SearchEdge {
  cursor: string;
  node: SearchHit;
}
interface SearchConnection {
  edges: SearchEdge[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  count: () => Promise<number | null>;
}

const SearchHitEdgeObject = builder.objectRef<SearchEdge>("SearchHitEdge").implement({
  description: "One hit of a page of search results, with its cursor.",
  fields: (t) => ({
    cursor: t.exposeString("cursor", { description: "Pass it as `after` for the hits after this one, with the same query and kinds (else INVALID_CURSOR)." }),
    node: t.field({ type: SearchHitObject, description: "The hit.", resolve: (e) => e.node }),
  }),
});

const SearchConnectionObject = builder.objectRef<SearchConnection>("SearchConnection").implement({
  description: "Hits, best first (see SearchRank), each thing once.",
  fields: (t) => ({
    edges: t.field({ type: [SearchHitEdgeObject], description: "This page's hits, best first.", resolve: (c) => c.edges }),
    pageInfo: t.field({
      type: builder.pageInfoRef(),
      description: "hasNextPage: more hits follow; pass endCursor as `after` for them. hasPreviousPage is true when `after` was given.",
      resolve: (c) => c.pageInfo,
    }),
    totalCount: t.int({ nullable: true, description: `How many hits there are in all, counted up to ${MAX_COUNTED_HITS.toLocaleString("en-US")}; null above.`, resolve: (c) => c.count() }),
  }),
});

const SEARCH_CURSOR = "search";
const KINDS = "Find only things of these kinds; omitted or empty: every kind.";

/** Whether the viewer may read what each column's tags guard: the redaction rule itself. */
const readableBy =
  (ctx: GraphQLContext): ReadableCheck =>
  async (subjects) =>
    (await withheld(ctx, subjects.map((s) => ({ kind: "COLUMN", artifactId: s.artifactId, field: s.field })))).map((isWithheld) => !isWithheld);

function pageSize(field: string, value: number | null | undefined, bound: { readonly default: number; readonly max: number }): number {
  if (value === null || value === undefined) return bound.default;
  if (!Number.isInteger(value) || value < 0 || value > bound.max) throw new PageSizeError(field, value, bound.max);
  return value;
}

builder.queryFields((t) => ({
  search: t.field({
    type: SearchConnectionObject,
    description:
      "Things by name (docs: Search): artifacts, datasets, columns, jobs, pipelines, runs and policy tags, best match first — EXACT, PREFIX, WORD, SUBSTRING, then WORDS (a query's words in any order) — with what matched for highlighting. `kinds` narrows it; `first`: default 20, at most 100.",
    args: {
      query: t.arg.string({
        required: true,
        description: `What to look for, trimmed: 1 to ${MAX_QUERY_LENGTH} characters without control characters (else INVALID_ARGUMENT). Case of A–Z is ignored.`,
      }),
      kinds: t.arg({ type: [SearchKindEnum], description: KINDS }),
      first: t.arg.int({ defaultValue: SEARCH_PAGE.default, description: `Most hits on the page: default ${SEARCH_PAGE.default}, at most ${SEARCH_PAGE.max} (above, or negative, is PAGE_SIZE).` }),
      after: t.arg.string({ description: "A hit's cursor from an earlier page of the same query and kinds: the hits after it. Any other is INVALID_CURSOR." }),
    },
    resolve: async (_root, args, ctx): Promise<SearchConnection> => {
      const first = pageSize("first", args.first, SEARCH_PAGE);
      const query = checkedQuery("query", args.query);
      const kinds = (args.kinds ?? null) as SearchKind[] | null;
      const after = args.after ? decodeCursor(SEARCH_CURSOR, "after", args.after, () => true) : null;
      const canRead = readableBy(ctx);
      let page;
      try {
        page = await ctx.services.discovery.search({ query, kinds, first, after, canRead, signal: ctx.signal });
      } catch (error) {
        if (error instanceof InvalidPositionError) throw new InvalidCursorError("after", args.after!);
        throw error;
      }
      const edges = page.hits.map((hit) => ({ cursor: encodeCursor(SEARCH_CURSOR, hit.position), node: hit }));
      return {
        edges,
        pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: after !== null, startCursor: edges[0]?.cursor ?? null, endCursor: edges[edges.length - 1]?.cursor ?? null },
        count: () => ctx.services.discovery.count({ query, kinds, canRead, signal: ctx.signal }),
      };
    },
  }),
  autocomplete: t.field({
    type: [SearchHitObject],
    description: "For a search box: the best hits for what is typed so far, ranked as `search` ranks them (an empty prefix has none). `first`: default 10, at most 50.",
    args: {
      prefix: t.arg.string({
        required: true,
        description: `What is typed so far, trimmed: at most ${MAX_QUERY_LENGTH} characters, no control characters (else INVALID_ARGUMENT); empty gives no hits.`,
      }),
      kinds: t.arg({ type: [SearchKindEnum], description: KINDS }),
      first: t.arg.int({ defaultValue: AUTOCOMPLETE_PAGE.default, description: `Most hits: default ${AUTOCOMPLETE_PAGE.default}, at most ${AUTOCOMPLETE_PAGE.max} (above, or negative, is PAGE_SIZE).` }),
    },
    resolve: async (_root, args, ctx) => {
      const first = pageSize("first", args.first, AUTOCOMPLETE_PAGE);
      const query = checkedQuery("prefix", args.prefix, true);
      if (query.length === 0 || first === 0) return [];
      return (await ctx.services.discovery.search({ query, kinds: (args.kinds ?? null) as SearchKind[] | null, first, canRead: readableBy(ctx), signal: ctx.signal })).hits;
    },
  }),
}));


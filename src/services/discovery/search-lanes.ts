import { isIdOfKind } from "../ids";
import { comparedText, searchedText } from "./search-documents";
import { ftsPhrase, markedMatchesAtLeast, phraseAtLeast, type QueryPhrases, likePattern, SEPARATOR_RUN, TRIGRAM_LETTERS, trigramContainsPattern, trigramText, wordStartsQuery } from "./search-phrases";
import { DOCUMENT_KINDS, type DocumentKind, idRangeOf, keyedKinds } from "./search-kinds";
import { isSeparatorCode, prefixUpperBound, type SearchRank, START_MARK, WORD_MARK } from "./search-text";
import { postgresCompared, sqliteCompared, sqliteFold } from "./search-text-sql";
import { SEARCHED_LENGTH } from "./search-documents";
import type { DatabaseProvider } from "../../db/database-url";
import { stopCheckSql } from "../../db/statement-stop";
import { Params } from "./sql-runner";

/**
 * The order of hits (docs: "Search"): by rank, and within a rank by what matched — an id, the label,
 * the keywords (EXACT and PREFIX only: a second name, compared whole), a guarded text (a column's
 * description; WORD, SUBSTRING and WORDS only) — each a lane. A thing is listed once, in the first lane it
 * matches: each lane leaves out what the lanes before it hold. Within a lane, hits of EXACT and PREFIX
 * come kind by kind (DOCUMENT_KINDS) in order of their folded text, those of WORD and SUBSTRING kind by
 * kind, newest first (the index's id order); ids come runs, jobs, artifacts. The WORDS lanes come last:
 * what a query of several words finds beyond its phrase.
 */
export type Field = "label" | "keywords" | "guarded";
export type Lane = { source: "id"; rank: "EXACT" | "PREFIX" } | { source: "entry"; field: Field; rank: SearchRank };

export const LANES: readonly Lane[] = [
  { source: "id", rank: "EXACT" },
  { source: "entry", field: "label", rank: "EXACT" },
  { source: "entry", field: "keywords", rank: "EXACT" },
  { source: "id", rank: "PREFIX" },
  { source: "entry", field: "label", rank: "PREFIX" },
  { source: "entry", field: "keywords", rank: "PREFIX" },
  { source: "entry", field: "label", rank: "WORD" },
  { source: "entry", field: "guarded", rank: "WORD" },
  { source: "entry", field: "label", rank: "SUBSTRING" },
  { source: "entry", field: "guarded", rank: "SUBSTRING" },
  { source: "entry", field: "label", rank: "WORDS" },
  { source: "entry", field: "guarded", rank: "WORDS" },
];

const RANK_ORDER: readonly SearchRank[] = ["EXACT", "PREFIX", "WORD", "SUBSTRING", "WORDS"];
const atLeast = (rank: SearchRank | null, floor: SearchRank) => rank !== null && RANK_ORDER.indexOf(rank) <= RANK_ORDER.indexOf(floor);

/** Whether a lane can hold anything for this query (its rank is one the query has). */
export function laneApplies(lane: Lane, phrases: QueryPhrases, ids: IdQuery | null): boolean {
  if (lane.source === "id") return ids !== null && (lane.rank === "PREFIX" || ids.exact.length > 0);
  return phrases.ranks.includes(lane.rank);
}

/**
 * What the lanes before lane `index` hold, as conditions a later lane's entries must not meet: per
 * field, matching at the best rank an earlier lane of that field reached (a field's ranks include
 * the better ones), and the id lanes' ids. What an earlier lane of the guarded field listed it listed
 * only to a viewer who may read the text, which only the caller can check (`guarded`: that lane's rank).
 */
export function exclusionsBefore(index: number, phrases: QueryPhrases): { fields: Partial<Record<Field, SearchRank>>; ids: "EXACT" | "PREFIX" | null; guarded: SearchRank | null } {
  const fields: Partial<Record<Field, SearchRank>> = {};
  let ids: "EXACT" | "PREFIX" | null = null;
  for (const lane of LANES.slice(0, index)) {
    if (lane.source === "id") {
      ids = ids === "PREFIX" ? "PREFIX" : lane.rank;
      continue;
    }
    if (!phrases.ranks.includes(lane.rank)) continue;
    const known = fields[lane.field];
    if (!known || RANK_ORDER.indexOf(lane.rank) > RANK_ORDER.indexOf(known)) fields[lane.field] = lane.rank;
  }
  // In a lane of another field, a guarded text excludes an entry only where the viewer may read it: the caller checks that.
  const own = LANES[index];
  const guarded = own.source === "entry" && own.field !== "guarded" ? (fields.guarded ?? null) : null;
  if (guarded) delete fields.guarded;
  return { fields, ids, guarded };
}

/** An entry's texts, as a lane reads them. */
export interface EntryTexts {
  key: string;
  label: string;
  keywords: string | null;
  guarded: string | null;
}

/**
 * The best rank at which a stored field matches, by the index's own rules: EXACT and PREFIX on the
 * compared text (labels and keywords), WORD and SUBSTRING on the marked, searched text (labels and
 * guarded texts) — the JavaScript twin of the SQL conditions, for checking a lane's candidates.
 */
export function fieldRank(texts: EntryTexts, field: Field, phrases: QueryPhrases): SearchRank | null {
  const text = texts[field];
  if (text === null) return null;
  if (field !== "guarded") {
    const compared = comparedText(text);
    if (compared === phrases.folded) return "EXACT";
    if (compared.startsWith(phrases.folded)) return "PREFIX";
  }
  if (field === "keywords") return null;
  const marked = searchedText(text);
  if (phrases.ranks.includes("WORD") && marked.includes(phrases.phrase.WORD)) return "WORD";
  if (phrases.ranks.includes("SUBSTRING") && marked.includes(phrases.phrase.SUBSTRING)) return "SUBSTRING";
  if (phrases.ranks.includes("WORDS") && markedMatchesAtLeast(marked, phrases, "WORDS")) return "WORDS";
  return null;
}

/**
 * Whether an entry belongs to lane `index` (the viewer's clearance aside): its lane field matches at
 * exactly the lane's rank, no earlier lane of another field holds it, and no id lane does.
 */
export function inLane(texts: EntryTexts, index: number, phrases: QueryPhrases, ids: IdQuery | null): boolean {
  const lane = LANES[index];
  if (lane.source !== "entry" || fieldRank(texts, lane.field, phrases) !== lane.rank) return false;
  const excluded = exclusionsBefore(index, phrases);
  for (const [field, rank] of Object.entries(excluded.fields) as [Field, SearchRank][]) if (field !== lane.field && atLeast(fieldRank(texts, field, phrases), rank)) return false;
  return !isIdListed(texts.key, ids, excluded.ids);
}

/** Whether an entry's key (an artifact's or an operation's id) is one an id lane of at most `rank` listed. */
function isIdListed(key: string, ids: IdQuery | null, rank: "EXACT" | "PREFIX" | null): boolean {
  if (!ids || !rank) return false;
  if (rank === "EXACT") return ids.exact.includes(key) && !key.startsWith("run_");
  return ids.prefixes.some(({ family, prefix }) => family !== "run" && key.startsWith(prefix));
}

export { atLeast as rankAtLeast };

/**
 * A query that may be an id or the start of one: `art_…`, `run_…`, `op_…`, or at least four
 * characters of a hash or UUID (a run's id is the UUID its producer gave it, after `run_`).
 */
export interface IdQuery {
  /** Whole ids it names (one per family it may be). */
  exact: string[];
  /** Families it may start an id of, with the prefix: run_, op_, art_. */
  prefixes: { family: "run" | "op" | "art"; prefix: string }[];
}

export function idQueryOf(folded: string): IdQuery | null {
  const prefixed = /^(art|run|op)_[0-9a-f-]*$/.exec(folded);
  const families: ("run" | "op" | "art")[] = prefixed ? [prefixed[1] as "run" | "op" | "art"] : /^[0-9a-f][0-9a-f-]{3,}$/.test(folded) ? ["run", "op", "art"] : [];
  if (families.length === 0) return null;
  const prefixes = families.filter((family) => family === "run" || !folded.includes("-", prefixed ? 4 : 0)).map((family) => ({ family, prefix: prefixed ? folded : `${family}_${folded}` }));
  const exact = prefixes.filter(({ family, prefix }) => isIdOfKind(prefix, family === "art" ? "artifact" : family === "op" ? "operation" : "run")).map(({ prefix }) => prefix);
  return { exact, prefixes };
}

/** The entry columns a lane reads, in this order (SearchRow). */
export const ENTRY_SELECT = `e."id", e."kind", e."key", e."label", e."keywords", e."guarded", e."guardArtifactId", e."guardField", e."target", e."namespace", e."detail"`;
const ENTRY_COLUMNS = ENTRY_SELECT.split(",").length;

/**
 * SQLite: whether a stored text (an SQL expression) matches the query at `rank` or better, as
 * fieldRank reads its marked text (the marked text holds the rank's phrase), without building the
 * marked text (that costs sixty-odd replace() calls a row): the fold of its searched part (its first
 * SEARCHED_LENGTH characters) is the query (EXACT), starts with it (PREFIX), has it at its start or
 * after a separator (WORD), or holds it (SUBSTRING) — marks follow every separator in both, so a
 * phrase of the marked query lies in the marked text exactly where the folded query lies in the
 * folded text; at WORDS, that or each of the query's words at its start or after a separator.
 * test/discovery/search-index.test.ts checks it against fieldRank.
 */
export function sqliteMatchesAtLeast(text: string, phrases: QueryPhrases, rank: SearchRank, bind: (value: unknown) => string): string {
  const folded = sqliteFold(`substr(${text}, 1, ${SEARCHED_LENGTH})`);
  if (rank === "WORDS") {
    const better = sqliteMatchesAtLeast(text, phrases, "SUBSTRING", bind);
    if (phrases.words.length === 0) return better;
    return `(${better} OR (${phrases.words.map((phrase) => sqliteStartsAWord(folded, phrase.slice(WORD_MARK.length), bind)).join(" AND ")}))`;
  }
  // The best rank at or below `rank` the query has (as phraseAtLeast falls back).
  const order: SearchRank[] = ["EXACT", "PREFIX", "WORD", "SUBSTRING"];
  let effective: SearchRank = "EXACT";
  for (let i = order.indexOf(rank); i >= 0; i--) {
    if (phrases.ranks.includes(order[i])) {
      effective = order[i];
      break;
    }
  }
  const query = phrases.folded;
  switch (effective) {
    case "EXACT":
      return `(${folded} = ${bind(query)})`;
    case "PREFIX":
      return `(${folded} >= ${bind(query)} AND ${folded} < ${bind(phrases.upper)})`;
    case "WORD":
      return sqliteStartsAWord(folded, query, bind);
    case "SUBSTRING":
    case "WORDS":
      return `(instr(${folded}, ${bind(query)}) > 0)`;
  }
}

/**
 * PostgreSQL: whether a marked text (an SQL expression: a stored `…Marked` column) matches the query
 * at `rank` or better, as markedMatchesAtLeast reads it. strpos, not LIKE: LIKE would let the planner
 * AND in the trigram index, whose every candidate is then rechecked whole (the word index's too).
 */
export function postgresMatchesAtLeast(marked: string, phrases: QueryPhrases, rank: SearchRank, bind: (value: unknown) => string): string {
  const better = `strpos(${marked}, ${bind(phraseAtLeast(phrases, rank))}) > 0`;
  if (rank !== "WORDS" || phrases.words.length === 0) return better;
  return `(${better} OR (${phrases.words.map((word) => `strpos(${marked}, ${bind(word)}) > 0`).join(" AND ")}))`;
}

/** SQLite: a folded text (an SQL expression) has `text` at its start or after a separator. */
function sqliteStartsAWord(folded: string, text: string, bind: (value: unknown) => string): string {
  const glob = globLiteral(text);
  return `(${folded} GLOB ${bind(`${glob}*`)} OR ${folded} GLOB ${bind(`*${GLOB_SEPARATOR}${glob}*`)})`;
}

/** A GLOB class of the separators (./search-text.ts isSeparatorCode, NUL aside: no stored text holds it). */
const GLOB_SEPARATOR = "[\u0001-/:-@[-`{-\u007f]";
/** A text as a GLOB pattern matching it literally. */
const globLiteral = (text: string) => text.replace(/[*?[]/g, (c) => `[${c}]`);

/** SQL conditions on an entry `e` (the entries of ARTIFACT and JOB are keyed by their ids). */
class Conditions {
  constructor(
    readonly provider: DatabaseProvider,
    readonly params: Params,
    readonly phrases: QueryPhrases,
  ) {}

  /** The entry's field matches at `rank` or better, by its folded text (EXACT, PREFIX) or its marked text (PostgreSQL). */
  atLeast(field: Field, rank: SearchRank): string {
    if (field !== "guarded" && (rank === "EXACT" || rank === "PREFIX")) {
      const column = `e."${field}Folded"`;
      return rank === "EXACT" ? `${column} = ${this.params.bind(this.phrases.folded)}` : `(${column} >= ${this.params.bind(this.phrases.folded)} AND ${column} < ${this.params.bind(this.phrases.upper)})`;
    }
    const bind = (value: unknown) => this.params.bind(value);
    return this.provider === "sqlite" ? sqliteMatchesAtLeast(`e."${field}"`, this.phrases, rank, bind) : postgresMatchesAtLeast(`e."${field}Marked"`, this.phrases, rank, bind);
  }

  /** The entry is none an id lane of at most `rank` listed. */
  notAnId(ids: IdQuery | null, rank: "EXACT" | "PREFIX" | null): string {
    if (!ids || !rank) return "";
    const keyed = ids.prefixes.filter((p) => p.family !== "run");
    if (keyed.length === 0) return "";
    const matches =
      rank === "EXACT"
        ? ids.exact.filter((id) => !id.startsWith("run_")).map((id) => `e."key" = ${this.params.bind(id)}`)
        : keyed.map(({ prefix }) => `(e."key" >= ${this.params.bind(prefix)} AND e."key" < ${this.params.bind(prefixUpperBound(prefix))})`);
    return matches.length === 0 ? "" : ` AND NOT (e."kind" IN ('ARTIFACT', 'JOB') AND (${matches.join(" OR ")}))`;
  }
}

/** One EXACT or PREFIX lane as comparedLanesSql reads it: its kinds (from the cursor's kind on), after `after` (an entry id) in its first kind. */
export interface ComparedLane {
  index: number;
  kinds: readonly DocumentKind[];
  after: number | null;
}

/**
 * EXACT and PREFIX lanes of label or keywords, consecutive ones in one statement: per lane and kind,
 * the entries in order of the folded text (one index range each), `limit` at most per kind. Rows come
 * lane by lane (the lane's place in `lanes`, then the kind's branch), so the first `limit` of them are
 * what reading the lanes one after another would give: a lane leaves out what the lanes before it hold
 * by its own conditions (exclusionsBefore), not by what they returned. One statement, not one per
 * lane: a lane that finds nothing costs its index lookups and no round trip.
 */
export function comparedLanesSql(provider: DatabaseProvider, phrases: QueryPhrases, lanes: readonly ComparedLane[], limit: number, ids: IdQuery | null): { sql: string; params: unknown[] } {
  const params = new Params(provider);
  const c = new Conditions(provider, params, phrases);
  const branches = lanes.flatMap(({ index, kinds, after }, place) => {
    const lane = LANES[index] as { field: "label" | "keywords"; rank: "EXACT" | "PREFIX" };
    const excluded = exclusionsBefore(index, phrases);
    const column = `e."${lane.field}Folded"`;
    return kinds.map((kind, branch) => {
      let where = `e."kind" = ${params.bind(kind)} AND ${c.atLeast(lane.field, lane.rank)}`;
      if (lane.rank === "PREFIX") where += ` AND ${column} <> ${params.bind(phrases.folded)}`;
      for (const [field, rank] of Object.entries(excluded.fields) as [Field, SearchRank][]) where += ` AND NOT coalesce(${c.atLeast(field, rank)}, FALSE)`;
      where += c.notAnId(ids, excluded.ids);
      if (after !== null && branch === 0) where += ` AND (${column}, e."id") > (SELECT s."${lane.field}Folded", s."id" FROM "SearchEntry" s WHERE s."id" = ${params.bind(after)})`;
      return `SELECT * FROM (SELECT ${place} AS "lane", ${branch} AS "branch", ${ENTRY_SELECT}, ${column} AS "sortKey" FROM "SearchEntry" e WHERE ${where} ORDER BY ${column}, e."id" LIMIT ${params.bind(limit)}) b${place}_${branch}`;
    });
  });
  return { sql: `SELECT * FROM (${branches.join(" UNION ALL ")}) u ORDER BY "lane", "branch", "sortKey", "id"`, params: params.values };
}

/**
 * SQLite, a WORD, SUBSTRING or WORDS lane: the entries of a run of consecutive kinds (one id range), newest
 * first, after `after` (an entry id: newer ones have lower ids), `limit` at most. Candidates come from
 * the FTS5 table (texts holding the phrase's rarest trigrams) in rowid order, each kept or not on its
 * folded texts (sqliteMatchesAtLeast) as it comes, so the statement stops at `limit` entries of the
 * lane. Only the lane's entries leave the database (inLane is the same rule in JavaScript).
 * PostgreSQL's indexes keep no order: pgWindowLaneSql and pgIndexedLaneSql.
 *
 * With `candidates`, over at most that many candidates, so that one statement's work has a bound
 * whatever the phrase (search.ts INLINE_CANDIDATES, WORDS_CANDIDATES): words common on their own that
 * no text holds together (`orders scores` on the benchmark's store) have thousands of candidates and
 * no hit, and a statement reading them all held the event loop 480 ms. Rows then: [0, ...ENTRY_SELECT]
 * for the lane's entries, and last, when they are fewer than `limit`, [1, the last candidate's id, how
 * many candidates were read]. The candidates are read once and kept (`streamed` false: a WORDS lane,
 * whose lookup by two trigrams of each word costs FTS5 most of the statement, and which seldom fills),
 * or read as they come, so the statement stops at `limit` entries, and read again for the marker only
 * when it did not (kept, 4,096 candidates cost `customer_orders/2024-05` 7 ms more, where it needs a few).
 */
export function sqliteLaneSql(
  phrases: QueryPhrases,
  index: number,
  range: { low: number; high: number },
  after: number | null,
  limit: number,
  ids: IdQuery | null,
  /** The FTS5 query for the candidates (candidateQuery). */
  lookup: string,
  candidates: number | null = null,
  streamed = false,
): { sql: string; params: unknown[] } {
  const lane = LANES[index] as { field: "label" | "guarded"; rank: "WORD" | "SUBSTRING" | "WORDS" };
  const params = new Params("sqlite");
  const low = after === null ? range.low : Math.max(range.low, after + 1);
  const table = searchedTable(lane.field);
  // Bound in the statement's order: SQLite's parameters are positional.
  if (candidates === null) {
    // The rest of a lane, over any number of candidates (search.ts laneRestRows): it can end itself (statement-stop.ts: its thread's budget, and whether its client went away).
    const where = `"${table}" MATCH ${params.bind(lookup)} AND t.rowid >= ${params.bind(low)} AND t.rowid < ${params.bind(range.high)} AND ${stopCheckSql("t.rowid")} AND ${inLaneSql("sqlite", params, phrases, index, ids)}`;
    return { sql: `SELECT ${ENTRY_SELECT} FROM "${table}" t JOIN "SearchEntry" e ON e."id" = t.rowid WHERE ${where} ORDER BY t.rowid LIMIT ${params.bind(limit)}`, params: params.values };
  }
  if (!streamed) {
    const read = `WITH c AS MATERIALIZED (SELECT rowid AS "id" FROM "${table}" WHERE "${table}" MATCH ${params.bind(lookup)} AND rowid >= ${params.bind(low)} AND rowid < ${params.bind(range.high)} ORDER BY rowid LIMIT ${params.bind(candidates)}) `;
    const hits = `SELECT * FROM (SELECT 0 AS "marker", ${ENTRY_SELECT} FROM c JOIN "SearchEntry" e ON e."id" = c."id" WHERE ${inLaneSql("sqlite", params, phrases, index, ids)} ORDER BY c."id" LIMIT ${params.bind(limit)})`;
    const marker = `SELECT 1, (SELECT max("id") FROM c), (SELECT count(*) FROM c)${", NULL".repeat(ENTRY_COLUMNS - 2)}`;
    return { sql: `${read}${hits} UNION ALL ${marker}`, params: params.values };
  }
  // The compound's LIMIT ends it at `limit` entries, before the marker's candidates are read again.
  const slice = () => `(SELECT rowid AS "id" FROM "${table}" WHERE "${table}" MATCH ${params.bind(lookup)} AND rowid >= ${params.bind(low)} AND rowid < ${params.bind(range.high)} ORDER BY rowid LIMIT ${params.bind(candidates)})`;
  const hits = `SELECT * FROM (SELECT 0 AS "marker", ${ENTRY_SELECT} FROM ${slice()} c JOIN "SearchEntry" e ON e."id" = c."id" WHERE ${inLaneSql("sqlite", params, phrases, index, ids)} ORDER BY c."id" LIMIT ${params.bind(limit)})`;
  const marker = `SELECT 1, max(m."id"), count(*)${", NULL".repeat(ENTRY_COLUMNS - 2)} FROM ${slice()} m`;
  return { sql: `${hits} UNION ALL ${marker} LIMIT ${params.bind(limit)}`, params: params.values };
}

/**
 * PostgreSQL: a WORD, SUBSTRING or WORDS lane's candidates by an index — the word index (WORD: the
 * query's words and pairs), the trigram index (SUBSTRING: by the whole phrase or by the pattern of its
 * rarer fragments, fragmentPattern) or either (WORDS: wordsLookup). A SUBSTRING phrase without a
 * trigram (trigramFindable) is found by reading the kind's texts: null, no index condition.
 */
function indexedCandidates(
  params: Params,
  phrases: QueryPhrases,
  lane: { field: "label" | "guarded"; rank: "WORD" | "SUBSTRING" | "WORDS" },
  lookup: string | WordsLookup | null,
  characters: TrigramCharacters,
): string | null {
  const trigrams = `"provgraph_search_trigrams"(e."${lane.field}Marked")`;
  if (lane.rank === "SUBSTRING") {
    const pattern = [lookup as string | null, trigramContainsPattern(phrases.phrase.SUBSTRING)].find((like) => like !== null && trigramFindable(like, characters));
    return pattern === undefined ? null : `${trigrams} LIKE ${params.bind(pattern)}`;
  }
  const words = lane.rank === "WORDS" ? ((lookup as WordsLookup | null) ?? wordsLookup(phrases.words, 0, [], characters)) : { lexemes: phrases.lexemes() };
  if ("trigrams" in words) return words.trigrams.map((like) => `${trigrams} LIKE ${params.bind(like)}`).join(" AND ");
  return `"provgraph_search_words"(e."labelMarked", e."guardedMarked") @@ ${params.bind(words.lexemes)}::tsquery`;
}

/**
 * The entries of a kind whose fragments (or words) are counted, in its first window's statement: enough to
 * tell a rare fragment from a common one, few enough to cost little beside the window.
 */
const FRAGMENT_SAMPLE = 256;
/**
 * The sample is taken in this many runs of consecutive entries, spread evenly over the kind's ids, from
 * its newest to its oldest: a sample of the newest entries alone says nothing of the older ones, and a
 * store's names follow the time they were recorded in. Where every artifact recorded in the last months
 * names 2025, the newest 256 held no `2024`, which was then taken for rare and looked up alone: every
 * artifact named 2024, half the store, read to keep the newest 64 (`orders 2024`, 1.4 s in one statement).
 */
const SAMPLE_RUNS = 16;
/** The shortest fragment whose trigrams the trigram index looks up on its own. */
const MIN_FRAGMENT_LENGTH = 3;
/** A fragment in at most this share of a kind's entries is rare: it is looked up without the others. */
export const RARE_FRAGMENT = 0.005;
/** A fragment in this share of a kind's entries or more is left to the statement's check: its trigrams' posting lists cost more to read than the candidates they remove. */
const COMMON_FRAGMENT = 0.5;

/**
 * PostgreSQL, a SUBSTRING lane: the phrase's fragments — its runs of letters and digits at least
 * MIN_FRAGMENT_LENGTH long, in order — when it has two or more (else none: the phrase is looked up
 * whole). The trigram index ANDs every trigram of a pattern and reads each one's posting list through,
 * about 3 ms for a trigram held by every artifact of the benchmark's store (`part`, `csv`): a pasted
 * path took 40 ms in one statement to find its few matches by its one rare run of digits.
 */
export function substringFragments(phrase: string): string[] {
  const fragments = runsOf(phrase).filter(isFragment);
  return fragments.length >= 2 ? fragments : [];
}

/** A phrase's runs between separators, in order: its fragments, and words too short to be one. */
const runsOf = (phrase: string) => phrase.split(SEPARATOR_RUN).filter((run) => run.length > 0);
const isFragment = (run: string) => [...run].length >= MIN_FRAGMENT_LENGTH;

/**
 * The LIKE pattern a SUBSTRING lane's index lookup takes for a kind, from how many of the entries
 * its windows read (`scanned`) held each fragment (`held`): the rare fragments (their posting lists
 * are short, and a window that met none of them says little more), else the rarest, every fragment
 * not common and every one beside words too short to be fragments, in the phrase's order, each with
 * the separators and short words beside it in `phrase` and the characters past them (fragmentSpans);
 * null (the whole phrase) when that is every fragment, when
 * every fragment is common, or when the windows read nothing. Any text holding the phrase holds these
 * pieces of it in that order, so the pattern only widens the candidates, which the statement checks
 * for the phrase itself.
 *
 * Why the separators: without a rare fragment the candidates are every text holding the kept ones,
 * and a fragment in 6% of a kind's entries is 61,000 artifacts of the benchmark's store, each read
 * and refused (`fraud part`: `%fraud%`, 275 ms in one statement). The trigrams across a separator
 * (`udS` and `dSp`: fraud, a space, part) are what a phrase of several words has that its words do
 * not: here no text held them, and the lookup took 0.2 ms. A rare fragment keeps its bare trigrams:
 * beside it a separator's trigram is mostly a common one (`H00` of every `part-00NNN`), a posting list
 * read through for few candidates fewer. And when every fragment is common, one of them is no filter (the
 * trigram index folds the separators' letters to small ones: `partS` is `parts`, `%partS%` brought
 * 243,000 candidates for `part part part`, 900 ms); the whole phrase's separators are (15,000, 74 ms).
 * Why the short words, and a common fragment beside them: they are what narrow a date or a number, and
 * only as a piece with it (`mer_orders/2024-11` looked up `%merUordersP2%`, every customer_orders name
 * of a year: 390 ms; the whole phrase, `2024`'s long posting lists and all, 74 ms).
 */
export function fragmentPattern(phrase: string, fragments: readonly string[], scanned: number, held: readonly number[]): string | null {
  if (fragments.length === 0 || scanned <= 0) return null;
  const density = held.map((n) => n / scanned);
  const rare = density.flatMap((d, i) => (d <= RARE_FRAGMENT ? [i] : []));
  if (rare.length === fragments.length) return null;
  if (rare.length > 0) return likePattern(rare.map((i) => fragments[i]));
  const rarest = density.indexOf(Math.min(...density));
  // Every fragment common: what narrows the candidates is the separators between them (the whole phrase).
  if (density[rarest] >= COMMON_FRAGMENT) return null;
  // A common fragment beside words too short to be fragments is kept too: with it, they narrow (a date's month and day).
  const besideShort = fragments.map(() => false);
  let place = -1;
  for (const run of runsOf(phrase)) {
    if (isFragment(run)) place++;
    else besideShort[Math.max(0, place)] = true;
  }
  const kept = density.flatMap((d, i) => (i === rarest || d < COMMON_FRAGMENT || besideShort[i] ? [i] : []));
  if (kept.length === fragments.length) return null;
  return likePattern(fragmentSpans(phrase, fragments, kept));
}

/** A letter or digit: a character pg_trgm keeps in a word (one beyond ASCII too, in a UTF-8 locale; a piece only widens the candidates). */
const WORD_CHARACTER = /[\p{L}\p{Nd}]/u;

/**
 * The kept fragments of `phrase` as the trigram index reads them (trigramText), each with what lies
 * between it and its neighbouring fragments — separators, and words too short to be fragments — and the
 * letter or digit of a neighbour beyond a separator; kept fragments that meet become one piece. Pieces of
 * trigramText(phrase), in order and apart: a text holding the phrase holds each of them. The short
 * words are what narrow a date (`025-05-22/part`: `%025H05H22Pp%`, 1,300 candidates; `%025H0%`, 362,000).
 */
export function fragmentSpans(phrase: string, fragments: readonly string[], kept: readonly number[]): string[] {
  const text = trigramText(phrase);
  // Where each fragment lies: the fragments are the phrase's runs of three or more letters and digits, in order, so the
  // next one found is this one (one that is not, which substringFragments never gives: the whole phrase, a piece every
  // text holding it holds).
  const places: { at: number; end: number }[] = [];
  for (const fragment of fragments) {
    const at = text.indexOf(fragment, places.length > 0 ? places[places.length - 1].end : 0);
    if (at < 0) return [text];
    places.push({ at, end: at + fragment.length });
  }
  const spans: { from: number; to: number }[] = [];
  for (const i of [...kept].sort((a, b) => a - b)) {
    // Out to the neighbouring fragments, and past a separator's letter, the neighbour's letter or digit: the index folds the
    // separator's letter to a small one, so `jsonS` is `jsons` there, its one more trigram `ons`, which 48,000 of the
    // benchmark's artifacts hold without `json 2025` (216 ms to read and refuse); `jsonS2` adds `ns2`, which none holds.
    // A separator the index does not turn into a letter is a break: nothing past it is kept.
    const before = i > 0 ? places[i - 1].end : 0;
    const after = i + 1 < places.length ? places[i + 1].at : text.length;
    let from = places[i].at;
    while (from > before && WORD_CHARACTER.test(text[from - 1])) from--;
    if (from === before && before > 0 && TRIGRAM_LETTERS.includes(text[before]) && WORD_CHARACTER.test(text[before - 1])) from--;
    let to = places[i].end;
    while (to < after && WORD_CHARACTER.test(text[to])) to++;
    if (to === after && after < text.length && TRIGRAM_LETTERS.includes(text[after - 1]) && WORD_CHARACTER.test(text[after])) to++;
    const last = spans[spans.length - 1];
    if (last && from <= last.to) last.to = Math.max(last.to, to);
    else spans.push({ from, to });
  }
  return spans.map(({ from, to }) => text.slice(from, to));
}

/**
 * How a WORDS lane's index lookup finds a kind's candidates: by the trigram index, a LIKE pattern per
 * word, ANDed; or by the word index, each word a lexeme's start (wordStartsQuery).
 */
export type WordsLookup = { trigrams: readonly string[] } | { lexemes: string };

/** The words a WORDS lane looks up in PostgreSQL's trigram index at most (a query may hold sixty). */
const MAX_TRIGRAM_WORDS = 4;

/**
 * The lookup a WORDS lane's index read takes for a kind, from how many of the entries its windows read
 * (`scanned`) held each of the query's words at a word's start (`held`, per phrase of `words`; nothing
 * counted: each taken for rare). A one-character word is looked up only where the windows found it
 * rare (it starts a great many lexemes, `s` and `2` of most texts, and holds no trigram): `orders v`
 * read every one of the 60,000 artifacts holding `orders` to find none (200 ms), where `'v':*` finds
 * them at once. The statement checks every word.
 *
 * - Rare words, by the word index, each a lexeme's start: their posting lists are short, and the trigram
 *   index rechecks each of its candidates (translate() and LIKE, about 10 µs a row against 2 µs).
 * - Else every word (the rarest MAX_TRIGRAM_WORDS), by the trigram index, when there are two or more
 *   and each holds a trigram (trigramFindable). The lane comes to the index without a rare word only
 *   when its windows found the words seldom together, so what narrows the candidates is the
 *   intersection, and the word index must read a word's start as every lexeme it starts, which
 *   PostgreSQL ORs into one bitmap before it intersects anything: 12 ms for a word in 60,000 artifacts
 *   of the benchmark's store (`'orders':* & 'scores':*` 32 ms to find none; `'2024':* & '2025':*`,
 *   words each in half the artifacts, 112 ms for 98). The trigram index's entries are exact, and
 *   PostgreSQL intersects them by skipping through their posting lists: 10 and 64 ms.
 * - Else, by the word index, the rarest word and every one not common (as fragmentPattern keeps
 *   fragments).
 */
/** A WORDS lane's word (its mark, then the word) of one character: looked up only where rare (wordsLookup). */
export const isOneCharacterWord = (phrase: string) => [...phrase.slice(WORD_MARK.length)].length <= 1;

export function wordsLookup(words: readonly string[], scanned: number, held: readonly number[], characters: TrigramCharacters): WordsLookup {
  const counted = words.map((phrase, i) => ({ phrase, word: phrase.slice(WORD_MARK.length), density: scanned > 0 ? held[i] / scanned : 0 }));
  const looked = counted.filter(({ phrase, density }) => !isOneCharacterWord(phrase) || (scanned > 0 && density <= RARE_FRAGMENT));
  // queryWords keeps a word of two characters or more in every query of several words; were there none, every word.
  if (looked.length === 0) return { lexemes: wordStartsQuery(words.map((phrase) => phrase.slice(WORD_MARK.length))) };
  const rare = looked.filter(({ density }) => density <= RARE_FRAGMENT);
  if (rare.length > 0) return { lexemes: wordStartsQuery(rare.map(({ word }) => word)) };
  // The rarest few: each common trigram's posting list costs a few milliseconds to read, and a few words narrow enough.
  const patterns = [...looked].sort((a, b) => a.density - b.density).slice(0, MAX_TRIGRAM_WORDS).map(({ word }) => trigramContainsPattern(word));
  if (looked.length > 1 && patterns.every((like) => trigramFindable(like, characters))) return { trigrams: patterns };
  const rarest = looked.reduce((best, word) => (word.density < best.density ? word : best), looked[0]);
  return { lexemes: wordStartsQuery(looked.filter((word) => word === rarest || word.density < COMMON_FRAGMENT).map(({ word }) => word)) };
}

/**
 * The characters PostgreSQL's trigram index makes trigrams of: runs of letters and digits — beyond ASCII
 * too where the database's LC_CTYPE is a UTF-8 locale ("unicode"), ASCII's alone where it is C ("ascii";
 * search.ts asks the database once, trigramCharactersOf).
 */
export type TrigramCharacters = "unicode" | "ascii";

/**
 * Whether PostgreSQL's trigram index can look a LIKE pattern up: whether it holds three word characters
 * in a row. A pattern with none makes the index read every entry it holds: 4 s for `🎉🎉🎉` among the
 * benchmark's million texts, where reading the texts themselves takes 376 ms.
 */
export function trigramFindable(pattern: string, characters: TrigramCharacters): boolean {
  return (characters === "unicode" ? /[\p{L}\p{Nd}]{3}/u : /[A-Za-z0-9]{3}/).test(pattern);
}

/**
 * PostgreSQL, a WORD, SUBSTRING or WORDS lane by windows: per kind, the lane's entries among the kind's
 * next `window` entries from `low` (newest first, by the primary key, each checked as it comes, so a
 * common word stops early), and the ids of the window's last and first entries (`windowEnd`; null: the
 * window held the rest of the kind; `windowStart`, but in a WORD lane: with the window's size, how
 * densely the kind's entries lie among the ids, which one sequence hands out to every kind). Neither
 * index of words or trigrams keeps an order, so a lane read through one reads every match to keep the newest few: 41,000
 * rows and 2–4 s for a date on the benchmark's store. Rows: [kind's place, windowEnd, windowStart, held
 * (the sample's size, its holders of each fragment, then of the `joint` ones together), ...ENTRY_SELECT];
 * a kind's hits, then its marker row.
 */
export function pgWindowLaneSql(
  phrases: QueryPhrases,
  index: number,
  /** `first`: the kind's first window, which counts the fragments. */
  parts: readonly { place: number; low: number; high: number; window: number; first: boolean }[],
  limit: number,
  ids: IdQuery | null,
  /** A SUBSTRING lane's fragments (substringFragments) or a WORDS lane's words, counted in a sample of the kind (FRAGMENT_SAMPLE) by a kind's first window, for the index lookup that may follow. */
  fragments: readonly string[] = [],
  /** Fragments (by place in `fragments`) whose joint holders are counted too, after the others. */
  joint: readonly number[] = [],
): { sql: string; params: unknown[] } {
  const lane = LANES[index] as { field: "label" | "guarded" };
  const params = new Params("postgres");
  const inLane = inLaneSql("postgres", params, phrases, index, ids);
  const holds = (fragment: string) => `strpos(e."${lane.field}Marked", ${params.bind(fragment)}) > 0`;
  // The sample's size, how many of its entries hold each fragment, and how many hold the joint ones together.
  const countsOf = (sample: string) => {
    const held = fragments.map((fragment) => `count(*) FILTER (WHERE ${holds(fragment)})::int`);
    if (joint.length > 0) held.push(`count(*) FILTER (WHERE ${joint.map((i) => holds(fragments[i])).join(" AND ")})::int`);
    return `(SELECT ARRAY[count(*)::int, ${held.join(", ")}] FROM (${sample}) e)`;
  };
  const branches = parts.flatMap(({ place, low, high, window, first }) => {
    const range = `e."id" >= ${params.bind(low)} AND e."id" < ${params.bind(high)}`;
    const scanned = `SELECT * FROM "SearchEntry" e WHERE ${range} ORDER BY e."id" LIMIT ${params.bind(window)}`;
    // The kind's first entry in the range: the window's start, and where the sample's runs begin.
    const firstId = `(SELECT min(e."id") FROM "SearchEntry" e WHERE ${range})`;
    // SAMPLE_RUNS runs from the kind's first entry in the range to the range's end (a kind's ids are dense: one sequence, handed out downwards).
    const sample = () => {
      const from = firstId;
      const to = `${params.bind(high)}::bigint`;
      const run = `SELECT e."id", e."${lane.field}Marked" FROM "SearchEntry" e WHERE e."id" >= ${from} + ((${to} - ${from}) * g.k) / ${SAMPLE_RUNS} AND e."id" < ${to} ORDER BY e."id" LIMIT ${FRAGMENT_SAMPLE / SAMPLE_RUNS}`;
      // Each entry once: in a kind of fewer entries than the sample the runs overlap.
      return `SELECT DISTINCT ON (s."id") s."${lane.field}Marked" FROM generate_series(0, ${SAMPLE_RUNS - 1}) g(k) CROSS JOIN LATERAL (${run}) s`;
    };
    const counts = fragments.length === 0 || !first ? "NULL::int[]" : countsOf(sample());
    // Asked where reading on is weighed against the index's candidates (pg-window-costs.ts): not by a WORD lane.
    const start = LANES[index].rank === "WORD" ? "NULL::bigint" : firstId;
    return [
      `(SELECT ${place} AS "place", NULL::bigint AS "windowEnd", NULL::bigint AS "windowStart", NULL::int[] AS "held", ${ENTRY_SELECT} FROM (${scanned}) e WHERE ${inLane} ORDER BY e."id" LIMIT ${params.bind(limit)})`,
      `(SELECT ${place}, (SELECT e."id" FROM "SearchEntry" e WHERE ${range} ORDER BY e."id" OFFSET ${params.bind(window - 1)} LIMIT 1), ${start}, ${counts}${", NULL".repeat(ENTRY_COLUMNS)})`,
    ];
  });
  return { sql: branches.join(" UNION ALL "), params: params.values };
}

/**
 * PostgreSQL, a WORD, SUBSTRING or WORDS lane by the index: per kind whose windows were full, the lane's
 * entries after them, found by the kind's index (a word there is sparse: the windows found too few). The ids
 * bounded and ordered as `id + 0`, so that the planner cannot walk the primary key instead, checking
 * every row of the kind (it guesses a range of ids holds few rows: 9,000 datasets took 27 ms).
 * Rows: [kind's place, ...ENTRY_SELECT].
 */
export function pgIndexedLaneSql(
  phrases: QueryPhrases,
  index: number,
  /** `lookup`: a SUBSTRING lane's for the kind (fragmentPattern; null: the whole phrase), a WORDS lane's (wordsLookup; null: every word). */
  parts: readonly { place: number; kind: DocumentKind; after: number; high: number; lookup?: string | WordsLookup | null }[],
  limit: number,
  ids: IdQuery | null,
  characters: TrigramCharacters,
): { sql: string; params: unknown[] } {
  const lane = LANES[index] as { field: "label" | "guarded"; rank: "WORD" | "SUBSTRING" | "WORDS" };
  const params = new Params("postgres");
  const inLane = inLaneSql("postgres", params, phrases, index, ids);
  const branches = parts.map(
    // The kind as a literal (one of DOCUMENT_KINDS), for the planner to take that kind's own index.
    ({ place, kind, after, high, lookup }) => {
      const candidates = indexedCandidates(params, phrases, lane, lookup ?? null, characters);
      return `(SELECT ${place} AS "place", ${ENTRY_SELECT} FROM "SearchEntry" e WHERE e."kind" = '${kind}' AND e."id" + 0 > ${params.bind(after)} AND e."id" + 0 < ${params.bind(high)}${candidates === null ? "" : ` AND ${candidates}`} AND ${inLane} ORDER BY e."id" + 0 LIMIT ${params.bind(limit)})`;
    },
  );
  return { sql: branches.join(" UNION ALL "), params: params.values };
}

/** An entry `e` is in WORD, SUBSTRING or WORDS lane `index`, exactly: its field at the lane's rank, in no earlier lane (the viewer's clearance aside). */
function inLaneSql(provider: DatabaseProvider, params: Params, phrases: QueryPhrases, index: number, ids: IdQuery | null): string {
  const lane = LANES[index] as { field: "label" | "guarded"; rank: "WORD" | "SUBSTRING" | "WORDS" };
  const c = new Conditions(provider, params, phrases);
  const excluded = exclusionsBefore(index, phrases);
  let where = c.atLeast(lane.field, lane.rank);
  for (const [field, rank] of Object.entries(excluded.fields) as [Field, SearchRank][]) where += ` AND NOT coalesce(${c.atLeast(field, rank)}, FALSE)`;
  return where + c.notAnId(ids, excluded.ids);
}

/** The most trigrams of a phrase whose frequency is probed (spread over the phrase). */
const MAX_PROBED_TRIGRAMS = 12;
/** Matches a probe reads of a trigram, newest first: enough to tell rare from common. */
export const PROBE_CAP = 256;
/**
 * Two probes whose PROBE_CAP-th texts lie at most this many entries apart tell nothing between their
 * trigrams: mostly they are one word's, always together. Those are taken from both ends of the phrase,
 * so that a lookup of two words asks for both (`orders sco`: `ord`, `rde`, `der`, all of orders, had
 * 67,000 candidates, each read and refused).
 */
const PROBE_ALIKE = 64;

/** The trigrams a candidate lookup asks for: the rarest few (each candidate is checked anyway). */
const LOOKED_UP_TRIGRAMS = 3;
/** The trigrams a lookup by each word asks for from each word. */
const TRIGRAMS_PER_WORD = 2;

/** Runs of three letters or digits or more in a phrase: its words, as far as a trigram can be inside one. */
const WORD_RUN = /[\p{L}\p{N}]{3,}/gu;
/** The most trigrams probed besides MAX_PROBED_TRIGRAMS, one inside each word they missed. */
const MAX_WORD_TRIGRAMS = 6;

/**
 * The distinct trigrams of some phrases: all of them, or MAX_PROBED_TRIGRAMS spread over them and one
 * inside each word those missed. A long phrase's rarest trigrams are mostly one word's: the 12 spread
 * over the 45 of `staging/fraud_scores/2024-11-30/part-47201.json` held none of `47201` (3,000 names
 * hold `720`), and its lookup took `par`, `son` and `20` at a word's start, every part, json and date:
 * 380,000 candidates, 1 s on SQLite.
 */
export function trigramsOf(phrases: string | readonly string[]): string[] {
  const trigrams = [
    ...new Set(
      (typeof phrases === "string" ? [phrases] : phrases).flatMap((phrase) => {
        const points = [...phrase];
        return points.slice(0, Math.max(0, points.length - 2)).map((_, i) => points.slice(i, i + 3).join(""));
      }),
    ),
  ];
  if (trigrams.length <= MAX_PROBED_TRIGRAMS) return trigrams;
  const spread = new Set(Array.from({ length: MAX_PROBED_TRIGRAMS }, (_, i) => trigrams[Math.round((i * (trigrams.length - 1)) / (MAX_PROBED_TRIGRAMS - 1))]));
  // And one inside each word the spread missed (its middle), MAX_WORD_TRIGRAMS at most.
  const words = (typeof phrases === "string" ? [phrases] : phrases).flatMap((phrase) => [...phrase.matchAll(WORD_RUN)].map(([word]) => [...word]));
  const missed = words.filter((points) => !points.some((_, i) => i + 3 <= points.length && spread.has(points.slice(i, i + 3).join(""))));
  for (const points of missed.slice(0, MAX_WORD_TRIGRAMS)) {
    const from = Math.floor((points.length - 3) / 2);
    spread.add(points.slice(from, from + 3).join(""));
  }
  return [...spread];
}

/**
 * SQLite: for each FTS5 query (a trigram's phrase, or wordStartQuery's), its first texts in id order
 * up to PROBE_CAP — how many, and how far into the index the last of them lies (one statement). FTS5
 * walks a conjunction of common trigrams slowly (each seek into a long doclist costs), so a lookup asks
 * for the rarest few: those with fewest texts, then those whose PROBE_CAP-th text lies furthest (the
 * sparsest).
 */
export function probeSql(table: string, queries: readonly string[]): { sql: string; params: unknown[] } {
  const sql = queries
    .map((_, i) => `SELECT ${i} AS "i", count(*) AS "n", max(m.rowid) AS "reach" FROM (SELECT rowid FROM "${table}" WHERE "${table}" MATCH ? ORDER BY rowid LIMIT ${PROBE_CAP}) m`)
    .join(" UNION ALL ");
  return { sql, params: [...queries] };
}

/**
 * How many texts a lane's rest (search.ts restLookup) counts at most for its lookup or a trigram:
 * past that they are many. Counting walks FTS5's doclists: 4–5 ms to the cap for a common trigram on
 * the benchmark's store, 8–10 ms for a lookup of three.
 */
export const REST_COUNT_CAP = 65_536;

/**
 * SQLite: for each FTS5 query, how many texts after `after` and before `high` it finds, up to `cap`
 * (REST_COUNT_CAP at most), in one statement, which can end itself as the rest's does
 * (statement-stop.ts). A probe reads only the newest PROBE_CAP texts, which tell how densely a trigram
 * lies where a lane starts, not how many texts hold it.
 */
export function restCountSql(table: string, queries: readonly string[], after: number, high: number, cap = REST_COUNT_CAP): { sql: string; params: unknown[] } {
  const sql = queries
    .map((_, i) => `SELECT ${i} AS "i", count(*) AS "n" FROM (SELECT rowid FROM "${table}" WHERE "${table}" MATCH ? AND rowid > ? AND rowid < ? AND ${stopCheckSql("rowid")} LIMIT ${Math.min(Math.max(1, Math.floor(cap)), REST_COUNT_CAP)})`)
    .join(" UNION ALL ");
  return { sql, params: queries.flatMap((query) => [query, after, high]) };
}

/** What an indexed text holds just before a word mark: the start mark, or a separator (each is followed by one; the text holds no other mark). */
const BEFORE_A_WORD = [START_MARK, ...Array.from({ length: 0x80 - 4 }, (_, i) => String.fromCharCode(4 + i)).filter((c) => isSeparatorCode(c.charCodeAt(0)))];

/**
 * SQLite: the FTS5 query for the texts in which a word starts with one character (`phrase`: a word
 * mark and that character), which makes no trigram of its own: the trigram of the mark and the
 * character with each character that can come before the mark, ORed (63 lookups, about 3 ms on the
 * benchmark's store). `orders v` read every one of the 68,000 texts holding `orders`, a thousand at
 * a time, to find none: 700 ms. Ask only for a rare character: `p` starts a word of every text.
 */
export const wordStartQuery = (phrase: string) => `(${BEFORE_A_WORD.map((c) => ftsPhrase(c + phrase)).join(" OR ")})`;

/** Probes rarest first: fewer texts, or as many lying further apart (a sort's comparator; below zero: `a` is rarer). */
export const byRarity = (a: { n: number; reach: number }, b: { n: number; reach: number }) => a.n - b.n || b.reach - a.reach;

/**
 * The FTS5 query for the candidates: the rarest trigrams by their probes, among probes alike those at
 * the phrase's ends first (PROBE_ALIKE; null: one of them is in no text). With `groups` (a WORDS lane's words, each its trigrams), the rarest TRIGRAMS_PER_WORD of each
 * first, then the rarest of the rest: for words common on their own that no text holds together,
 * whose rarest trigrams overall are one word's (`orders scores` on the benchmark's store: 68,000 texts
 * hold `scores`' rarest three, none both words; two of each, 6–12 ms in FTS5, no text). Each doclist
 * of a common trigram costs FTS5 milliseconds to walk, so this is the second lookup, not the first.
 */
export function candidateQuery(trigrams: readonly string[], probes: readonly { n: number; reach: number }[], groups: readonly (readonly string[])[] = []): string | null {
  if (probes.some(({ n }) => n === 0)) return null;
  const byProbe = trigrams.map((trigram, i) => ({ trigram, ...probes[i], spread: i < trigrams.length / 2 ? 2 * i : 2 * (trigrams.length - 1 - i) + 1 })).sort(byRarity);
  // Probes alike: the same count, the last text within PROBE_ALIKE entries of the one before. Within each such run, both ends of the phrase first.
  let run = 0;
  const ranked = byProbe
    .map((probe, i) => ({ ...probe, run: i > 0 && (probe.n !== byProbe[i - 1].n || byProbe[i - 1].reach - probe.reach > PROBE_ALIKE) ? ++run : run }))
    .sort((a, b) => a.run - b.run || a.spread - b.spread);
  const chosen: string[] = [];
  for (const group of groups) {
    for (const { trigram } of ranked.filter((probe) => group.includes(probe.trigram)).slice(0, TRIGRAMS_PER_WORD)) if (!chosen.includes(trigram)) chosen.push(trigram);
  }
  for (const { trigram } of ranked) if (chosen.length < LOOKED_UP_TRIGRAMS && !chosen.includes(trigram)) chosen.push(trigram);
  return chosen.map((trigram) => ftsPhrase(trigram)).join(" AND ");
}

/** The asked kinds the index holds entries for, cut into runs of consecutive id ranges (in DOCUMENT_KINDS order: ascending ids). */
export function kindRuns(kinds: readonly DocumentKind[]): { kinds: DocumentKind[]; low: number; high: number }[] {
  const runs: { kinds: DocumentKind[]; low: number; high: number }[] = [];
  let previous = -2;
  for (const kind of DOCUMENT_KINDS) {
    if (!kinds.includes(kind)) continue;
    const position = DOCUMENT_KINDS.indexOf(kind);
    const range = idRangeOf(kind);
    const last = runs[runs.length - 1];
    if (last && position === previous + 1) {
      last.kinds.push(kind);
      last.high = range.high;
    } else runs.push({ kinds: [kind], low: range.low, high: range.high });
    previous = position;
  }
  return runs;
}

/** The id families, in the order an id lane lists them, and what each reads. */
export const ID_FAMILIES = ["run", "op", "art"] as const;
export type IdFamily = (typeof ID_FAMILIES)[number];

/**
 * An id lane's statement for one family: the ids equal to (EXACT) or starting with (PREFIX) the
 * query, after `after`, in id order. A PREFIX lane leaves out the EXACT lane's id and the things an
 * EXACT lane of label or keywords listed.
 */
export function idLaneSql(provider: DatabaseProvider, phrases: QueryPhrases, rank: "EXACT" | "PREFIX", family: IdFamily, ids: IdQuery, after: string | null, limit: number): { sql: string; params: unknown[] } | null {
  const entry = ids.prefixes.find((p) => p.family === family);
  if (!entry) return null;
  const exact = ids.exact.find((id) => id.startsWith(`${family}_`)) ?? null;
  if (rank === "EXACT" && exact === null) return null;
  const params = new Params(provider);
  const column = family === "run" ? `x."runId"` : family === "op" ? `e."key"` : `a."id"`;
  let where = rank === "EXACT" ? `${column} = ${params.bind(exact)}` : `${column} >= ${params.bind(entry.prefix)} AND ${column} < ${params.bind(prefixUpperBound(entry.prefix))}`;
  if (rank === "PREFIX" && exact !== null) where += ` AND ${column} <> ${params.bind(exact)}`;
  if (after !== null) where += ` AND ${column} > ${params.bind(after)}`;
  // Listed already by an EXACT lane of label or keywords.
  const listedByName = (label: string, keywords: string) => `(${label} = ${params.bind(phrases.folded)} OR ${keywords} = ${params.bind(phrases.folded)})`;
  if (family === "run") {
    return {
      sql: `SELECT x."runId", x."status", x."recordedAt", o."name" FROM "Execution" x JOIN "Operation" o ON o."id" = x."operationId" WHERE ${where} ORDER BY x."runId" LIMIT ${params.bind(limit)}`,
      params: params.values,
    };
  }
  if (family === "op") {
    if (rank === "PREFIX") where += ` AND NOT ${listedByName(`e."labelFolded"`, `coalesce(e."keywordsFolded", '')`)}`;
    return { sql: `SELECT ${ENTRY_SELECT} FROM "SearchEntry" e WHERE e."kind" = 'JOB' AND ${keyedKinds("e")} AND ${where} ORDER BY e."key" LIMIT ${params.bind(limit)}`, params: params.values };
  }
  // An artifact's entry (none for a dataset version, found as its dataset) holds its name and type as the fold gives them.
  const compared = provider === "sqlite" ? sqliteCompared : postgresCompared;
  if (rank === "PREFIX") where += ` AND (a."datasetNamespace" IS NOT NULL OR NOT ${listedByName(compared(`a."originalName"`), compared(`a."artifactType"`))})`;
  return {
    sql: `SELECT a."id", a."originalName", a."artifactType", a."datasetNamespace", a."datasetName" FROM "Artifact" a WHERE ${where} ORDER BY a."id" LIMIT ${params.bind(limit)}`,
    params: params.values,
  };
}

/** SQLite: the FTS5 table of a searched field. */
export const searchedTable = (field: "label" | "guarded") => (field === "label" ? "SearchLabelText" : "SearchGuardedText");

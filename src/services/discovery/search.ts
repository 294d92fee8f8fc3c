import crypto from "node:crypto";
import type { DatabaseProvider } from "../../db/database-url";
import type { RawRows } from "../../db/direct-statements";
import { jsonParameter } from "../../db/json-list";
import { genericPlanReader, genericPlanSql } from "../../db/prepared-statements";
import { InvalidArgumentError, stopIfAborted } from "../errors";
import type { ArtifactId, OperationId, RunId } from "../ids";
import { unsafeTextReason } from "../safe-text";
import {
  type ComparedLane,
  comparedLanesSql,
  exclusionsBefore,
  type Field,
  fieldRank,
  ID_FAMILIES,
  type IdFamily,
  type IdQuery,
  idLaneSql,
  idQueryOf,
  kindRuns,
  type Lane,
  laneApplies,
  LANES,
  rankAtLeast,
  pgIndexedLaneSql,
  pgWindowLaneSql,
  sqliteLaneSql,
  searchedTable,
  substringFragments,
  fragmentPattern,
  wordsLookup,
  type TrigramCharacters,
  type WordsLookup,
  RARE_FRAGMENT,
  probeSql,
  restCountSql,
  REST_COUNT_CAP,
  byRarity,
  wordStartQuery,
  trigramsOf,
  candidateQuery,
  isOneCharacterWord,
} from "./search-lanes";
import { candidateShare, type IndexLookup, nextRead } from "./pg-window-costs";
import { columnTarget, DOCUMENT_KINDS, type DocumentKind, idRangeOf, kindOfDocumentId, parseDatasetKey, SEARCH_KINDS, type SearchKind } from "./search-kinds";
import { ftsPhrase, type QueryPhrases, queryPhrases } from "./search-phrases";
import { occurrencesOf, type SearchRank, type TextRange, WORD_MARK, wordOccurrencesOf } from "./search-text";

/** A read connection, as the worker pool's jobs get one: statements answered as rows of values. */
export interface SearchReader {
  provider: DatabaseProvider;
  readRows(sql: string, params: readonly unknown[]): Promise<RawRows>;
  /**
   * SQLite: reads the rest of a lane whose first INLINE_CANDIDATES candidates held too few of its
   * entries, off the event loop where the server can (a heavy-read thread: discovery.ts). Without
   * it, on this reader (laneRestRows).
   */
  readLaneRest?(rest: LaneRest, signal?: AbortSignal): Promise<EntryRow[]>;
}

/** The column whose tags guard a guarded text (its description). */
export interface GuardSubject {
  artifactId: string;
  field: string;
}

/** For each subject, whether the viewer may read what its tags guard (the redaction rule, src/auth/pothos). */
export type ReadableCheck = (subjects: readonly GuardSubject[]) => Promise<boolean[]>;

/** Where in a thing the query matched: its label, its keywords, its id, or its description (a column's). */
export type MatchedField = "LABEL" | "KEYWORDS" | "ID" | "DESCRIPTION";

export interface SearchHit {
  kind: SearchKind;
  /** What to open (docs: "Search"): art_…, run_…, op_…, col:<art_id>:<field>, job:<namespace>/<name>, pipeline:<name>, tag:<TAG>. */
  id: string;
  label: string;
  detail: string | null;
  rank: SearchRank;
  /** The query's occurrences in the label. */
  highlights: TextRange[];
  matched: { field: MatchedField; text: string; highlights: TextRange[] };
  /** ARTIFACT: itself; DATASET: its newest version; COLUMN: the newest version that has it. */
  artifactId: ArtifactId | null;
  runId: RunId | null;
  operationId: OperationId | null;
  dataset: { namespace: string; name: string } | null;
  column: { artifactId: ArtifactId; field: string } | null;
  /** Its place in the result, for a cursor (opaque). */
  position: string;
}

export interface SearchRequest {
  query: string;
  kinds?: readonly SearchKind[] | null;
  first: number;
  /** A hit's `position`: the hits after it. */
  after?: string | null;
  canRead: ReadableCheck;
  /** The request's: once it aborts (its client went away), the search stops before its next statement (RequestAbortedError). */
  signal?: AbortSignal;
}

export interface SearchPage {
  hits: SearchHit[];
  hasNextPage: boolean;
}

/** The longest query searched for. */
export const MAX_QUERY_LENGTH = 200;

/** A query as search reads it: trimmed, not empty, not too long, no control characters. */
export function checkedQuery(field: string, query: string, allowEmpty = false): string {
  const trimmed = query.trim();
  if (trimmed.length === 0 && !allowEmpty) throw new InvalidArgumentError(field, "must not be empty");
  if ([...trimmed].length > MAX_QUERY_LENGTH) throw new InvalidArgumentError(field, `must be at most ${MAX_QUERY_LENGTH} characters, got ${[...trimmed].length}`);
  const unsafe = unsafeTextReason(trimmed);
  if (unsafe) throw new InvalidArgumentError(field, unsafe);
  return trimmed;
}

/** A lane's rows before they become hits. */
type Found =
  | { lane: number; kind: "entry"; row: EntryRow }
  | { lane: number; kind: "run"; runId: string; status: string; recordedAt: string; operation: string }
  | { lane: number; kind: "artifact"; id: string; originalName: string; artifactType: string; dataset: { namespace: string; name: string } | null };

/** An entry a lane found, as read from SearchEntry (plain data: it crosses from a heavy-read thread). */
export interface EntryRow {
  id: number;
  kind: DocumentKind;
  key: string;
  label: string;
  keywords: string | null;
  guarded: string | null;
  guardArtifactId: string | null;
  guardField: string | null;
  target: string;
  namespace: string | null;
  detail: string | null;
}

const entryRow = (values: unknown[]): EntryRow => ({
  id: Number(values[0]),
  kind: String(values[1]) as DocumentKind,
  key: String(values[2]),
  label: String(values[3]),
  keywords: values[4] === null ? null : String(values[4]),
  guarded: values[5] === null ? null : String(values[5]),
  guardArtifactId: values[6] === null ? null : String(values[6]),
  guardField: values[7] === null ? null : String(values[7]),
  target: String(values[8]),
  namespace: values[9] === null ? null : String(values[9]),
  detail: values[10] === null ? null : String(values[10]),
});

/**
 * One page of search (docs: "Search"): the hits after `after`, by rank (EXACT, PREFIX, WORD,
 * SUBSTRING, WORDS) and within a rank by lane (./search-lanes.ts), each thing once. A guarded text (a column's
 * description) is searched only for a viewer who may read it. A pure function over a read connection:
 * it can run wherever one is (the worker pool's jobs).
 */
export async function searchPage(reader: SearchReader, request: SearchRequest): Promise<SearchPage> {
  const query = checkedQuery("query", request.query);
  const plan = planOf(query, request.kinds ?? null);
  const start = request.after ? parsePosition(request.after, plan.fingerprint) : null;
  if (request.after && !start) throw new InvalidPositionError();
  const need = request.first + 1;
  const reading = await readingFor(reader, plan, request.signal);
  const found = await readLanes(reading, plan, start, need, request.canRead);
  const page = found.slice(0, request.first);
  return { hits: await hitsOf(reading, plan, page), hasNextPage: found.length > request.first };
}

/** How many hits a query has, counted up to `cap` (null above it). */
export async function countHits(reader: SearchReader, request: Omit<SearchRequest, "first" | "after">, cap: number): Promise<number | null> {
  const plan = planOf(checkedQuery("query", request.query), request.kinds ?? null);
  const count = (await readLanes(await readingFor(reader, plan, request.signal), plan, null, cap + 1, request.canRead)).length;
  return count > cap ? null : count;
}

/**
 * The reader a request's search reads through: once the request's signal aborts (its client went
 * away), the next statement is not run and the search ends with RequestAbortedError; a lane's rest
 * takes the signal along (its heavy read stops itself: HeavyReads.run). The plan gets PostgreSQL's
 * trigram characters first, asked of `reader` itself (they are kept per reader).
 */
async function readingFor(reader: SearchReader, plan: Plan, signal: AbortSignal | undefined): Promise<SearchReader> {
  if (reader.provider === "postgres") plan.trigramCharacters = await trigramCharactersOf(reader);
  if (!signal) return reader;
  const { readLaneRest } = reader;
  return {
    provider: reader.provider,
    readRows: (sql, params) => {
      stopIfAborted(signal);
      return reader.readRows(sql, params);
    },
    ...(readLaneRest ? { readLaneRest: (rest: LaneRest) => readLaneRest(rest, signal) } : {}),
  };
}

/**
 * The lanes' hits from `start` on, in order, `need` at most. Consecutive EXACT lanes and the PREFIX
 * lane after them are read by one statement (comparedRun). On PostgreSQL every lane's statements run
 * prepared, each on one generic plan: planning one cost more than running it, and a few shapes serve
 * every query (db/prepared-statements.ts).
 */
async function readLanes(reader: SearchReader, plan: Plan, start: Position | null, need: number, canRead: ReadableCheck): Promise<Found[]> {
  const lanes = genericPlanReader(reader);
  const found: Found[] = [];
  for (let index = start?.lane ?? 0; index < LANES.length && found.length < need; ) {
    const compared = comparedRun(plan, index);
    if (compared.length > 0) {
      found.push(...(await readComparedLanes(lanes, plan, compared, start?.lane === compared[0] ? start : null, need - found.length)));
      index = compared[compared.length - 1] + 1;
      continue;
    }
    if (laneApplies(LANES[index], plan.phrases, plan.ids)) found.push(...(await readLane(lanes, plan, index, start?.lane === index ? start : null, need - found.length, canRead)));
    index++;
  }
  return found;
}

/** PostgreSQL: the characters its trigram index makes trigrams of, per reader (the database's LC_CTYPE; asked once). */
const trigramCharacters = new WeakMap<SearchReader, Promise<TrigramCharacters>>();

/** pg_trgm makes trigrams of a letter beyond ASCII where the database's LC_CTYPE is a UTF-8 locale: `show_trgm('é')` is its two, padded. */
function trigramCharactersOf(reader: SearchReader): Promise<TrigramCharacters> {
  let known = trigramCharacters.get(reader);
  if (!known) {
    known = reader.readRows(`SELECT cardinality(show_trgm('é')) > 0`, []).then(({ rows }) => (rows[0][0] === true ? "unicode" : "ascii"));
    // A failed question is asked again by the next search.
    known.catch(() => trigramCharacters.delete(reader));
    trigramCharacters.set(reader, known);
  }
  return known;
}

/** A cursor of another query (or kinds), or one edited, is not a position of this one. */
export class InvalidPositionError extends Error {}

interface Plan {
  /** SQLite: each lane's candidate query, once made. */
  lookups: Map<string, string | null>;
  /** SQLite: each trigram's probe per FTS5 table, once read (the lanes' phrases share most of their trigrams). */
  probes: Map<string, { n: number; reach: number }>;
  /** PostgreSQL: per field and kind, how many entries a SUBSTRING lane's windows sampled and how many held each fragment (fragmentsKey). */
  fragmentCounts: Map<string, { scanned: number; held: Map<string, number> }>;
  /** PostgreSQL: the characters its trigram index makes trigrams of (trigramCharactersOf; "unicode" until asked). */
  trigramCharacters: TrigramCharacters;
  query: string;
  phrases: QueryPhrases;
  ids: IdQuery | null;
  kinds: ReadonlySet<SearchKind>;
  fingerprint: string;
}

function planOf(query: string, kinds: readonly SearchKind[] | null): Plan {
  const phrases = queryPhrases(query);
  const asked = new Set<SearchKind>(kinds && kinds.length > 0 ? kinds : SEARCH_KINDS);
  const fingerprint = crypto
    .createHash("sha256")
    .update(JSON.stringify([phrases.folded, SEARCH_KINDS.filter((k) => asked.has(k))]))
    .digest("base64url")
    .slice(0, 10);
  return { lookups: new Map(), probes: new Map(), fragmentCounts: new Map(), trigramCharacters: "unicode", query, phrases, ids: idQueryOf(phrases.folded), kinds: asked, fingerprint };
}

/** A position: the query's fingerprint, the lane, the kind's or id family's place, the key (an entry id or an id). */
interface Position {
  lane: number;
  part: string;
  key: string;
}

const positionOf = (plan: Plan, lane: number, part: string, key: string | number) => `${plan.fingerprint}.${lane}.${part}.${key}`;

function parsePosition(value: string, fingerprint: string): Position | null {
  const match = /^([A-Za-z0-9_-]+)\.(\d+)\.([a-z]+)\.(.+)$/.exec(value);
  if (!match || match[1] !== fingerprint) return null;
  const lane = Number(match[2]);
  const part = match[3];
  const key = match[4];
  const shape = LANES[lane];
  if (!shape) return null;
  if (shape.source === "id") return (ID_FAMILIES as readonly string[]).includes(part) && /^[a-z]+_[0-9a-f-]+$/.test(key) ? { lane, part, key } : null;
  return part === "e" && /^\d+$/.test(key) && kindOfDocumentId(Number(key)) !== undefined ? { lane, part, key } : null;
}

const FAMILY_KINDS: Record<IdFamily, SearchKind> = { run: "RUN", op: "JOB", art: "ARTIFACT" };
/** Rows a lane reads at once when some of them may be left out after the read (guarded texts the viewer may not read, or may). */
const CHECKED_CHUNK = 64;
const MAX_CHECKED_CHUNK = 4_096;

async function readLane(reader: SearchReader, plan: Plan, index: number, after: Position | null, need: number, canRead: ReadableCheck): Promise<Found[]> {
  const lane = LANES[index];
  const provider = reader.provider;
  if (lane.source === "id") {
    const found: Found[] = [];
    const families = ID_FAMILIES.filter((family) => plan.kinds.has(FAMILY_KINDS[family]));
    for (const family of families.slice(after ? families.indexOf(after.part as IdFamily) : 0)) {
      if (found.length >= need) break;
      const statement = idLaneSql(provider, plan.phrases, lane.rank, family, plan.ids!, after?.part === family ? after.key : null, need - found.length);
      if (!statement) continue;
      const { rows } = await reader.readRows(statement.sql, statement.params);
      for (const r of rows) {
        if (family === "run") found.push({ lane: index, kind: "run", runId: String(r[0]), status: String(r[1]), recordedAt: String(r[2]), operation: String(r[3]) });
        else if (family === "op") found.push({ lane: index, kind: "entry", row: entryRow(r) });
        else found.push({ lane: index, kind: "artifact", id: String(r[0]), originalName: String(r[1]), artifactType: String(r[2]), dataset: r[3] === null ? null : { namespace: String(r[3]), name: String(r[4]) } });
      }
    }
    return found;
  }
  const kinds = laneKinds(plan, lane);
  if (kinds.length === 0) return [];
  const guardedBefore = exclusionsBefore(index, plan.phrases).guarded;
  // SQLite finds candidates by the phrase's rarest trigrams (looked up once per request); on both, the statement keeps only the lane's entries.
  const lookup = provider === "sqlite" ? await candidateLookup(reader, plan, searchedTable(lane.field as "label" | "guarded"), lane.rank === "WORDS" ? plan.phrases.words : [plan.phrases.phrase[lane.rank]]) : undefined;
  if (lookup === null) return [];
  if (provider === "sqlite" && lane.rank === "WORDS") return sqliteWordsLane(reader, plan, index, kinds, after, need, canRead, lookup!, guardedBefore);
  const filtered = lane.field === "guarded" || guardedBefore !== null;
  const found: Found[] = [];
  let from = after ? Number(after.key) : null;
  // Rows that may be left out are read in chunks that grow, so a sparse lane costs few statements.
  let chunk = CHECKED_CHUNK;
  for (const run of kindRuns(kinds)) {
    if (from !== null && run.high <= from) continue;
    for (;;) {
      const limit = filtered ? Math.max(need - found.length, chunk) : need - found.length;
      chunk = Math.min(chunk * 4, MAX_CHECKED_CHUNK);
      const rows = await laneRows(reader, plan, index, run, from, limit, lookup);
      const kept = filtered ? await keptRows(rows, lane, guardedBefore, plan.phrases, canRead) : rows;
      for (const row of kept) if (found.length < need) found.push({ lane: index, kind: "entry", row });
      if (found.length >= need || rows.length < limit) break;
      from = rows[rows.length - 1].id;
    }
    if (found.length >= need) break;
    from = null;
  }
  return found;
}

/** Candidates one statement of a WORDS lane reads at most on SQLite (sqliteLaneSql). */
const WORDS_CANDIDATES = 1_024;

/**
 * SQLite, a WORDS lane: its candidates read WORDS_CANDIDATES at a time (each statement in a turn of its
 * own once a slice is spent, db/statement-turns.ts). The candidates are first those of the words' rarest
 * trigrams; once a statement has read its whole allowance, they are many, and the lane reads on by two
 * trigrams of each word (the words' lookup), which no text misses that holds every word. A lane that
 * reads on with few entries among what it read reads the rest of the run off the event loop where the
 * reader can (wordsLaneRest), as the other lanes do: each statement over 1,024 candidates by eight
 * trigrams took 20–60 ms on the loop, and a long pasted name's lane ran a dozen of them.
 */
async function sqliteWordsLane(reader: SearchReader, plan: Plan, index: number, kinds: readonly DocumentKind[], after: Position | null, need: number, canRead: ReadableCheck, rarest: string, guardedBefore: SearchRank | null): Promise<Found[]> {
  const lane = LANES[index] as Lane & { source: "entry"; field: "label" | "guarded" };
  const filtered = lane.field === "guarded" || guardedBefore !== null;
  let lookup = rarest;
  const found: Found[] = [];
  let from = after ? Number(after.key) : null;
  for (const run of kindRuns(kinds)) {
    if (from !== null && run.high <= from) continue;
    for (;;) {
      const limit = need - found.length;
      const statement = sqliteLaneSql(plan.phrases, index, run, from, limit, plan.ids, lookup, WORDS_CANDIDATES);
      const { rows, marker } = slicedRows(await reader.readRows(statement.sql, statement.params), limit);
      const kept = filtered ? await keptRows(rows, lane, guardedBefore, plan.phrases, canRead) : rows;
      for (const row of kept) if (found.length < need) found.push({ lane: index, kind: "entry", row });
      if (found.length >= need || (marker && marker.candidates < WORDS_CANDIDATES)) break;
      // Not every candidate read: on from the last hit (the statement stopped at its limit) or from the last candidate.
      from = marker ? marker.last : rows[rows.length - 1].id;
      if (lookup === rarest) {
        const byEachWord = await candidateLookup(reader, plan, searchedTable(lane.field), plan.phrases.words, true);
        // No text of the table holds one of the words where it must be: nothing more to find.
        if (byEachWord === null) return found;
        lookup = byEachWord;
      }
      // Few of the lane's entries among its last candidates: the rest of the run off the event loop where the reader can.
      if (reader.readLaneRest && kept.length < need - found.length) {
        await wordsLaneRest(reader.readLaneRest, plan, index, run, from, need, found, filtered ? (rows) => keptRows(rows, lane, guardedBefore, plan.phrases, canRead) : null, lookup);
        break;
      }
    }
    if (found.length >= need) break;
    from = null;
  }
  return found;
}

/**
 * SQLite, a WORDS lane: the rest of a run after `from`, by `lookup`, into `found`: each statement
 * (readLaneRest) up to the entries still wanted — CHECKED_CHUNK at least where some may be left out
 * after the read (`keep`: guarded texts the viewer may read, or may not) — until enough are found or the
 * run has no more.
 */
async function wordsLaneRest(read: NonNullable<SearchReader["readLaneRest"]>, plan: Plan, index: number, run: { low: number; high: number }, from: number, need: number, found: Found[], keep: ((rows: EntryRow[]) => Promise<EntryRow[]>) | null, lookup: string): Promise<void> {
  for (let after = from; ; ) {
    const limit = keep ? Math.max(need - found.length, CHECKED_CHUNK) : need - found.length;
    const rows = await read({ query: plan.query, index, range: { low: run.low, high: run.high }, after, limit, lookup });
    for (const row of keep ? await keep(rows) : rows) if (found.length < need) found.push({ lane: index, kind: "entry", row });
    if (found.length >= need || rows.length < limit) return;
    after = rows[rows.length - 1].id;
  }
}

/** The kinds a lane of entries reads: those asked for that have the lane's field. */
function laneKinds(plan: Plan, lane: Lane & { source: "entry" }): DocumentKind[] {
  return DOCUMENT_KINDS.filter((kind) => plan.kinds.has(kind) && (lane.field !== "keywords" || hasKeywords(kind)) && (lane.field !== "guarded" || kind === "COLUMN"));
}

/** An EXACT or PREFIX lane of label or keywords. */
const isCompared = (lane: Lane): lane is Lane & { source: "entry" } => lane.source === "entry" && (lane.rank === "EXACT" || lane.rank === "PREFIX");

/**
 * The EXACT and PREFIX lanes read together from lane `index` on (none: `index` is another lane): those
 * that apply, up to the next other lane that applies, and up to the first PREFIX lane. A lane runs in
 * such a statement whether or not the lanes before it fill the page, so only lanes whose reads stop
 * early go together: after a PREFIX lane, the keywords' PREFIX lane leaves out what starts so in the
 * label, and where most names start as their keywords do it reads on through the index range for its
 * few rows (19 ms for `p` on the 1M store, read with the rest though the label's PREFIX lane had filled
 * the page).
 */
function comparedRun(plan: Plan, index: number): number[] {
  const run: number[] = [];
  for (let i = index; i < LANES.length; i++) {
    if (!laneApplies(LANES[i], plan.phrases, plan.ids)) continue;
    if (!isCompared(LANES[i])) break;
    run.push(i);
    if (LANES[i].rank === "PREFIX") break;
  }
  return run;
}

/** EXACT and PREFIX lanes read together (comparedLanesSql), the first from `after`: their hits in lane order, `need` at most. */
async function readComparedLanes(reader: SearchReader, plan: Plan, indices: readonly number[], after: Position | null, need: number): Promise<Found[]> {
  const lanes: ComparedLane[] = [];
  for (const index of indices) {
    const kinds = laneKinds(plan, LANES[index] as Lane & { source: "entry" });
    const fromKind = after && index === indices[0] ? kindOfDocumentId(Number(after.key))! : null;
    const rest = fromKind ? kinds.slice(kinds.indexOf(fromKind)) : kinds;
    if (rest.length > 0) lanes.push({ index, kinds: rest, after: fromKind ? Number(after!.key) : null });
  }
  if (lanes.length === 0) return [];
  const statement = comparedLanesSql(reader.provider, plan.phrases, lanes, need, plan.ids);
  const { rows } = await reader.readRows(statement.sql, statement.params);
  return rows.slice(0, need).map((r) => ({ lane: lanes[Number(r[0])].index, kind: "entry", row: entryRow(r.slice(2)) }));
}

/** A WORD, SUBSTRING or WORDS lane's entries in a run of kinds, after `from` (an entry id), `limit` at most, in id order. */
async function laneRows(reader: SearchReader, plan: Plan, index: number, run: { kinds: DocumentKind[]; low: number; high: number }, from: number | null, limit: number, lookup: string | undefined): Promise<EntryRow[]> {
  if (reader.provider === "postgres") return pgLaneRows(reader, plan, index, run.kinds, from, limit);
  return sqliteLaneRows(reader, plan, index, run, from, limit, lookup!);
}

/**
 * SQLite: the candidates a lane's statement reads on the event loop, at most. A statement of
 * better-sqlite3 runs synchronously, and one over many candidates with few of the lane's entries among
 * them held the loop, and every other request with it: `art` read the 150,000 texts holding both `ar`
 * at a word's start and `art` (every archive's part) for no word starting with `art`, 0.4 s in one
 * statement; on a store of 10M, seconds. 4,096 candidates take at most about 25 ms on the benchmark's
 * store. The limit is the statement's, not the lane's: the rest of the lane is read as one statement,
 * off the loop (SearchReader.readLaneRest). Read in such slices on the loop instead, `art` took 1.6
 * times as long (each statement seeks FTS5's doclists afresh).
 */
export const INLINE_CANDIDATES = 4_096;

/** SQLite: where a lane whose first candidates held too few entries reads on (laneRestRows). */
export interface LaneRest {
  /** The search's query (checkedQuery): its phrases and ids are made again from it. */
  query: string;
  index: number;
  range: { low: number; high: number };
  /** The last candidate read: the rest are after it. */
  after: number;
  limit: number;
  /** The FTS5 query for the candidates (candidateQuery). */
  lookup: string;
  /** A WORD or SUBSTRING lane's: the candidates its statements read before the rest, and its entries among them (restLookup). */
  read?: { candidates: number; entries: number };
}

/**
 * SQLite: a lane's entries read INLINE_CANDIDATES candidates at a time on the event loop while the
 * last slice held as many entries as are still wanted (the next slice will most likely finish); else
 * the rest in one statement, off the loop where the reader can (readLaneRest).
 */
async function sqliteLaneRows(reader: SearchReader, plan: Plan, index: number, run: { low: number; high: number }, from: number | null, limit: number, lookup: string): Promise<EntryRow[]> {
  const found: EntryRow[] = [];
  let after = from;
  let candidates = 0;
  for (;;) {
    const statement = sqliteLaneSql(plan.phrases, index, run, after, limit - found.length, plan.ids, lookup, INLINE_CANDIDATES, true);
    const { rows, marker } = slicedRows(await reader.readRows(statement.sql, statement.params), limit - found.length);
    found.push(...rows);
    // Every entry wanted, or every candidate read.
    if (!marker || marker.candidates < INLINE_CANDIDATES) return found;
    after = marker.last;
    candidates += marker.candidates;
    if (rows.length < limit - found.length) break;
  }
  const rest: LaneRest = { query: plan.query, index, range: { low: run.low, high: run.high }, after, limit: limit - found.length, lookup, read: { candidates, entries: found.length } };
  return [...found, ...(await (reader.readLaneRest ? reader.readLaneRest(rest) : laneRestRows(reader, rest)))];
}

/**
 * A slice's rows (sqliteLaneSql with `candidates`): the lane's entries, and, when they are fewer than
 * its `limit` (so every candidate it read was looked at), the last candidate read and how many were
 * read (all of them: fewer than asked). With `limit` entries the lane reads on after the last.
 */
function slicedRows(read: RawRows, limit: number): { rows: EntryRow[]; marker: { last: number; candidates: number } | null } {
  const last = read.rows[read.rows.length - 1];
  const marked = last !== undefined && Number(last[0]) === 1;
  const rows = (marked ? read.rows.slice(0, -1) : read.rows).map((r) => entryRow(r.slice(1)));
  return { rows, marker: marked && rows.length < limit ? { last: Number(last[1]), candidates: Number(last[2]) } : null };
}

/**
 * SQLite: the rest of a lane (LaneRest), every candidate after the last read, in one statement (after
 * the counts that may choose its lookup again: restLookup): in a heavy-read thread, or on the event
 * loop without one.
 */
export async function laneRestRows(reader: Pick<SearchReader, "provider" | "readRows">, rest: LaneRest): Promise<EntryRow[]> {
  const phrases = queryPhrases(rest.query);
  const lookup = await restLookup(reader, rest, phrases);
  if (lookup === null) return [];
  const statement = sqliteLaneSql(phrases, rest.index, rest.range, rest.after, rest.limit, idQueryOf(phrases.folded), lookup);
  return (await reader.readRows(statement.sql, statement.params)).rows.map(entryRow);
}

/**
 * A WORD or SUBSTRING lane's rest counts its trigrams (restLookup) only where it would read more
 * candidates than this: about as many as counting them costs (4–8 ms a common trigram, some 45 ms for
 * a phrase's eight, where the rest reads and checks a candidate in about 2.7 µs).
 */
const REST_COUNTED = 16_384;
/**
 * The most trigrams a lane's rest counts (restLookup): a long phrase's cost much to count (the 13 of
 * `models/support_tickets/2024-11-15`, common all, 100 ms) and give the probes as many to choose among.
 */
const MAX_COUNTED_TRIGRAMS = 8;

/**
 * SQLite: the FTS5 query for a WORD or SUBSTRING lane's rest (null: it holds no entry). Its first
 * candidates were looked up by the trigrams sparsest among the newest texts (candidateLookup, by
 * probes), which may be common further on: `les/202` at a word's start took `es/`, `s/` and `/2`, held
 * together by 363,000 names (every `…files/2024-…`), where `les` and `le` at a word's start are in
 * 60,000 names each and together in none; the rest read and refused all 363,000, about a second. So a
 * rest that would read many candidates counts them (restCountSql) and, where fewer texts of the rest
 * hold one of the phrase's trigrams, is looked up by the trigrams fewest hold. Not where its entries
 * were dense among the candidates read (it ends at its limit soon), or where the lookup already holds
 * every trigram, or the phrase has more than MAX_COUNTED_TRIGRAMS; nor in a WORDS lane, looked up by
 * each word. Counting costs a rest it does not help 5–50 ms.
 */
async function restLookup(reader: Pick<SearchReader, "readRows">, rest: LaneRest, phrases: QueryPhrases): Promise<string | null> {
  const lane = LANES[rest.index];
  if (lane.source !== "entry" || (lane.rank !== "WORD" && lane.rank !== "SUBSTRING") || !rest.read) return rest.lookup;
  if (rest.read.entries > 0 && (rest.limit * rest.read.candidates) / rest.read.entries <= REST_COUNTED) return rest.lookup;
  const trigrams = trigramsOf([phrases.phrase[lane.rank]]);
  // A lookup by every trigram of the phrase (`art`: two) is the one any count would choose.
  const looked = new Set(rest.lookup.split(" AND "));
  if (trigrams.length > MAX_COUNTED_TRIGRAMS || trigrams.every((trigram) => looked.has(ftsPhrase(trigram)))) return rest.lookup;
  const table = searchedTable(lane.field as "label" | "guarded");
  const counts = async (queries: readonly string[], cap: number) => {
    const statement = restCountSql(table, queries, rest.after, rest.range.high, cap);
    const found = queries.map(() => cap);
    for (const [i, n] of (await reader.readRows(statement.sql, statement.params)).rows) found[Number(i)] = Number(n);
    return found;
  };
  const [own] = await counts([rest.lookup], REST_COUNT_CAP);
  if (own === 0) return null;
  if (own <= REST_COUNTED) return rest.lookup;
  // A trigram held by as many texts as the lookup finds is of no use: each counted up to that.
  const held = await counts(trigrams.map(ftsPhrase), own);
  if (held.every((n) => n >= own)) return rest.lookup;
  // Counts alike are taken as probes alike: among them, both ends of the phrase first.
  return candidateQuery(trigrams, held.map((n) => ({ n, reach: 0 })));
}

/** Entries of a kind a PostgreSQL lane reads first by the primary key, before it decides how to read on. */
const PG_LANE_WINDOW = 1_000;
/**
 * The same for a WORDS lane, which comes after every other and mostly finds what is left: one more hit
 * for a full page, or names holding the words apart. Its first windows cost as much as the other
 * lanes' (1,000 entries of each kind read and checked, 3 ms on the benchmark's store) for rows that
 * are seldom there.
 */
const PG_WORDS_WINDOW = 250;
/**
 * PostgreSQL: a lane read kind by kind in windows of the primary key (./search-lanes.ts
 * pgWindowLaneSql), then by the index where that is cheaper: a kind's first window of PG_LANE_WINDOW
 * entries tells how dense the lane is there; a kind whose window held too few is read on by a window
 * sized to what that density predicts, or by its index (pgIndexedLaneSql) when the window held none or
 * the index would read fewer (./pg-window-costs.ts nextRead). Each round is at most two statements over
 * every kind.
 */
async function pgLaneRows(reader: SearchReader, plan: Plan, index: number, kinds: readonly DocumentKind[], from: number | null, limit: number): Promise<EntryRow[]> {
  const parts = kinds
    .map((kind) => ({ kind, ...idRangeOf(kind) }))
    .map(({ kind, low, high }) => ({ kind, low: from === null ? low : Math.max(low, from + 1), high }))
    .filter(({ low, high }) => low < high);
  const hits: EntryRow[][] = parts.map(() => []);
  // A SUBSTRING lane's fragments, or a WORDS lane's words, counted in the windows: which of them the index looks up (fragmentPattern, wordsLookup).
  const rank = LANES[index].rank;
  const fragments = rank === "SUBSTRING" ? substringFragments(plan.phrases.phrase.SUBSTRING) : rank === "WORDS" ? [...plan.phrases.words] : [];
  const lookupOf = (place: number) =>
    rank === "WORDS" ? wordsLookup(fragments, held[place].scanned, held[place].counts, plan.trigramCharacters) : fragmentPattern(plan.phrases.phrase.SUBSTRING, fragments, held[place].scanned, held[place].counts);
  const field = (LANES[index] as Lane & { source: "entry" }).field;
  // A WORDS lane starts from what the SUBSTRING lane of its field sampled: its words are that lane's fragments.
  const sampled = parts.map(({ kind }) => (rank === "WORDS" ? plan.fragmentCounts.get(fragmentsKey(field, kind)) : undefined));
  const held = parts.map((_, place) => {
    const known = sampled[place];
    // A word the SUBSTRING lane did not count (shorter than a fragment) is taken for common.
    return known ? { scanned: known.scanned, counts: fragments.map((word) => known.held.get(word.slice(WORD_MARK.length)) ?? known.scanned) } : { scanned: 0, counts: fragments.map(() => 0) };
  });
  // Per kind, how it is read next: a window of this many entries from `low`, the index after `after`, or nothing (read to its end).
  type Next = { window: number; low: number; scanned: number } | { after: number } | null;
  // A WORDS lane's sample also counts the entries holding every word its index would look up: all but
  // those of one character (looked up only where rare, and then read by the index from the start).
  const joint = rank === "WORDS" ? fragments.flatMap((word, i) => (isOneCharacterWord(word) ? [] : [i])) : [];
  const jointHeld = parts.map(() => ({ held: 0, sampled: 0 }));
  // What the kind's index would yield, as the windows tell it (none for a WORD lane, which counts nothing).
  const shareOf = (place: number, scanned: number) =>
    rank === "WORD" ? null : candidateShare(hits[place].length, scanned, rank === "WORDS" && joint.length > 0 ? { joint: jointHeld[place], each: held[place].counts.map((count) => ({ held: count, sampled: held[place].scanned })) } : undefined);
  // How the kind's index would find the candidates, as wordsLookup or fragmentPattern would look them up now.
  const indexLookupOf = (place: number): IndexLookup => {
    if (rank !== "WORDS") return rank === "SUBSTRING" ? "pattern" : "lexemes";
    return "trigrams" in (lookupOf(place) as WordsLookup) ? "word patterns" : "lexemes";
  };
  const next: Next[] = parts.map(({ low }, place) =>
    // A kind where one of the words is rare is read by its index from the start (wordsLookup looks up the rare ones).
    held[place].scanned > 0 && held[place].counts.some((count) => count / held[place].scanned <= RARE_FRAGMENT) ? { after: low - 1 } : { window: rank === "WORDS" ? PG_WORDS_WINDOW : PG_LANE_WINDOW, low, scanned: 0 },
  );
  for (;;) {
    // The kinds still read: those before the place where the hits already read make `limit`.
    const windows: { place: number; low: number; high: number; window: number; first: boolean }[] = [];
    const indexed: { place: number; kind: DocumentKind; after: number; high: number; lookup: string | WordsLookup | null }[] = [];
    let total = 0;
    for (let place = 0; place < parts.length && total < limit; place++) {
      const step = next[place];
      if (step && "window" in step) windows.push({ place, low: step.low, high: parts[place].high, window: step.window, first: step.scanned === 0 });
      else if (step) indexed.push({ place, kind: parts[place].kind, after: step.after, high: parts[place].high, lookup: lookupOf(place) });
      total += hits[place].length;
    }
    if (windows.length === 0 && indexed.length === 0) break;
    const ends = new Map<number, { end: number; start: number | null } | null>();
    if (windows.length > 0) {
      const statement = pgWindowLaneSql(plan.phrases, index, windows, limit, plan.ids, fragments, joint);
      for (const r of (await reader.readRows(statement.sql, statement.params)).rows) {
        const place = Number(r[0]);
        if (r[4] === null) {
          ends.set(place, r[1] === null ? null : { end: Number(r[1]), start: r[2] === null ? null : Number(r[2]) });
          // The sample's size, then how many of its entries held each fragment, then the joint ones together.
          const counts = (r[3] ?? []) as number[];
          if (counts.length === fragments.length + 1 + (joint.length > 0 ? 1 : 0)) {
            held[place].scanned += Number(counts[0]);
            fragments.forEach((_, i) => (held[place].counts[i] += Number(counts[i + 1])));
            if (joint.length > 0) jointHeld[place] = { held: jointHeld[place].held + Number(counts[fragments.length + 1]), sampled: jointHeld[place].sampled + Number(counts[0]) };
          }
        } else hits[place].push(entryRow(r.slice(4)));
      }
    }
    if (indexed.length > 0) {
      const statement = pgIndexedLaneSql(plan.phrases, index, indexed, limit, plan.ids, plan.trigramCharacters);
      for (const r of (await reader.readRows(statement.sql, statement.params)).rows) hits[Number(r[0])].push(entryRow(r.slice(1)));
    }
    for (const { place } of indexed) next[place] = null;
    for (const { place, window } of windows) {
      const ended = ends.get(place) ?? null;
      const found = hits[place].length;
      if (ended === null || found >= limit) {
        next[place] = null;
        continue;
      }
      const scanned = (next[place] as { scanned: number }).scanned + window;
      const read = nextRead({ found, limit, scanned, window, ...ended, high: parts[place].high, candidateShare: shareOf(place, scanned), lookup: indexLookupOf(place) });
      next[place] = read === "index" ? { after: ended.end } : { window: read.window, low: ended.end + 1, scanned };
    }
  }
  if (rank === "SUBSTRING" && fragments.length > 0) {
    parts.forEach(({ kind }, place) => {
      if (held[place].scanned > 0) plan.fragmentCounts.set(fragmentsKey(field, kind), { scanned: held[place].scanned, held: new Map(fragments.map((fragment, i) => [fragment, held[place].counts[i]])) });
    });
  }
  return hits.flat().slice(0, limit);
}

const fragmentsKey = (field: Field, kind: DocumentKind) => `${field}\u0000${kind}`;

/** The words of a WORDS lane whose trigrams SQLite looks up by each word (a query may hold a hundred). */
const MAX_LOOKED_UP_WORDS = 4;

/**
 * SQLite: the FTS5 query for the candidates of texts holding every one of `phrases` (null: none can
 * hold them), their trigrams probed once per request and table. A WORDS lane's phrases are its
 * words. `byEachWord`: some trigrams of each word (candidateQuery's groups), not only the rarest, and
 * a word of one character, too short for a trigram, by where it starts a word (wordStartQuery) when
 * that is rarer than every trigram (else, and in the first lookup, it is left to the statement's check:
 * 63 lookups cost a few milliseconds, and most queries fill their page from the first candidates).
 */
async function candidateLookup(reader: SearchReader, plan: Plan, table: string, phrases: readonly string[], byEachWord = false): Promise<string | null> {
  const key = `${table}\u0000${byEachWord}\u0000${phrases.join("\u0000")}`;
  if (!plan.lookups.has(key)) {
    // By each word: the trigrams of its longest MAX_LOOKED_UP_WORDS words, each word's own (the others are left to the statement's check).
    const groups = byEachWord ? phrases.slice(0, MAX_LOOKED_UP_WORDS).map((phrase) => trigramsOf(phrase)).filter((group) => group.length > 0) : [];
    const trigrams = groups.length > 0 ? [...new Set(groups.flat())] : trigramsOf(phrases);
    if (trigrams.length === 0) throw new Error(`search: no trigram in the phrases of a lane (${JSON.stringify(phrases)})`);
    // By each word, a word of one character too, which is too short for a trigram: as the start of a word after each separator (wordStartQuery), where that is rare.
    const starts = byEachWord ? phrases.filter((phrase) => trigramsOf(phrase).length === 0).map(wordStartQuery) : [];
    // Each FTS5 query probed once per request and table.
    const probed = (query: string) => `${table}\u0000${query}`;
    const unknown = [...trigrams.map(ftsPhrase), ...starts].filter((query) => !plan.probes.has(probed(query)));
    if (unknown.length > 0) {
      const probe = probeSql(table, unknown);
      for (const query of unknown) plan.probes.set(probed(query), { n: 0, reach: 0 });
      for (const [i, n, reach] of (await reader.readRows(probe.sql, probe.params)).rows) plan.probes.set(probed(unknown[Number(i)]), { n: Number(n), reach: Number(reach ?? 0) });
    }
    const probes = trigrams.map((trigram) => plan.probes.get(probed(ftsPhrase(trigram)))!);
    const lookup = candidateQuery(trigrams, probes, groups);
    // A start rarer than every trigram narrows the candidates further; one no text holds, to none.
    const rarest = probes.reduce((best, probe) => (byRarity(probe, best) < 0 ? probe : best));
    const rarer = starts.filter((query) => byRarity(plan.probes.get(probed(query))!, rarest) < 0);
    const none = starts.some((query) => plan.probes.get(probed(query))!.n === 0);
    plan.lookups.set(key, lookup === null || none ? null : [lookup, ...rarer].join(" AND "));
  }
  return plan.lookups.get(key)!;
}

/** Entries of a kind that has keywords (the others have none to match). */
const hasKeywords = (kind: DocumentKind) => kind === "ARTIFACT" || kind === "DATASET" || kind === "COLUMN" || kind === "JOB";

/**
 * A guarded lane keeps what the viewer may read; a lane of another field after a guarded lane leaves
 * out what that lane listed (the guarded text matched at its rank, and the viewer may read it).
 */
async function keptRows(rows: readonly EntryRow[], lane: Lane & { source: "entry" }, guardedBefore: SearchRank | null, phrases: QueryPhrases, canRead: ReadableCheck): Promise<EntryRow[]> {
  const guarded = (row: EntryRow) => row.guarded !== null && row.guardArtifactId !== null && row.guardField !== null;
  const asked = lane.field === "guarded" ? rows.filter(guarded) : rows.filter((row) => guarded(row) && rankAtLeast(fieldRank(row, "guarded", phrases), guardedBefore!));
  if (asked.length === 0) return lane.field === "guarded" ? [] : [...rows];
  const readable = await canRead(asked.map((row) => ({ artifactId: row.guardArtifactId!, field: row.guardField! })));
  const mayRead = new Set(asked.filter((_, i) => readable[i]));
  return lane.field === "guarded" ? rows.filter((row) => mayRead.has(row)) : rows.filter((row) => !mayRead.has(row));
}


/** The hits of a page: datasets and columns resolved to their newest versions (one statement for all). */
async function hitsOf(reader: SearchReader, plan: Plan, page: readonly Found[]): Promise<SearchHit[]> {
  const versions = await newestVersions(reader, page.flatMap((f) => (f.kind === "entry" && (f.row.kind === "DATASET" || f.row.kind === "COLUMN") ? [f.row] : [])));
  const folded = plan.phrases.folded;
  // The plan's words (a word mark, the word), as the WORDS lanes matched them.
  const words = plan.phrases.words.map((phrase) => phrase.slice(WORD_MARK.length));
  return page.map((f): SearchHit => {
    const lane = LANES[f.lane];
    const rank = lane.rank;
    // What to highlight: the query, or at WORDS each of its words where it starts a word.
    const occurrences = rank === "WORDS" ? (text: string) => wordOccurrencesOf(text, words) : (text: string) => occurrencesOf(text, folded);
    if (f.kind === "run") {
      return {
        kind: "RUN",
        id: f.runId,
        label: f.runId,
        detail: `${f.operation} · ${f.status} · recorded ${new Date(f.recordedAt).toISOString()}`,
        rank,
        highlights: occurrencesOf(f.runId, folded),
        matched: { field: "ID", text: f.runId, highlights: occurrencesOf(f.runId, folded) },
        artifactId: null,
        runId: f.runId as RunId,
        operationId: null,
        dataset: null,
        column: null,
        position: positionOf(plan, f.lane, "run", f.runId),
      };
    }
    if (f.kind === "artifact") {
      return {
        kind: "ARTIFACT",
        id: f.id,
        label: f.originalName,
        detail: f.dataset ? `${f.artifactType}, a version of ${f.dataset.namespace}/${f.dataset.name}` : f.artifactType,
        rank,
        highlights: occurrencesOf(f.originalName, folded),
        matched: { field: "ID", text: f.id, highlights: occurrencesOf(f.id, folded) },
        artifactId: f.id as ArtifactId,
        runId: null,
        operationId: null,
        dataset: null,
        column: null,
        position: positionOf(plan, f.lane, "art", f.id),
      };
    }
    const row = f.row;
    const field: Field | "id" = lane.source === "id" ? "id" : lane.field;
    const matchedText = field === "id" ? row.key : field === "label" ? row.label : field === "keywords" ? row.keywords! : row.guarded!;
    const dataset = row.kind === "DATASET" || row.kind === "COLUMN" ? parseDatasetKey(row.key) : undefined;
    const version = versions.get(row.id) ?? null;
    const hit: SearchHit = {
      kind: row.kind,
      id: row.target,
      label: row.label,
      detail: row.detail,
      rank,
      highlights: occurrences(row.label),
      matched: { field: field === "id" ? "ID" : field === "label" ? "LABEL" : field === "keywords" ? "KEYWORDS" : "DESCRIPTION", text: matchedText, highlights: occurrences(matchedText) },
      artifactId: row.kind === "ARTIFACT" ? (row.key as ArtifactId) : null,
      runId: null,
      operationId: row.kind === "JOB" ? (row.key as OperationId) : null,
      dataset: dataset ? { namespace: dataset.namespace, name: dataset.name } : null,
      column: null,
      position: positionOf(plan, f.lane, lane.source === "id" ? "op" : "e", lane.source === "id" ? row.key : row.id),
    };
    if (row.kind === "DATASET") {
      const newest = (version ?? row.target) as ArtifactId;
      return { ...hit, id: newest, artifactId: newest };
    }
    if (row.kind === "COLUMN" && dataset) {
      const newest = (version ?? row.target) as ArtifactId;
      return { ...hit, id: columnTarget(newest, dataset.rest), artifactId: newest, column: { artifactId: newest, field: dataset.rest } };
    }
    return hit;
  });
}

/**
 * For each dataset entry its newest version, for each column entry the newest version that has the
 * column: one statement of one text whatever the hits, the entries bound as one JSON parameter, so
 * PostgreSQL keeps it prepared. Written out per hit (a UNION of one branch each) it was planned anew
 * for every page: 3 of its 4.4 ms for the 20 columns of `ledger entries` on the benchmark's store.
 */
async function newestVersions(reader: SearchReader, rows: readonly EntryRow[]): Promise<Map<number, string>> {
  const versions = new Map<number, string>();
  const asked = rows.flatMap((row, i) => {
    const dataset = parseDatasetKey(row.key);
    return dataset ? [{ i, namespace: dataset.namespace, name: dataset.name, field: row.kind === "COLUMN" ? dataset.rest : null }] : [];
  });
  if (asked.length === 0) return versions;
  const { rows: found } = await reader.readRows(genericPlanSql(reader.provider, newestVersionsSql(reader.provider)), [jsonParameter(asked)]);
  for (const [i, id] of found) if (id !== null) versions.set(rows[Number(i)].id, String(id));
  return versions;
}

function newestVersionsSql(provider: DatabaseProvider): string {
  const asked =
    provider === "sqlite"
      ? `(SELECT json_extract(value, '$.i') AS "i", json_extract(value, '$.namespace') AS "namespace", json_extract(value, '$.name') AS "name", json_extract(value, '$.field') AS "field" FROM json_each(?)) j`
      : `json_to_recordset($1::json) AS j("i" int, "namespace" text, "name" text, "field" text)`;
  return (
    `SELECT j."i", (SELECT a."id" FROM "Artifact" a WHERE a."datasetNamespace" = j."namespace" AND a."datasetName" = j."name" ` +
    `AND (j."field" IS NULL OR EXISTS (SELECT 1 FROM "DatasetColumn" c WHERE c."artifactId" = a."id" AND c."field" = j."field")) ` +
    `ORDER BY a."createdAt" DESC, a."id" DESC LIMIT 1) FROM ${asked}`
  );
}

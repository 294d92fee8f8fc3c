/**
 * The matching rules of search (docs: "Search"), on text as the index keeps it. Case is ignored for
 * A–Z only: the same fold runs in JavaScript (the recording path, the query) and in SQL (the migration
 * that indexes an existing store, ./search-sql-text.ts), and ASCII is what SQLite's lower() folds, so
 * the two agree on every string. A word starts at the beginning of a text and after every separator:
 * an ASCII character that is not a letter or a digit (space, `_`, `.`, `/`, `-`, `:` …); every other
 * character, non-ASCII letters included, belongs to a word.
 *
 * A query matches a text at one of five ranks, best first: EXACT (the whole text), PREFIX (its
 * start), WORD (the start of one of its words; only for a query that starts with a word character),
 * SUBSTRING (anywhere; only for a query of three characters or more, what a trigram index can
 * serve) and WORDS (each of the query's words starts a word of the text, in any order, whatever
 * separates them: `customer orders` finds `raw/customer_orders.csv`, `orders 2024` finds
 * `2024-05/orders.csv`; only for a query of two words or more, one of them two characters or more).
 * Each of the first four ranks' texts include the next better rank's; WORDS is what a query of
 * several words finds beyond them.
 */
export const SEARCH_RANKS = ["EXACT", "PREFIX", "WORD", "SUBSTRING", "WORDS"] as const;
export type SearchRank = (typeof SEARCH_RANKS)[number];

/**
 * Marks in indexed text: the start of a word, the start and the end of the text. A trigram index
 * then answers every rank with one phrase (./search-phrases.ts). Folding turns these characters,
 * should a text hold them, into spaces.
 */
export const WORD_MARK = "\u0001";
export const START_MARK = "\u0002";
export const END_MARK = "\u0003";

/** Queries shorter than this match no substring (a trigram index has nothing to look up). */
export const MIN_SUBSTRING_LENGTH = 3;
/** Queries shorter than this match no word start (with its mark, the phrase would still be under three characters). */
export const MIN_WORD_LENGTH = 2;

export function isSeparatorCode(code: number): boolean {
  return code < 0x30 || (code > 0x39 && code < 0x41) || (code > 0x5a && code < 0x61) || (code > 0x7a && code < 0x80);
}

/** A–Z to a–z, the marks to spaces; every other code unit as it is (so offsets into the fold are offsets into the text). */
export function foldText(text: string): string {
  let folded = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x41 && code <= 0x5a) folded += String.fromCharCode(code + 0x20);
    else if (code >= 0x01 && code <= 0x03) folded += " ";
    else folded += text[i];
  }
  return folded;
}

/** A folded text with a word mark after every separator (so before every word but the first). */
export function markSeparators(folded: string): string {
  let marked = "";
  for (let i = 0; i < folded.length; i++) {
    marked += folded[i];
    if (isSeparatorCode(folded.charCodeAt(i))) marked += WORD_MARK;
  }
  return marked;
}

/** What the index holds for a text: start, word and end marks around its fold. */
export function indexedText(text: string): string {
  return START_MARK + WORD_MARK + markSeparators(foldText(text)) + END_MARK;
}

/** Characters as the trigram indexes count them: code points. */
const characters = (text: string) => [...text].length;

/** Whether a word can start with this query (it starts with a word character and is long enough). */
export function matchesWords(foldedQuery: string): boolean {
  return characters(foldedQuery) >= MIN_WORD_LENGTH && !isSeparatorCode(foldedQuery.charCodeAt(0));
}

export function matchesSubstrings(foldedQuery: string): boolean {
  return characters(foldedQuery) >= MIN_SUBSTRING_LENGTH;
}

/** A run of word characters (none of isSeparatorCode's). */
const WORD_RUN = /[^\u0000-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007f]+/g;

/**
 * The words a folded query is matched by at WORDS, each once, longest first (a text is looked up by
 * its rarest trigrams, which long words hold): none unless the query has two words or more and one of
 * them is at least MIN_WORD_LENGTH characters, the shortest a trigram index can find at a word's start.
 */
export function queryWords(foldedQuery: string): string[] {
  const runs = foldedQuery.match(WORD_RUN) ?? [];
  if (runs.length < 2) return [];
  const words = [...new Set(runs)].sort((a, b) => characters(b) - characters(a) || (a < b ? -1 : a > b ? 1 : 0));
  return characters(words[0]) >= MIN_WORD_LENGTH ? words : [];
}

/** Where `word` starts a word of a folded text (at its start or after a separator), left to right. */
function* wordStartsIn(folded: string, word: string): Generator<number> {
  for (let at = folded.indexOf(word); at >= 0; at = folded.indexOf(word, at + 1)) if (at === 0 || isSeparatorCode(folded.charCodeAt(at - 1))) yield at;
}

/** Whether `word` starts a word of a folded text. */
const startsAWord = (folded: string, word: string) => !wordStartsIn(folded, word).next().done;

/** The best rank at which a folded query matches a text, or null. */
export function rankOf(text: string, foldedQuery: string): SearchRank | null {
  const folded = foldText(text);
  if (folded === foldedQuery) return "EXACT";
  if (folded.startsWith(foldedQuery)) return "PREFIX";
  if (matchesWords(foldedQuery)) {
    for (let at = folded.indexOf(foldedQuery, 1); at > 0; at = folded.indexOf(foldedQuery, at + 1)) if (isSeparatorCode(folded.charCodeAt(at - 1))) return "WORD";
  }
  if (matchesSubstrings(foldedQuery) && folded.includes(foldedQuery)) return "SUBSTRING";
  const words = queryWords(foldedQuery);
  if (words.length > 0 && words.every((word) => startsAWord(folded, word))) return "WORDS";
  return null;
}

/** A matched range of a text, for highlighting: UTF-16 offsets, end exclusive. */
export interface TextRange {
  start: number;
  end: number;
}

/**
 * For a hit at WORDS: where each of the query's words starts a word of the text, left to right, not
 * overlapping (of two words starting at one place, the longer).
 */
export function wordOccurrencesOf(text: string, words: readonly string[]): TextRange[] {
  const folded = foldText(text);
  const ranges: TextRange[] = [];
  for (const word of words) for (const at of wordStartsIn(folded, word)) ranges.push({ start: at, end: at + word.length });
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: TextRange[] = [];
  for (const range of ranges) if (kept.length === 0 || range.start >= kept[kept.length - 1].end) kept.push(range);
  return kept;
}

/** Every occurrence of a folded query in a text, left to right, not overlapping. */
export function occurrencesOf(text: string, foldedQuery: string): TextRange[] {
  if (foldedQuery.length === 0) return [];
  const folded = foldText(text);
  const ranges: TextRange[] = [];
  for (let at = folded.indexOf(foldedQuery); at >= 0; at = folded.indexOf(foldedQuery, at + foldedQuery.length)) ranges.push({ start: at, end: at + foldedQuery.length });
  return ranges;
}

/**
 * The smallest string above every string that starts with `prefix` (in code point order, which is
 * the byte order of UTF-8 both databases compare in): the prefix with its last code point raised by one.
 */
export function prefixUpperBound(prefix: string): string {
  const points = [...prefix];
  for (let i = points.length - 1; i >= 0; i--) {
    const code = points[i].codePointAt(0)!;
    if (code >= 0x10ffff) continue;
    // The surrogate block is no character: U+D7FF is followed by U+E000.
    const next = code === 0xd7ff ? 0xe000 : code + 1;
    return points.slice(0, i).join("") + String.fromCodePoint(next);
  }
  return prefix + "\u{10ffff}";
}

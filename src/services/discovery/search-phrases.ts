import { comparedText } from "./search-documents";
import { END_MARK, foldText, isSeparatorCode, markSeparators, matchesSubstrings, matchesWords, prefixUpperBound, queryWords, type SearchRank, START_MARK, WORD_MARK } from "./search-text";

/** The ranks a single phrase of the marked text decides (WORDS takes one phrase per word). */
export type PhraseRank = Exclude<SearchRank, "WORDS">;
const PHRASE_RANKS: readonly PhraseRank[] = ["EXACT", "PREFIX", "WORD", "SUBSTRING"];

/**
 * What a query is looked up by, once per request: its fold, and per rank the phrase a marked text
 * (./search-text.ts) contains exactly when the text matches at that rank or a better one.
 *   EXACT     start, word mark, the marked query, end
 *   PREFIX    start, word mark, the marked query
 *   WORD      word mark, the marked query (a query starting with a separator has no WORD rank)
 *   SUBSTRING the marked query
 *   WORDS     each of its words (queryWords) after a word mark, in any order
 * Marking the query the same way keeps its separators followed by a word mark, as they are in the text.
 */
export interface QueryPhrases {
  folded: string;
  /** Ranks this query can match at (EXACT and PREFIX always; WORD, SUBSTRING and WORDS by its length, first character and words). */
  ranks: readonly SearchRank[];
  phrase: Record<PhraseRank, string>;
  /** WORDS: a phrase per word of the query (a word mark, the word), longest first; empty without a WORDS rank. */
  words: readonly string[];
  /** The bounds of a PREFIX match on a folded text: [folded, upper). */
  upper: string;
  /**
   * PostgreSQL's word index query (wordQuery); null without a WORD rank. Unweighted, though the index
   * weighs labels A and guarded texts C: a weighted query makes PostgreSQL recompute the lexemes of
   * every candidate row (the index keeps no weights) — seconds for a common word — and the statement
   * checks the lane's own field exactly anyway.
   */
  lexemes(): string | null;
}

export function queryPhrases(query: string): QueryPhrases {
  const folded = comparedText(query);
  const marked = markSeparators(foldText(query));
  const ranks: SearchRank[] = ["EXACT", "PREFIX"];
  if (matchesWords(folded)) ranks.push("WORD");
  if (matchesSubstrings(folded)) ranks.push("SUBSTRING");
  const words = queryWords(folded);
  if (words.length > 0) ranks.push("WORDS");
  // Every word but the last is whole (a separator follows it); the last is whole only when the query ends with a separator.
  const lastWhole = folded.length > 0 && isSeparatorCode(folded.charCodeAt(folded.length - 1));
  return {
    folded,
    ranks,
    phrase: { EXACT: START_MARK + WORD_MARK + marked + END_MARK, PREFIX: START_MARK + WORD_MARK + marked, WORD: WORD_MARK + marked, SUBSTRING: marked },
    words: words.map((word) => WORD_MARK + word),
    upper: prefixUpperBound(folded),
    lexemes: () => (ranks.includes("WORD") ? wordQuery(marked, lastWhole) : null),
  };
}

/** The word index query for texts holding each of `words` at a word's start: each a lexeme's start, ANDed. */
export const wordStartsQuery = (words: readonly string[]) => words.map((word) => `${tsqueryLexeme(word)}:*`).join(" & ");

/** A tsquery lexeme: the text quoted, its quotes and backslashes escaped. */
export const tsqueryLexeme = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** A run of separators (./search-text.ts isSeparatorCode; the marks are separators too). */
export const SEPARATOR_RUN = /[\u0001-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007f]+/g;
/** The longest separator run the word index pairs two words across (its migration, 20261203160000_search_word_pairs). */
const MAX_PAIRED_SEPARATOR = 32;

/**
 * PostgreSQL's word index query for a marked query that starts with a word: its pairs of neighbouring
 * words with the separators between them, as the index holds them (a text matching at WORD holds the
 * query's words at a word's start, whole but the last, with the query's separators between them),
 * else its one word; the last pair (or word) a prefix unless the query ends with a separator.
 *
 * A last word shorter than three characters makes a prefix of many lexemes, which the index reads
 * whole and ORs together before anything else (it cannot skip through them as it skips through a
 * whole lexeme's postings): alone, `'0':*` is every number starting with 0. A pair's first word
 * narrows them, and the term is left out only where other terms narrow the candidates without it:
 * a word alone with one other term, a pair with two. Left out beside a single pair, its candidates
 * were that pair's, each row read and refused: `2024-03-17` had every name of March 2024 (41,000
 * artifacts of the benchmark's store, 116 ms), where `'2024-03' & '03-17':*` (word marks left out)
 * reads 1,300 (11 ms), and `fraud_scores_1` took 146 ms, now 9. Kept beside two pairs, it costs its
 * prefix's postings for little: `2024-03-17/part-0` with `'part-0':*` (the 96,000 names of a part
 * numbered 0…) took 14 ms in its index statement, 4 ms without.
 */
function wordQuery(marked: string, lastWhole: boolean): string | null {
  // From its first word (a query with a WORD rank starts with one), so that separators[i] follows words[i].
  const body = marked.replace(/^[\u0001-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007f]+/, "");
  const words = body.split(SEPARATOR_RUN).filter((word) => word.length > 0);
  const separators = body.match(SEPARATOR_RUN) ?? [];
  if (words.length === 0) return null;
  const terms: { text: string; prefix: boolean }[] = [];
  const add = (text: string, prefix: boolean) => {
    if (!terms.some((term) => term.text === text && term.prefix === prefix)) terms.push({ text, prefix });
  };
  if (words.length === 1) add(words[0], !lastWhole);
  for (let i = 0; i + 1 < words.length; i++) {
    const last = i + 2 === words.length && !lastWhole;
    if (separators[i].length <= MAX_PAIRED_SEPARATOR) add(words[i] + separators[i] + words[i + 1], last);
    else {
      add(words[i], false);
      add(words[i + 1], last);
    }
  }
  const last = terms[terms.length - 1];
  // The other terms narrow enough without it: one beside a word alone (its pair split by a long separator), two beside a pair.
  const narrowedWithout = terms.length > (last.text === words[words.length - 1] ? 1 : 2);
  const kept = narrowedWithout && last.prefix && words[words.length - 1].length < 3 ? terms.slice(0, -1) : terms;
  return kept.map(({ text, prefix }) => `${tsqueryLexeme(text)}${prefix ? ":*" : ""}`).join(" & ");
}

/**
 * The phrase for "matches at `rank` or better", falling back to the best rank below it the query has;
 * for WORDS, the phrase of the best rank above it (what matches at WORDS or better holds that phrase
 * or every word: markedMatchesAtLeast).
 */
export function phraseAtLeast(phrases: QueryPhrases, rank: SearchRank): string {
  const from = rank === "WORDS" ? PHRASE_RANKS.length - 1 : PHRASE_RANKS.indexOf(rank);
  for (let i = from; i >= 0; i--) if (phrases.ranks.includes(PHRASE_RANKS[i])) return phrases.phrase[PHRASE_RANKS[i]];
  return phrases.phrase.EXACT;
}

/** Whether a marked text (searchedText) matches the query at `rank` or better. */
export function markedMatchesAtLeast(marked: string, phrases: QueryPhrases, rank: SearchRank): boolean {
  if (marked.includes(phraseAtLeast(phrases, rank))) return true;
  return rank === "WORDS" && phrases.words.length > 0 && phrases.words.every((word) => marked.includes(word));
}

/** An FTS5 string: the phrase in double quotes, its own doubled. */
export const ftsPhrase = (phrase: string) => `"${phrase.replace(/"/g, '""')}"`;

/** A LIKE pattern (PostgreSQL, backslash escapes) for texts holding `pieces` in this order. */
export const likePattern = (pieces: readonly string[]) => `%${pieces.map((piece) => piece.replace(/[\\%_]/g, (c) => `\\${c}`)).join("%")}%`;

/** A LIKE pattern for texts containing `phrase`. */
export const containsPattern = (phrase: string) => likePattern([phrase]);

/**
 * PostgreSQL's trigram indexes read a marked text with the separators names use most turned into
 * capital letters, which a folded text holds no other way, and the marks (which follow separators,
 * as in SUBSTRING phrases) left out: pg_trgm takes only letters and digits into trigrams, so over the
 * text as it is `email address` and `email_address` had the same trigrams, and a SUBSTRING phrase of
 * several words had for candidates every text holding its words (the 10,000 columns named
 * …email_address of the benchmark's store, each read and refused: 20 ms). The other separators stay
 * breaks between words, as before; pg_trgm folds the capitals to small letters: either only widens the
 * candidates, which the statement checks for the phrase itself. Six, not all 62: translate() looks each
 * character up in its list, and with all of them it cost every entry a recording writes 10 µs (1.5 µs
 * with these). The index's function, provgraph_search_trigrams (migration
 * 20261205020000_search_trigrams_see_separators), is translate(text, TRIGRAM_SEPARATORS,
 * TRIGRAM_LETTERS), which drops the marks at the end of TRIGRAM_SEPARATORS, having no letter for them.
 */
export const TRIGRAM_SEPARATORS = ` _-./:${WORD_MARK}${START_MARK}${END_MARK}`;
export const TRIGRAM_LETTERS = "SUHDPC";

export function trigramText(marked: string): string {
  let text = "";
  for (const c of marked) {
    const at = TRIGRAM_SEPARATORS.indexOf(c);
    text += at < 0 ? c : (TRIGRAM_LETTERS[at] ?? "");
  }
  return text;
}

/** A LIKE pattern over trigramText's text for texts containing `phrase`, its LIKE characters escaped. */
export const trigramContainsPattern = (phrase: string) => containsPattern(trigramText(phrase));

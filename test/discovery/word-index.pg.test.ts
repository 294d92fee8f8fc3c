import fc from "fast-check";
import { searchedText } from "../../src/services/discovery/search-documents";
import { wordsLookup } from "../../src/services/discovery/search-lanes";
import { queryPhrases, SEPARATOR_RUN, wordStartsQuery } from "../../src/services/discovery/search-phrases";
import { postgresSearched } from "../../src/services/discovery/search-text-sql";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * PostgreSQL's word index finds a WORD lane's candidates (src/services/discovery/search-lanes.ts): its
 * lexemes — words, and pairs of neighbouring words with their separators — must hold every text that
 * matches a query at WORD or better, or search would miss it; texts it finds besides are checked by
 * the statement. And a pair's separators tell apart what words alone cannot.
 */
describe("the word index's lexemes (postgres)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  /** For each [text, query]: whether the text's lexemes match the query's word query (null: the query has none). */
  async function indexMatches(cases: readonly [string, string][]): Promise<(boolean | null)[]> {
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const selects = cases.map(([text, query]) => {
      const lexemes = queryPhrases(query).lexemes();
      return lexemes === null ? `SELECT NULL::boolean` : `SELECT "provgraph_search_words"(${postgresSearched(`${bind(text)}::text`)}, NULL) @@ ${bind(lexemes)}::tsquery`;
    });
    const { rows } = await db.database.readRows(selects.join(" UNION ALL "), params);
    return rows.map(([value]) => (value === null ? null : value === true));
  }

  test("every text matching a query at WORD or better is a candidate of its word query", async () => {
    // Few characters, so that queries often match: separators (quotes and backslashes too), the marks, case, non-ASCII.
    const character = fc.constantFrom(..."aAb_./-: '\\\u0001\u0002éÉ🎉".split(/(?:)/u), "0", "x");
    const text = fc.array(character, { maxLength: 16 }).map((chars) => chars.join(""));
    const piece = fc.tuple(text, fc.nat(16), fc.integer({ min: 1, max: 8 })).map(([t, at, length]) => {
      const points = [...t];
      const from = at % Math.max(1, points.length);
      return [t, points.slice(from, from + length).join("").trim() || "a"] as [string, string];
    });
    const matches = ([t, q]: [string, string]) => queryPhrases(q).lexemes() !== null && searchedText(t).includes(queryPhrases(q).phrase.WORD);
    const matching: [string, string][] = [["raw/" + "x".repeat(150) + "_y/z", "x".repeat(150) + "_y"], ["a" + "-".repeat(40) + "b", "a" + "-".repeat(40) + "b"], ["o'brien\\x.csv", "o'brien\\x"]];
    expect(matching.every(matches)).toBe(true);
    // About one sample in six matches (82 to 133 of 600 over forty runs): sample until there are 200, not a fixed count that falls short by chance.
    for (let round = 0; matching.length < 200 && round < 50; round++) matching.push(...fc.sample(piece, 100).filter(matches));
    expect(matching.length).toBeGreaterThanOrEqual(200);
    const found: (boolean | null)[] = [];
    for (let from = 0; from < matching.length; from += 100) found.push(...(await indexMatches(matching.slice(from, from + 100))));
    expect(matching.filter((_, i) => found[i] !== true)).toEqual([]);
  });

  test("every text matching a query's words in any order (WORDS) is a candidate of its words' lookups, by either index", async () => {
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const character = fc.constantFrom(..."aAbc_./-: '\\\u0001éÉ🎉".split(/(?:)/u), "0", "x");
    // Texts of few characters, so that words often repeat; and texts of longer words, whose starts hold trigrams.
    const short = fc.array(character, { maxLength: 16 }).map((chars) => chars.join(""));
    const letters = fc.array(fc.constantFrom(..."abcxé0A".split(/(?:)/u)), { minLength: 3, maxLength: 6 }).map((chars) => chars.join(""));
    const long = fc.tuple(fc.array(letters, { minLength: 2, maxLength: 4 }), fc.constantFrom("_", " ", "/", "-", "🎉", "'", ".")).map(([words, separator]) => words.join(separator));
    const text = fc.oneof(short, long);
    // The starts of a text's words, shuffled: a query its text matches at WORDS or better.
    const shuffled = fc.tuple(text, fc.nat()).map(([t, seed]) => {
      const words = t.split(SEPARATOR_RUN).filter((w) => w.length > 0).map((w, i) => [...w].slice(0, 1 + ((seed + i) % 4)).join(""));
      return [t, words.sort((a, b) => ((a.charCodeAt(0) * 31 + seed) % 7) - ((b.charCodeAt(0) * 31 + seed) % 7)).join(" ")] as [string, string];
    });
    // Each word at a word's start (what the lane reads by the index; a text holding the phrase itself was listed before it).
    const cases = fc.sample(shuffled, 1_000).filter(([t, q]) => queryPhrases(q).ranks.includes("WORDS") && queryPhrases(q).words.every((word) => searchedText(t).includes(word)));
    cases.push(["raw/Customer_Orders.csv", "orders cust"], ["a-b c0", "c0 a b"]);
    expect(cases.length).toBeGreaterThan(100);
    // Both lookups a WORDS lane takes (search-lanes.ts wordsLookup): each word's start in the word index (every word of two
    // characters or more), and each word's LIKE pattern in the trigram index (when none is rare and each holds a trigram).
    const selects = cases.map(([t, q]) => {
      const words = queryPhrases(q).words;
      const searched = postgresSearched(`${bind(t)}::text`);
      const lexemes = `"provgraph_search_words"(${searched}, NULL) @@ ${bind(wordStartsQuery(words.map((w) => w.slice(1)).filter((w) => [...w].length > 1)))}::tsquery`;
      // Every word counted in a tenth of the entries: none rare, none common, each kept.
      const lookup = wordsLookup(words, 10, words.map(() => 1), "unicode");
      const trigrams = "trigrams" in lookup ? lookup.trigrams.map((like) => `"provgraph_search_trigrams"(${searched}) LIKE ${bind(like)}`).join(" AND ") : "NULL::boolean";
      return `SELECT ${lexemes}, ${trigrams}`;
    });
    const { rows } = await db.database.readRows(selects.join(" UNION ALL "), params);
    expect(cases.filter((_, i) => rows[i][0] !== true)).toEqual([]);
    expect(cases.filter((_, i) => rows[i][1] === false)).toEqual([]);
    // Enough of them by trigrams to say so: words of three letters or digits.
    expect(rows.filter((row) => row[1] === true).length).toBeGreaterThan(20);
  });

  test("the separators between two words are part of what is looked up", async () => {
    expect(await indexMatches([
      ["raw/ledger_entries/2024-03-17.csv", "ledger entries"],
      ["raw/ledger_entries/2024-03-17.csv", "ledger_entr"],
      ["the ledger entries of march", "ledger entries"],
      ["raw/ledger_entries/2024-03-17.csv", "2024-03"],
      ["raw/ledger_entries/2024/03/17.csv", "2024-03"],
    ])).toEqual([false, true, true, true, false]);
  });
});

import { candidateQuery, fragmentPattern, fragmentSpans, LANES, pgIndexedLaneSql, substringFragments, type TrigramCharacters, trigramFindable, trigramsOf, wordsLookup, wordStartQuery } from "../../src/services/discovery/search-lanes";
import { queryPhrases, trigramText } from "../../src/services/discovery/search-phrases";
import fc from "fast-check";
import { indexedText, WORD_MARK } from "../../src/services/discovery/search-text";

/**
 * PostgreSQL's SUBSTRING lane looks a kind up by its rarer fragments when the windows it read first
 * found some fragment common there (src/services/discovery/search-lanes.ts fragmentPattern): the
 * choice, fragment by fragment. What the pattern matches is checked on PostgreSQL itself
 * (test/discovery/substring-fragments.pg.test.ts).
 */
describe("a SUBSTRING lane's fragments and the pattern of the rarer ones", () => {
  const fragmentsOf = (query: string) => substringFragments(queryPhrases(query).phrase.SUBSTRING);

  test("the runs of letters and digits of three or more, in order; none for a phrase of one", () => {
    expect(fragmentsOf("raw/customer_orders/2024-03-17/part-00042.csv")).toEqual(["raw", "customer", "orders", "2024", "part", "00042", "csv"]);
    expect(fragmentsOf("Email Address")).toEqual(["email", "address"]);
    expect(fragmentsOf("café-crème")).toEqual(["café", "crème"]);
    expect(fragmentsOf("ession")).toEqual([]);
    expect(fragmentsOf("a-b-cd")).toEqual([]);
    expect(fragmentsOf("ab/orders")).toEqual([]);
  });

  const patternOf = (query: string, held: number[], scanned = 256) => fragmentPattern(queryPhrases(query).phrase.SUBSTRING, fragmentsOf(query), scanned, held);

  test("a rare fragment is looked up without the common ones", () => {
    expect(patternOf("part-00042", [256, 0])).toBe("%00042%");
    expect(patternOf("raw/customer/2024/part-00042.csv", [30, 16, 256, 256, 1, 256])).toBe("%00042%");
    // Two rare ones, in the phrase's order.
    expect(patternOf("x1x common y2y", [0, 250, 1])).toBe("%x1x%y2y%");
  });

  test("without a rare one: the rarest and every one not common, each with the separators beside it", () => {
    // fraud in 6% of the entries, part in all: texts holding `fraud`, a space (S) and a `p`, not every text holding fraud.
    expect(patternOf("fraud part", [16, 256])).toBe("%fraudSp%");
    expect(patternOf("part fraud", [256, 16])).toBe("%tSfraud%");
    expect(patternOf("aaa/bbb", [256, 100])).toBe("%aPbbb%");
    // The index reads `jsonS` as `jsons`: the digit past the separator is what makes a trigram no word has (`ns2`).
    expect(patternOf("json 2025", [100, 130])).toBe("%jsonS2%");
    // Kept fragments that meet across a separator are one piece; those apart, two.
    expect(patternOf("aaa bbb-ccc", [200, 30, 20])).toBe("%aSbbbHccc%");
    expect(patternOf("aaa bbb ccc", [30, 256, 20])).toBe("%aaaSb%bSccc%");
    expect(patternOf("aaa b ccc", [30, 20])).toBeNull();
    // Pieces that meet across a run too short to be a fragment are one.
    expect(patternOf("aaa b ccc ddd", [30, 20, 256])).toBe("%aaaSbScccSd%");
    // A separator the index does not turn into a letter (`,`) is a break: nothing beside it is kept.
    expect(patternOf("abcd ijk,gh", [256, 10])).toBe("%dSijk%");
    expect(patternOf("abc,def", [256, 10])).toBe("%def%");
    // Runs too short to be fragments are kept, and so is a common fragment beside them: with it they narrow.
    expect(patternOf("aaaa bbbb cccc-11", [10, 256, 256])).toBe("%aaaaSb%bSccccH11%");
    expect(patternOf("ab_cdef ijk", [256, 10])).toBeNull();
    // A date's month and day: `025` kept, `part` in every name (`%025H0%` alone had 362,000 candidates).
    expect(patternOf("025-05-22/part", [120, 256])).toBe("%025H05H22Pp%");
  });

  test("the whole phrase when every fragment would be kept, when every one is common, or when nothing was counted", () => {
    expect(patternOf("email address", [25, 25])).toBeNull();
    // `part part part`: one `part` followed by a space is `parts` to the index, which folds the separators' letters.
    expect(patternOf("part part part", [256, 256, 256])).toBeNull();
    expect(patternOf("aaa/bbb", [256, 250])).toBeNull();
    expect(patternOf("part-00042", [0, 0])).toBeNull();
    expect(patternOf("part-00042", [0, 0], 0)).toBeNull();
    expect(patternOf("ession", [])).toBeNull();
  });

  test("the pieces are the phrase's own, in order, as the trigram index reads them", () => {
    for (const query of ["raw/customer_orders/2024-03-17/part-00042.csv", "fraud part", "a-b-cde fgh", "café crème brûlée"]) {
      const phrase = queryPhrases(query).phrase.SUBSTRING;
      const fragments = fragmentsOf(query);
      const every = fragments.map((_, i) => i);
      const text = trigramText(phrase);
      for (let kept = 1; kept < 1 << fragments.length; kept++) {
        const pieces = fragmentSpans(phrase, fragments, every.filter((i) => kept & (1 << i)));
        let at = 0;
        for (const piece of pieces) {
          const found = text.indexOf(piece, at);
          expect(found).toBeGreaterThanOrEqual(at);
          at = found + piece.length;
        }
      }
    }
    // Fragments that are not the phrase's: the whole phrase.
    expect(fragmentSpans("abc def", ["xyz", "def"], [1])).toEqual(["abcSdef"]);
  });
});

/**
 * A WORDS lane (a query's words in any order) on PostgreSQL: the words it is matched by, and which
 * of them the word index looks up (src/services/discovery/search-lanes.ts wordsLookup) once the
 * windows (or the SUBSTRING lane before it) counted them.
 */
describe("a WORDS lane's words and the index query of the rarer ones", () => {
  const wordsOf = (query: string) => queryPhrases(query).words.map((phrase) => phrase.slice(1));

  test("the query's runs of letters and digits, each once, longest first; none for one word or words of one character", () => {
    expect(wordsOf("customer orders")).toEqual(["customer", "orders"]);
    expect(wordsOf("Orders / 2024-05")).toEqual(["orders", "2024", "05"]);
    expect(wordsOf("a b orders b")).toEqual(["orders", "a", "b"]);
    expect(wordsOf("café crème")).toEqual(["crème", "café"]);
    expect(wordsOf("orders")).toEqual([]);
    expect(wordsOf("orders.")).toEqual([]);
    expect(wordsOf("a b")).toEqual([]);
    expect(queryPhrases("a b").ranks).not.toContain("WORDS");
    expect(queryPhrases("a bc").ranks).toContain("WORDS");
  });

  test("the rare words alone, each a lexeme's start; a one-character word only where it was counted rare", () => {
    const words = (query: string) => queryPhrases(query).words;
    expect(wordsLookup(words("part 00042"), 256, [0, 256], "unicode")).toEqual({ lexemes: "'00042':*" });
    expect(wordsLookup(words("orders x"), 256, [1, 0], "unicode")).toEqual({ lexemes: "'orders':* & 'x':*" });
    expect(wordsLookup(words("orders x"), 256, [1, 2], "unicode")).toEqual({ lexemes: "'orders':*" });
    expect(wordsLookup(words("orders x"), 256, [256, 0], "unicode")).toEqual({ lexemes: "'x':*" });
    // Words are runs of letters and digits: a quote or a backslash separates them (the index's words are split so too).
    expect(wordsLookup(words("o'brien crème"), 256, [256, 0, 256], "unicode")).toEqual({ lexemes: "'crème':*" });
    expect(wordsLookup(words("o'brien crème"), 256, [256, 0, 0], "unicode")).toEqual({ lexemes: "'crème':* & 'o':*" });
    expect(wordsLookup(words("🎉🎉🎉 orders"), 256, [20, 0], "unicode")).toEqual({ lexemes: "'🎉🎉🎉':*" });
  });

  test("no rare word: every word (the rarest four) by the trigram index, when there are two or more and each holds a trigram", () => {
    const words = (query: string) => queryPhrases(query).words;
    expect(wordsLookup(words("aaa bbb ccc"), 256, [200, 30, 20], "unicode")).toEqual({ trigrams: ["%ccc%", "%bbb%", "%aaa%"] });
    expect(wordsLookup(words("aaa bbb"), 256, [256, 250], "unicode")).toEqual({ trigrams: ["%bbb%", "%aaa%"] });
    // The rarest four of more.
    expect(wordsLookup(words("aaa bbb ccc ddd eee fff"), 256, [60, 50, 40, 30, 20, 10], "unicode")).toEqual({ trigrams: ["%fff%", "%eee%", "%ddd%", "%ccc%"] });
    expect(wordsLookup(words("crème orders"), 256, [20, 20], "unicode")).toEqual({ trigrams: ["%orders%", "%crème%"] });
    // Else the rarest and every one not common, each a lexeme's start: one word looked up, or one without a trigram.
    expect(wordsLookup(words("orders x"), 256, [256, 200], "unicode")).toEqual({ lexemes: "'orders':*" });
    expect(wordsLookup(words("orders 05"), 256, [20, 200], "unicode")).toEqual({ lexemes: "'orders':*" });
    expect(wordsLookup(words("orders 05"), 256, [20, 20], "unicode")).toEqual({ lexemes: "'orders':* & '05':*" });
    expect(wordsLookup(words("a🎉b orders"), 256, [20, 20], "unicode")).toEqual({ lexemes: "'orders':* & 'a🎉b':*" });
    expect(wordsLookup(words("crème orders"), 256, [20, 20], "ascii")).toEqual({ lexemes: "'orders':* & 'crème':*" });
  });

  test("nothing counted: every word of two characters or more, each a lexeme's start", () => {
    expect(wordsLookup(queryPhrases("part 00042").words, 0, [0, 0], "unicode")).toEqual({ lexemes: "'00042':* & 'part':*" });
    expect(wordsLookup(queryPhrases("orders x").words, 0, [0, 0], "unicode")).toEqual({ lexemes: "'orders':*" });
  });
});

/** Whether PostgreSQL's trigram index can look a LIKE pattern up (search-lanes.ts trigramFindable). */
describe("a pattern the trigram index can look up", () => {
  const substringLane = LANES.findIndex((lane) => lane.source === "entry" && lane.field === "label" && lane.rank === "SUBSTRING");
  const lookupOf = (query: string, lookup: string | null = null, characters: TrigramCharacters = "unicode") =>
    pgIndexedLaneSql(queryPhrases(query), substringLane, [{ place: 0, kind: "ARTIFACT", after: 0, high: 1_000, lookup }], 21, null, characters).sql.includes(`"provgraph_search_trigrams"`);

  test("a SUBSTRING lane looks a phrase up by its trigrams only where it holds some; else by the whole phrase; else it reads the texts", () => {
    expect(lookupOf("eedle")).toBe(true);
    expect(lookupOf("a_b")).toBe(true);
    expect(lookupOf("🎉🎉🎉")).toBe(false);
    expect(lookupOf("y🎉🎉")).toBe(false);
    expect(lookupOf("🎉🎉🎉 party", "%🎉🎉🎉%")).toBe(true);
    expect(lookupOf("日本語")).toBe(true);
    // Where the database's LC_CTYPE is C, letters beyond ASCII are no word characters for pg_trgm.
    expect(lookupOf("日本語", null, "ascii")).toBe(false);
    expect(lookupOf("crème", null, "ascii")).toBe(false);
    expect(lookupOf("crèmes", null, "ascii")).toBe(true);
  });

  test("three letters or digits in a row, beyond ASCII too; separators, wildcards and escapes break a run", () => {
    const unicode = (pattern: string) => trigramFindable(pattern, "unicode");
    const ascii = (pattern: string) => trigramFindable(pattern, "ascii");
    expect(["%abc%", "%a1b%", "%crème%", "%日本語%", "%xSy%"].filter(unicode)).toEqual(["%abc%", "%a1b%", "%crème%", "%日本語%", "%xSy%"]);
    expect(["%abc%", "%a1b%", "%crème%", "%日本語%", "%xSy%"].filter(ascii)).toEqual(["%abc%", "%a1b%", "%xSy%"]);
    expect(["%ab%", "%🎉🎉🎉%", "%a🎉b🎉c%", "%ab%cd%", "%ab\\_cd%", "%é\u0301e%"].filter(unicode)).toEqual([]);
  });
});

/** SQLite: a word of one character, too short for a trigram of its own, looked up where it starts a word (search-lanes.ts wordStartQuery). */
describe("the FTS5 query for a word's start of one character", () => {
  const phrasesOf = (query: string) => [...query.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1].replace(/""/g, '"'));

  test("each of its trigrams is what can stand before the word mark, then the mark and the character", () => {
    const phrases = phrasesOf(wordStartQuery("\u0001v"));
    expect(phrases).toContain("\u0002\u0001v");
    expect(phrases).toContain("_\u0001v");
    expect(phrases).toContain('"\u0001v');
    expect(phrases.every((phrase) => [...phrase].length === 3 && phrase.endsWith("\u0001v"))).toBe(true);
    // Letters, digits and the other marks never stand before a word mark.
    expect(phrases.some((phrase) => /^[a-z0-9\u0001\u0003]/.test(phrase))).toBe(false);
  });

  test("every text in which a word starts with the character holds one of them", () => {
    const character = fc.constantFrom(..."ab0_-./ :\"'\\~@[`{\u007fé🎉".split(/(?:)/u));
    fc.assert(
      fc.property(fc.array(character, { maxLength: 20 }), (chars) => {
        const text = indexedText(chars.join(""));
        for (const c of ["a", "b", "0", "é"]) {
          const starts = text.includes(`${WORD_MARK}${c}`);
          expect(phrasesOf(wordStartQuery(WORD_MARK + c)).some((phrase) => text.includes(phrase))).toBe(starts);
        }
      }),
    );
  });
});

/** SQLite's lookup of a WORDS lane's candidates once the rarest trigrams brought too many (search-lanes.ts candidateQuery). */
describe("an FTS5 lookup by each word", () => {
  const probe = (n: number, reach = 0) => ({ n, reach });
  test("the rarest three overall; by each word, the rarest two of each first", () => {
    const trigrams = ["\u0001or", "ord", "rde", "\u0001sc", "sco", "cor"];
    const probes = [probe(256, 10_000), probe(256, 30_000), probe(256, 20_000), probe(256, 50_000), probe(256, 60_000), probe(256, 40_000)];
    // Overall: the sparsest three, all of one word.
    expect(candidateQuery(trigrams, probes)).toBe('"sco" AND "\u0001sc" AND "cor"');
    expect(candidateQuery(trigrams, probes, [["\u0001or", "ord", "rde"], ["\u0001sc", "sco", "cor"]])).toBe('"ord" AND "rde" AND "sco" AND "\u0001sc"');
    // A trigram in no text: nothing to look up.
    expect(candidateQuery(trigrams, [probe(0), ...probes.slice(1)], [["\u0001or"], ["sco"]])).toBeNull();
  });

  test("probes alike (the same count, their last texts a few entries apart) are taken from both ends of the phrase", () => {
    // `orders sco` on the benchmark's store: every trigram of each word reaches its 256th text at the same entry, the two words 11 entries apart.
    const trigrams = ["ord", "rde", "der", "ers", "\u0001sc", "sco"];
    const probes = [probe(256, 4_095), probe(256, 4_095), probe(256, 4_095), probe(256, 4_095), probe(256, 4_084), probe(256, 4_084)];
    expect(candidateQuery(trigrams, probes)).toBe('"ord" AND "sco" AND "rde"');
    // Apart by more than that, the sparser first, as before (then, among the alike, an end of the phrase); a smaller count before any reach.
    expect(candidateQuery(trigrams, [probe(256, 9_000), probe(256, 8_000), ...probes.slice(2)])).toBe('"ord" AND "rde" AND "sco"');
    expect(candidateQuery(trigrams, [...probes.slice(0, 5), probe(100, 4_084)])).toBe('"sco" AND "ord" AND "rde"');
  });
});

/** SQLite: the trigrams of a lane's phrase whose texts a request probes before it looks candidates up (search-lanes.ts trigramsOf). */
describe("the trigrams probed", () => {
  test("a short phrase's are all of them", () => {
    const phrase = queryPhrases("orders/2024").phrase.SUBSTRING;
    expect(trigramsOf(phrase)).toEqual([...new Set([...phrase].slice(0, -2).map((_, i) => [...phrase].slice(i, i + 3).join("")))]);
  });

  test("a long phrase's are spread over it, and one is inside each word", () => {
    // 45 trigrams: the twelve spread evenly over them held none of 47201's, the rare word (3,000 names hold `720`).
    const phrase = queryPhrases("staging/fraud_scores/2024-11-30/part-47201.json").phrase.SUBSTRING;
    const probed = trigramsOf(phrase);
    expect(probed).toContain("720");
    for (const word of ["staging", "fraud", "scores", "2024", "part", "47201", "json"]) expect([word, probed.some((trigram) => word.includes(trigram))]).toEqual([word, true]);
    expect(probed.length).toBeLessThanOrEqual(18);
  });
});

import fc from "fast-check";
import { searchedText } from "../../src/services/discovery/search-documents";
import { fragmentPattern, substringFragments, type TrigramCharacters, trigramFindable } from "../../src/services/discovery/search-lanes";
import { queryPhrases, TRIGRAM_LETTERS, TRIGRAM_SEPARATORS, trigramContainsPattern, trigramText } from "../../src/services/discovery/search-phrases";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * PostgreSQL's SUBSTRING lane looks a kind up in its trigram index, which reads each marked text with
 * its separators turned into letters (provgraph_search_trigrams; search-phrases.ts trigramText), by the
 * whole phrase turned the same way or by some of its fragments (src/services/discovery/search-lanes.ts
 * fragmentPattern): every marked text holding the phrase must match that pattern under PostgreSQL's
 * LIKE, whichever fragments are kept, or search would miss it (what the pattern lets in besides, the
 * statement checks for the phrase itself).
 */
describe("a SUBSTRING lane's index lookup holds every text the phrase is in (postgres)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  test("the index's text is trigramText's, for every character a text may hold", async () => {
    const every = Array.from({ length: 0x7f }, (_, i) => String.fromCharCode(i + 1)).join("") + "éÉß🎉中";
    const { rows } = await db.database.readRows(`SELECT "provgraph_search_trigrams"($1)`, [every]);
    expect(rows[0][0]).toBe(trigramText(every));
    // Distinct capitals; the three marks come last, with no letter: translate() drops them.
    expect(new Set(TRIGRAM_LETTERS).size).toBe(TRIGRAM_LETTERS.length);
    expect([...TRIGRAM_LETTERS].every((c) => c >= "A" && c <= "Z")).toBe(true);
    expect(TRIGRAM_SEPARATORS.slice(TRIGRAM_LETTERS.length)).toBe("\u0001\u0002\u0003");
    expect(trigramText("\u0002\u0001a-\u0001b_\u0001c%\u0001d\u0003")).toBe("aHbUc%d");
  });

  test("a pattern holds a trigram the index can look up exactly where trigramFindable says so", async () => {
    // pg_trgm's trigrams are runs of word characters (show_trgm of one gives it padded by blanks; of any other, nothing):
    // a run of three makes a trigram of its own. ASCII letters and digits, separators, a letter beyond ASCII (a word
    // character where the database's LC_CTYPE is a UTF-8 locale, not where it is C), an emoji, a currency sign.
    const alphabet = [..."a0Z_-.é日🎉€"];
    const { rows } = await db.database.readRows(`SELECT cardinality(show_trgm(c)) > 0 FROM unnest($1::text[]) WITH ORDINALITY AS u(c, n) ORDER BY n`, [alphabet]);
    const word = new Set(alphabet.filter((_, i) => rows[i][0] === true));
    const characters: TrigramCharacters = word.has("é") ? "unicode" : "ascii";
    expect([...word]).toEqual(characters === "unicode" ? ["a", "0", "Z", "é", "日"] : ["a", "0", "Z"]);
    const runs = alphabet.flatMap((a) => alphabet.flatMap((b) => alphabet.map((c) => a + b + c)));
    expect(runs.filter((run) => trigramFindable(`%${run}%`, characters))).toEqual(runs.filter((run) => [...run].every((c) => word.has(c))));
  });

  test("the separators tell phrases apart: `email address` is no candidate in `customer_email_address`, but is in `the email address`", async () => {
    const phrase = queryPhrases("mail address").phrase.SUBSTRING;
    const pattern = trigramContainsPattern(phrase);
    const texts = ["customer_email_address", "the email address", "email  address"].map(searchedText);
    const { rows } = await db.database.readRows(`SELECT "provgraph_search_trigrams"(t) LIKE $4 FROM unnest(ARRAY[$1, $2, $3]::text[]) t`, [...texts, pattern]);
    expect(rows.map((r) => r[0])).toEqual([false, true, false]);
  });

  test("for any text, any phrase in it, and any counts of its fragments", async () => {
    // Words and separators, LIKE's own characters among them, case, marks and non-ASCII.
    const character = fc.constantFrom(..."abcAB0123_./-:% \\'\u0001éÉ🎉".split(/(?:)/u));
    const text = fc.array(character, { minLength: 6, maxLength: 40 }).map((chars) => chars.join(""));
    const sample = fc.tuple(text, fc.nat(40), fc.integer({ min: 6, max: 30 }), fc.array(fc.nat(256), { minLength: 12, maxLength: 12 })).map(([t, at, length, counts]) => {
      const points = [...t];
      const from = at % points.length;
      return { text: t, query: points.slice(from, from + length).join("").trim(), counts };
    });
    const cases: { marked: string; pattern: string }[] = [];
    let whole = 0;
    // About one sample in 32 gives a pattern (two fragments or more, some left out): 300 take 43 to 51 rounds of 200.
    for (let round = 0; cases.length - whole < 300 && round < 200; round++) {
      for (const { text: t, query, counts } of fc.sample(sample, 200)) {
        if (query.length === 0) continue;
        const phrases = queryPhrases(query);
        if (!phrases.ranks.includes("SUBSTRING")) continue;
        const marked = searchedText(t);
        if (!marked.includes(phrases.phrase.SUBSTRING)) continue;
        const fragments = substringFragments(phrases.phrase.SUBSTRING);
        const pattern = fragmentPattern(phrases.phrase.SUBSTRING, fragments, 256, fragments.map((_, i) => counts[i % counts.length]));
        if (pattern !== null) cases.push({ marked, pattern });
        // The whole phrase, as a lookup takes it when no fragment is left out.
        else if (whole < 300) {
          cases.push({ marked, pattern: trigramContainsPattern(phrases.phrase.SUBSTRING) });
          whole += 1;
        }
      }
    }
    expect(cases.length - whole).toBeGreaterThanOrEqual(300);
    expect(whole).toBeGreaterThanOrEqual(100);
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const sql = cases.map(({ marked, pattern }) => `SELECT "provgraph_search_trigrams"(${bind(marked)}::text) LIKE ${bind(pattern)}::text`).join(" UNION ALL ");
    const { rows } = await db.database.readRows(sql, params);
    expect(cases.filter((_, i) => rows[i][0] !== true)).toEqual([]);
  });
});

import fc from "fast-check";
import { searchedText } from "../../src/services/discovery/search-documents";
import { fragmentPattern, substringFragments } from "../../src/services/discovery/search-lanes";
import { queryPhrases } from "../../src/services/discovery/search-phrases";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * PostgreSQL's SUBSTRING lane may look a kind up by some of its phrase's fragments instead of the
 * whole phrase (src/services/discovery/search-lanes.ts fragmentPattern): every marked text holding
 * the phrase must match that pattern under PostgreSQL's LIKE, whichever fragments are kept, or search
 * would miss it (what the pattern lets in besides, the statement checks for the phrase itself).
 */
describe("a SUBSTRING lane's fragment pattern holds every text the phrase is in (postgres)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

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
    for (let round = 0; cases.length < 300 && round < 50; round++) {
      for (const { text: t, query, counts } of fc.sample(sample, 200)) {
        if (query.length === 0) continue;
        const phrases = queryPhrases(query);
        if (!phrases.ranks.includes("SUBSTRING")) continue;
        const marked = searchedText(t);
        if (!marked.includes(phrases.phrase.SUBSTRING)) continue;
        const fragments = substringFragments(phrases.phrase.SUBSTRING);
        const pattern = fragmentPattern(fragments, 256, fragments.map((_, i) => counts[i % counts.length]));
        if (pattern !== null) cases.push({ marked, pattern });
      }
    }
    expect(cases.length).toBeGreaterThanOrEqual(300);
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const sql = cases.map(({ marked, pattern }) => `SELECT ${bind(marked)}::text LIKE ${bind(pattern)}::text`).join(" UNION ALL ");
    const { rows } = await db.database.readRows(sql, params);
    expect(cases.filter((_, i) => rows[i][0] !== true)).toEqual([]);
  });
});

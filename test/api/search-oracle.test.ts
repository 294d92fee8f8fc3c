import fc from "fast-check";
import { createTestApp, type TestApp } from "../support/test-app";
import { draft, generator, recordOk, registerOperation } from "../support/recording";
import { SEPARATOR_RUN } from "../../src/services/discovery/search-phrases";
import { foldText, rankOf, SEARCH_RANKS } from "../../src/services/discovery/search-text";

/**
 * Search end to end against the matching rules written out in JavaScript (src/services/discovery/search-text.ts):
 * for names and queries made of few characters — separators, the characters FTS5, LIKE and GLOB treat
 * specially, quotes, case, non-ASCII letters, a character outside the BMP — every artifact whose name
 * matches is found once at its rank, in pages of seven as cursors carry it, and nothing else is.
 */

// No hex digits and none of "csv" (the artifacts' type, a keyword): an id or a type never matches.
const ALPHABET = [..."xyzXYZé\u00c9\u00df_.%\"*' -\\(:^|?[]+~"].concat(["🎉", "ı"]);

function seededNames(count: number): string[] {
  let state = 20261205;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const names = new Set<string>();
  while (names.size < count) {
    const length = 1 + Math.floor(next() * 12);
    const name = Array.from({ length }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join("");
    // A name is trimmed by nobody, but one of spaces only is no name a producer reports.
    if (name.trim().length > 0) names.add(name);
  }
  return [...names];
}

const SEARCH = `query($query: String!, $first: Int, $after: String) {
  search(query: $query, kinds: [ARTIFACT], first: $first, after: $after) {
    totalCount
    edges { node { label rank } }
    pageInfo { hasNextPage endCursor }
  }
}`;

describe("search agrees with the matching rules for any names and queries", () => {
  let t: TestApp;
  const names = seededNames(120);

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    for (let from = 0; from < names.length; from += 40) {
      await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: names.slice(from, from + 40).map(draft) }] });
    }
  });
  afterAll(() => t.close());

  async function hits(query: string): Promise<{ hits: string[]; totalCount: number }> {
    const found: string[] = [];
    let after: string | null = null;
    let totalCount = 0;
    for (;;) {
      // Small pages: cursors fall between hits of every rank.
      const res = await t.gql(SEARCH, { query, first: 7, after });
      if (res.errors) throw new Error(`${JSON.stringify(query)}: ${JSON.stringify(res.errors)}`);
      const page = res.data!.search as { totalCount: number; edges: { node: { label: string; rank: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
      totalCount = page.totalCount;
      found.push(...page.edges.map((e) => `${e.node.rank} ${e.node.label}`));
      if (!page.pageInfo.hasNextPage) return { hits: found, totalCount };
      after = page.pageInfo.endCursor;
    }
  }

  const expected = (query: string) => {
    const folded = foldText(query.trim());
    return names.flatMap((name) => {
      const rank = rankOf(name, folded);
      return rank ? [`${rank} ${name}`] : [];
    });
  };

  test("for pieces of the names and for any short text", async () => {
    const character = fc.constantFrom(...ALPHABET);
    const anyText = fc.array(character, { minLength: 1, maxLength: 5 }).map((chars) => chars.join(""));
    const piece = fc.tuple(fc.constantFrom(...names), fc.nat(), fc.integer({ min: 1, max: 6 })).map(([name, at, length]) => {
      const points = [...name];
      const start = at % points.length;
      return points.slice(start, start + length).join("");
    });
    // A name's words, reversed and joined by a space: matched at WORDS when the name holds no such phrase.
    const shuffled = fc.constantFrom(...names).map((name) => name.split(SEPARATOR_RUN).filter((word) => word.length > 0).reverse().join(" "));
    const queries = [...new Set([...fc.sample(piece, { numRuns: 150, seed: 7 }), ...fc.sample(anyText, { numRuns: 100, seed: 11 }), ...fc.sample(shuffled, { numRuns: 60, seed: 13 })].filter((q) => q.trim().length > 0))];
    const mismatches: string[] = [];
    let matched = 0;
    let byWords = 0;
    for (const query of queries) {
      const want = expected(query);
      const got = await hits(query);
      matched += want.length > 0 ? 1 : 0;
      byWords += want.some((hit) => hit.startsWith("WORDS ")) ? 1 : 0;
      const sorted = (list: string[]) => [...list].sort();
      // The same hits, each once, best rank first, and counted as they are listed.
      const rankOrder = got.hits.map((hit) => SEARCH_RANKS.indexOf(hit.split(" ")[0] as (typeof SEARCH_RANKS)[number]));
      const ordered = rankOrder.every((rank, i) => i === 0 || rankOrder[i - 1] <= rank);
      if (JSON.stringify(sorted(got.hits)) !== JSON.stringify(sorted(want)) || !ordered || got.totalCount !== got.hits.length) {
        mismatches.push(`${JSON.stringify(query)}: expected ${JSON.stringify(sorted(want))}, got ${JSON.stringify(got.hits)} (totalCount ${got.totalCount})`);
      }
    }
    expect(mismatches).toEqual([]);
    // The queries reach every rank's matches, not only misses.
    expect(matched).toBeGreaterThan(queries.length / 2);
    expect(byWords).toBeGreaterThan(10);
  });
});

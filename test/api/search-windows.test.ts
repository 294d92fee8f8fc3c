import { createTestApp, type TestApp } from "../support/test-app";
import { draft, generator, recordOk, registerOperation } from "../support/recording";

/**
 * A lane over more entries of a kind than one read window holds (on PostgreSQL, 1,000: a lane reads a
 * kind's newest entries by the primary key first, then a wider window or the kind's index,
 * src/services/discovery/search.ts pgLaneRows): what a word matches is found whole, in order, each
 * once, whether the matches are dense among the newest entries, sparse, or only among the oldest —
 * and pages of 10 list what one page of 50 lists. On SQLite the same answers come from FTS5 in id order.
 */
describe("search over more entries than a window", () => {
  let t: TestApp;
  const oldNeedles = Array.from({ length: 5 }, (_, i) => `old/needle/${i}.csv`);
  const newNeedles = Array.from({ length: 30 }, (_, i) => `new/needle/${i}.csv`);
  const oldPins = Array.from({ length: 3 }, (_, i) => `old/pin/${i}.csv`);
  // Names whose words differ only by what separates them.
  const oldCodes = ["old/zip code.csv", ...Array.from({ length: 40 }, (_, i) => `old/zip_code_${i}.csv`)];

  const SEARCH = `query($query: String!, $first: Int, $after: String) {
    search(query: $query, kinds: [ARTIFACT], first: $first, after: $after) { edges { node { label rank } } pageInfo { hasNextPage endCursor } }
  }`;
  async function allPages(query: string, first: number): Promise<string[]> {
    const labels: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res = await t.gql(SEARCH, { query, first, after });
      if (res.errors) throw new Error(JSON.stringify(res.errors));
      const { edges, pageInfo } = res.data!.search as { edges: { node: { label: string; rank: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
      for (const { node } of edges) labels.push(`${node.rank} ${node.label}`);
      if (!pageInfo.hasNextPage) return labels;
      after = pageInfo.endCursor;
    }
    throw new Error("more than 100 pages");
  }

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    const record = (names: string[]) => recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: names.map(draft) }] });
    // Oldest: five needles and three pins among 300 others; then 1,500 without any; newest: one needle in twenty.
    await record([...oldNeedles, ...oldPins, ...oldCodes, "old/left/right.csv", "old/right/q.csv", "old/🎉🎉🎉-party.csv", "old/party🎉🎉🎉.csv", ...Array.from({ length: 300 }, (_, i) => `old/hay/${i}.csv`)]);
    await record(Array.from({ length: 1_500 }, (_, i) => `mid/hay/${i}.csv`));
    await record(Array.from({ length: 600 }, (_, i) => (i % 20 === 0 ? newNeedles[i / 20] : `new/hay/${i}.csv`)));
    // Two words each in 1,200 names, never together (but in the oldest name of all).
    await record(Array.from({ length: 2_400 }, (_, i) => (i % 2 === 0 ? `new/left/${i}.csv` : `new/right/${i}.csv`)));
  }, 120_000);
  afterAll(() => t.close());

  test("every match once, the newest recording's first, in pages of 10 as in one page of 50", async () => {
    const single = await allPages("needle", 50);
    const paged = await allPages("needle", 10);
    expect(paged).toEqual(single);
    expect(new Set(single).size).toBe(single.length);
    expect(single.slice(0, 30).sort()).toEqual(newNeedles.map((name) => `WORD ${name}`).sort());
    expect(single.slice(30).sort()).toEqual(oldNeedles.map((name) => `WORD ${name}`).sort());
  });

  test("a word only the oldest entries hold, past every window", async () => {
    const labels = await allPages("pin", 2);
    expect(labels.sort()).toEqual(oldPins.map((name) => `WORD ${name}`).sort());
    expect(await allPages("hay/1499", 10)).toEqual(["WORD mid/hay/1499.csv"]);
  });

  test("a substring of a run every entry holds and a rarer one, its matches past the windows (PostgreSQL looks them up by the rarer run)", async () => {
    expect((await allPages("eedle/3.csv", 10)).sort()).toEqual(["SUBSTRING new/needle/3.csv", "SUBSTRING old/needle/3.csv"]);
    expect(await allPages("ld/pin/2.csv", 10)).toEqual(["SUBSTRING old/pin/2.csv"]);
    expect(await allPages("ld/pin/2.json", 10)).toEqual([]);
  });

  test("a substring of several words past the windows: its separators as they are (PostgreSQL's trigram index tells them apart)", async () => {
    expect(await allPages("ip code", 10)).toEqual(["SUBSTRING old/zip code.csv"]);
    expect((await allPages("ip_code_3", 10)).sort()).toEqual(["SUBSTRING old/zip_code_3.csv", ...Array.from({ length: 10 }, (_, i) => `SUBSTRING old/zip_code_3${i}.csv`)].sort());
    expect(await allPages("ip-code", 10)).toEqual([]);
  });

  test("words in any order that many names hold apart and one, the oldest, together: past what one statement reads (WORDS)", async () => {
    expect(await allPages("right left", 10)).toEqual(["WORDS old/left/right.csv"]);
    expect(await allPages("left righ", 10)).toEqual(["WORDS old/left/right.csv"]);
    // A word of one character, which no trigram holds: the rare one looked up (PostgreSQL by its lexemes' start, SQLite by the trigrams of its start after each separator).
    expect(await allPages("right q", 10)).toEqual(["WORDS old/right/q.csv"]);
    expect(await allPages("q right", 10)).toEqual(["WORDS old/right/q.csv"]);
    // Dense: every one of the 1,200 and the oldest, newest first, in pages of 100 as in one of 1,000 and more.
    const dense = await allPages("csv left", 100);
    expect(dense).toHaveLength(1_201);
    expect(dense[1_200]).toBe("WORDS old/left/right.csv");
  });

  test("a phrase without three letters or digits in a row, past the windows (PostgreSQL's trigram index holds nothing to look it up by)", async () => {
    expect(await allPages("🎉🎉🎉", 10)).toEqual(["WORD old/🎉🎉🎉-party.csv", "SUBSTRING old/party🎉🎉🎉.csv"]);
    expect(await allPages("y🎉🎉", 10)).toEqual(["SUBSTRING old/party🎉🎉🎉.csv"]);
    expect(await allPages("party 🎉🎉🎉", 10)).toEqual(["WORDS old/🎉🎉🎉-party.csv"]);
  });

  test("a substring across the windows", async () => {
    const labels = await allPages("eedl", 7);
    expect(labels.sort()).toEqual([...newNeedles, ...oldNeedles].map((name) => `SUBSTRING ${name}`).sort());
  });
});

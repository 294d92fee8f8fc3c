import { searchPage } from "../../src/services/discovery";
import { whileStoppable } from "../../src/db/statement-stop";
import { RequestAbortedError } from "../../src/services/errors";
import { INLINE_CANDIDATES, type LaneRest, laneRestRows } from "../../src/services/discovery/search";
import { REST_COUNT_CAP, restCountSql } from "../../src/services/discovery/search-lanes";
import { ftsPhrase } from "../../src/services/discovery/search-phrases";
import { WORD_MARK } from "../../src/services/discovery/search-text";
import { createTestApp, type TestApp } from "../support/test-app";
import { draft, generator, recordOk, registerOperation } from "../support/recording";
import { testProvider } from "../support/test-database";

/**
 * A search lane over more candidates than a statement reads on the event loop (SQLite: FTS5 finds
 * the texts holding a phrase's rarest trigrams, and each is checked): `art` is a piece of every
 * `archive/part-…` name, and a word's start in none of them; `csv archive art` are words of every such
 * name, and in any order only of the oldest. On SQLite the lane reads its first
 * INLINE_CANDIDATES candidates on the loop and the rest in a heavy-read thread; the answer is the one
 * the search core gives reading everything on the loop, and it pages as one page does.
 */
describe("a search lane over many candidates", () => {
  let t: TestApp;
  const HAY = INLINE_CANDIDATES + 900;

  const SEARCH = `query($query: String!, $first: Int, $after: String) {
    search(query: $query, kinds: [ARTIFACT], first: $first, after: $after) { edges { node { label rank } } pageInfo { hasNextPage endCursor } }
  }`;
  async function page(query: string, first: number, after: string | null = null) {
    const res = await t.gql(SEARCH, { query, first, after });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!.search as { edges: { node: { label: string; rank: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  }
  const labelsOf = (answer: Awaited<ReturnType<typeof page>>) => answer.edges.map(({ node }) => `${node.rank} ${node.label}`);

  beforeAll(async () => {
    t = await createTestApp({ env: { HEAVY_READ_THREADS: "1" } });
    await t.app.services.heavyReads.warm();
    await registerOperation(t, generator);
    const record = (names: string[]) => recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: names.map(draft) }] });
    // Oldest (the last in the lanes' order): the only names with a word starting with `art`.
    await record(["old/artwork-1.csv", "old/artwork-2.csv", "archive/artwork-3.csv"]);
    for (let from = 0; from < HAY; from += 2_500) await record(Array.from({ length: Math.min(2_500, HAY - from) }, (_, i) => `archive/part-${from + i}.csv`));
  }, 180_000);
  afterAll(() => t.close());

  test("the WORD hits past the first candidates come first, then the SUBSTRING hits, as the core reading on the event loop finds them", async () => {
    const before = t.app.services.heavyReads.stats().completed;
    const answer = await page("art", 6);
    const threadReads = t.app.services.heavyReads.stats().completed - before;
    const labels = labelsOf(answer);
    expect(labels.slice(0, 3).sort()).toEqual(["WORD archive/artwork-3.csv", "WORD old/artwork-1.csv", "WORD old/artwork-2.csv"]);
    expect(labels.slice(3)).toHaveLength(3);
    for (const label of labels.slice(3)) expect(label).toMatch(/^SUBSTRING archive\/part-\d+\.csv$/);
    expect(answer.pageInfo.hasNextPage).toBe(true);
    // The core with no thread to read on in: every statement on this reader, the same hits.
    const inline = await searchPage(t.app.database, { query: "art", kinds: ["ARTIFACT"], first: 6, canRead: async (subjects) => subjects.map(() => true) });
    expect(inline.hits.map((hit) => `${hit.rank} ${hit.label}`)).toEqual(labels);
    // SQLite: the WORD lane's rest (after INLINE_CANDIDATES candidates without a hit) was read in the thread, once; PostgreSQL reads its lanes by windows and indexes, off the loop already.
    expect(threadReads).toBe(testProvider === "sqlite" ? 1 : 0);
  });

  test("words in any order (WORDS) that every name holds as pieces and only the oldest at words' starts", async () => {
    const before = t.app.services.heavyReads.stats().completed;
    const labels = labelsOf(await page("csv archive art", 5));
    const threadReads = t.app.services.heavyReads.stats().completed - before;
    expect(labels).toEqual(["WORDS archive/artwork-3.csv"]);
    const inline = await searchPage(t.app.database, { query: "csv archive art", kinds: ["ARTIFACT"], first: 5, canRead: async (subjects) => subjects.map(() => true) });
    expect(inline.hits.map((hit) => `${hit.rank} ${hit.label}`)).toEqual(labels);
    // SQLite: the WORDS lane's first 1,024 candidates held none; it read the rest in the thread.
    expect(threadReads).toBe(testProvider === "sqlite" ? 1 : 0);
  });

  test("a search whose client goes away stops before its next statement: the lane's rest is not read", async () => {
    const { discovery, heavyReads } = t.app.services;
    const database = t.app.database;
    const [search, readRows] = [discovery.search, database.readRows];
    const client = new AbortController();
    const statements: string[] = [];
    let searching: Promise<unknown> | undefined;
    // The core's search as the resolver calls it (to see how it ends), and its statements: the client goes away during the first.
    discovery.search = (request) => (searching = search(request));
    database.readRows = (sql, params) => {
      statements.push(sql);
      if (statements.length === 1) client.abort();
      return readRows.call(database, sql, params);
    };
    const before = heavyReads.stats();
    try {
      const answer = t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", signal: client.signal, headers: { "content-type": "application/json" }, body: JSON.stringify({ query: SEARCH, variables: { query: "art", first: 6 } }) });
      await expect(answer).rejects.toMatchObject({ name: "AbortError" });
      await expect(searching).rejects.toMatchObject({ code: "REQUEST_ABORTED" });
    } finally {
      discovery.search = search;
      database.readRows = readRows;
    }
    // Unstopped, `art` runs its lanes' statements and on SQLite reads a lane's rest in the thread (the first test).
    expect(statements).toHaveLength(1);
    expect(heavyReads.stats().completed).toBe(before.completed);
    // The next search is answered as before.
    expect(labelsOf(await page("art", 6)).slice(0, 3).sort()).toEqual(["WORD archive/artwork-3.csv", "WORD old/artwork-1.csv", "WORD old/artwork-2.csv"]);
  });

  test("SQLite: a lane's rest ends itself when the check its thread sets throws (the read's budget, its client), and counts what it reads by", async () => {
    const rests: LaneRest[] = [];
    const database = t.app.database;
    const reader = { provider: database.provider, readRows: database.readRows.bind(database), readLaneRest: async (rest: LaneRest) => (rests.push(rest), laneRestRows(database, rest)) };
    const everything = async (subjects: readonly unknown[]) => subjects.map(() => true);
    await searchPage(reader, { query: "art", kinds: ["ARTIFACT"], first: 6, canRead: everything });
    // PostgreSQL reads its lanes by windows and indexes: no rest.
    expect(rests).toHaveLength(testProvider === "sqlite" ? 1 : 0);
    for (const rest of rests) {
      const gone = () => {
        throw new RequestAbortedError();
      };
      await expect(whileStoppable(gone, () => laneRestRows(database, rest))).rejects.toMatchObject({ code: "REQUEST_ABORTED" });
      expect((await laneRestRows(database, rest)).map((row) => row.label).sort()).toEqual(["archive/artwork-3.csv", "old/artwork-1.csv", "old/artwork-2.csv"]);
      // What the rest counts to choose its lookup (restLookup): the texts after it each query finds, up to the cap.
      const queries = [rest.lookup, ftsPhrase("art"), ftsPhrase(`${WORD_MARK}ar`), ftsPhrase("zzz")];
      const plain = async (query: string) => Number((await database.readRows(`SELECT count(*) FROM "SearchLabelText" WHERE "SearchLabelText" MATCH ? AND rowid > ? AND rowid < ?`, [query, rest.after, rest.range.high])).rows[0][0]);
      const expected = await Promise.all(queries.map(plain));
      expect(expected.slice(0, 3).every((n) => n > 100)).toBe(true);
      const counted = async (cap: number) => {
        const statement = restCountSql("SearchLabelText", queries, rest.after, rest.range.high, cap);
        return (await database.readRows(statement.sql, statement.params)).rows.map(([i, n]) => [Number(i), Number(n)]);
      };
      expect(await counted(REST_COUNT_CAP)).toEqual(expected.map((n, i) => [i, n]));
      expect(await counted(100)).toEqual(expected.map((n, i) => [i, Math.min(n, 100)]));
    }
  });

  test("pages of one list what one page of eight lists, each once", async () => {
    const single = labelsOf(await page("art", 8));
    const paged: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 8; i++) {
      const answer = await page("art", 1, after);
      paged.push(...labelsOf(answer));
      after = answer.pageInfo.endCursor;
    }
    expect(paged).toEqual(single);
    expect(new Set(paged).size).toBe(8);
  });
});

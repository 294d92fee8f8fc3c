import { createTestApp, errorCodes, type TestApp } from "../support/test-app";
import { draft, generator, recordOk, registerOperation, sha256Of, transform } from "../support/recording";
import { dataset, postEvent, runEvent } from "../support/openlineage";
import { artifactIdFor } from "../../src/services/ids";

/** Search through the API: what it finds, in what order, with what highlighted, and how it pages. */

const SEARCH = `query($query: String!, $kinds: [SearchKind!], $first: Int, $after: String) {
  search(query: $query, kinds: $kinds, first: $first, after: $after) {
    edges { cursor node { kind id label detail rank highlights { start end } matched { field text highlights { start end } } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function search(t: TestApp, query: string, options: { kinds?: string[]; first?: number; after?: string | null } = {}) {
  const res = await t.gql(SEARCH, { query, ...options });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data!.search as { edges: { cursor: string; node: any }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

const labels = async (t: TestApp, query: string, options: { kinds?: string[] } = {}) => (await search(t, query, { first: 100, ...options })).edges.map((e) => `${e.node.rank} ${e.node.kind} ${e.node.label}`);

describe("search", () => {
  let t: TestApp;
  let ids: Record<string, string>;
  let openLineageRunId: string;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    await registerOperation(t, { ...generator, name: "order-loader" });
    const generated = await recordOk(t, {
      operation: "generate",
      operationVersion: "1",
      pipeline: "nightly-orders",
      step: 1,
      inputs: [],
      outputs: [{ role: "sample", artifacts: ["ord", "records.txt", "raw/customer_orders.csv", "orders.csv", "ORD_backup.csv", "reports/daily_summary.csv"].map(draft) }],
    });
    ids = generated.outputIds;
    openLineageRunId = "0190c8c0-6a1e-7cc3-9a41-2f2d4d1c3b7e";
    const answer = await postEvent(
      t,
      runEvent({
        runId: openLineageRunId,
        job: { namespace: "airflow-prod", name: "load_orders" },
        inputs: [],
        outputs: [dataset("postgres://db:5432", "shop.orders", { schema: { fields: [{ name: "order_id", type: "INT" }, { name: "customer_email", type: "TEXT", description: "Where the receipt was sent" }] } })],
      }),
    );
    expect(answer.status).toBe(201);
  });
  afterAll(() => t.close());

  test("a partial name finds the artifact", async () => {
    const { edges } = await search(t, "custom");
    expect(edges.map((e) => [e.node.kind, e.node.id, e.node.label, e.node.rank])).toEqual([
      // The column's own name starts with it (its keywords); the artifact has a word that does.
      ["COLUMN", expect.stringMatching(/^col:art_[0-9a-f]{40}:customer_email$/), "postgres://db:5432/shop.orders.customer_email", "PREFIX"],
      ["ARTIFACT", ids["raw/customer_orders.csv"], "raw/customer_orders.csv", "WORD"],
    ]);
  });

  test("hits are ranked EXACT, PREFIX, WORD, SUBSTRING; within a rank the label before the keywords, datasets, jobs, pipelines before columns and artifacts", async () => {
    expect(await labels(t, "ord")).toEqual([
      "EXACT ARTIFACT ord",
      "PREFIX JOB order-loader",
      "PREFIX ARTIFACT ORD_backup.csv", // folded "ord_backup.csv" sorts before "orders.csv" ('_' < 'e')
      "PREFIX ARTIFACT orders.csv",
      "PREFIX COLUMN postgres://db:5432/shop.orders.order_id", // by its keywords: the field's own name
      "WORD DATASET postgres://db:5432/shop.orders",
      "WORD JOB load_orders",
      "WORD PIPELINE nightly-orders",
      "WORD COLUMN postgres://db:5432/shop.orders.customer_email", // newest first within a kind
      "WORD ARTIFACT raw/customer_orders.csv",
      "SUBSTRING ARTIFACT records.txt",
    ]);
  });

  test("a query of several words finds the names holding each of them at a word's start, in any order, after every hit of its phrase (WORDS)", async () => {
    // "customer orders" is no phrase of any name; its words start words of these, whatever separates them.
    const both = ["WORDS COLUMN postgres://db:5432/shop.orders.customer_email", "WORDS ARTIFACT raw/customer_orders.csv"];
    expect(await labels(t, "customer orders")).toEqual(both);
    expect(await labels(t, "orders customer")).toEqual(both);
    // Each word a word's start: "cust ord" finds them too, "ustomer orders" does not (no word starts "ustomer").
    expect(await labels(t, "ord cust")).toEqual(both);
    expect(await labels(t, "ustomer orders")).toEqual([]);
    // After every hit of the phrase: "orders.csv" is itself a name and a word of another; "csv orders" finds both by their words.
    expect(await labels(t, "orders.csv", { kinds: ["ARTIFACT"] })).toEqual(["EXACT ARTIFACT orders.csv", "WORD ARTIFACT raw/customer_orders.csv"]);
    // (newest first within a kind, as at WORD and SUBSTRING)
    expect(await labels(t, "csv orders", { kinds: ["ARTIFACT"] })).toEqual(["WORDS ARTIFACT orders.csv", "WORDS ARTIFACT raw/customer_orders.csv"]);
    expect(await labels(t, "orders shop")).toEqual([
      "WORDS DATASET postgres://db:5432/shop.orders",
      "WORDS COLUMN postgres://db:5432/shop.orders.customer_email",
      "WORDS COLUMN postgres://db:5432/shop.orders.order_id",
    ]);
    // A column's description by its words.
    const receipt = await search(t, "sent receipt");
    expect(receipt.edges.map((e) => [e.node.rank, e.node.label, e.node.matched.field, e.node.matched.text, e.node.matched.highlights])).toEqual([
      ["WORDS", "postgres://db:5432/shop.orders.customer_email", "DESCRIPTION", "Where the receipt was sent", [{ start: 10, end: 17 }, { start: 22, end: 26 }]],
    ]);
    // Each word is highlighted where it starts a word, left to right.
    const { edges } = await search(t, "orders raw");
    expect(edges.map((e) => [e.node.rank, e.node.label, e.node.highlights])).toEqual([["WORDS", "raw/customer_orders.csv", [{ start: 0, end: 3 }, { start: 13, end: 19 }]]]);
    // A single word, or words of one character only, have no WORDS rank.
    expect(await labels(t, "c o")).toEqual([]);
  });

  test("pages of any size list the ranked hits of one big page, once each", async () => {
    for (const query of ["ord", "order"]) {
      const all = await labels(t, query);
      expect(all.filter((hit) => hit.startsWith("EXACT") || hit.startsWith("PREFIX")).length).toBeGreaterThanOrEqual(3);
      for (const first of [1, 2, 3]) {
        const seen: string[] = [];
        let after: string | null = null;
        for (;;) {
          const { edges, pageInfo } = await search(t, query, { first, after });
          seen.push(...edges.map((e) => `${e.node.rank} ${e.node.kind} ${e.node.label}`));
          if (!pageInfo.hasNextPage) break;
          after = pageInfo.endCursor;
        }
        expect(seen).toEqual(all);
      }
    }
  });

  test("highlights are the query's occurrences in the label, in UTF-16 offsets, case ignored", async () => {
    const { edges } = await search(t, "ORDERS", { kinds: ["ARTIFACT", "DATASET"] });
    expect(edges.map((e) => [e.node.label, e.node.rank, e.node.highlights])).toEqual([
      ["orders.csv", "PREFIX", [{ start: 0, end: 6 }]],
      ["postgres://db:5432/shop.orders", "WORD", [{ start: 24, end: 30 }]],
      ["raw/customer_orders.csv", "WORD", [{ start: 13, end: 19 }]],
    ]);
  });

  test("what matched besides the label: a dataset's own name, an id, a column's description", async () => {
    const byName = (await search(t, "shop.orders")).edges[0].node;
    expect([byName.kind, byName.rank, byName.matched]).toEqual(["DATASET", "EXACT", { field: "KEYWORDS", text: "shop.orders", highlights: [{ start: 0, end: 11 }] }]);
    const byId = (await search(t, ids["orders.csv"].slice(0, 12))).edges[0].node;
    expect([byId.kind, byId.id, byId.rank, byId.matched.field, byId.highlights]).toEqual(["ARTIFACT", ids["orders.csv"], "PREFIX", "ID", []]);
    const byDescription = (await search(t, "receipt")).edges.map((e) => e.node);
    expect(byDescription.map((n) => [n.kind, n.label, n.rank, n.matched])).toEqual([
      ["COLUMN", "postgres://db:5432/shop.orders.customer_email", "WORD", { field: "DESCRIPTION", text: "Where the receipt was sent", highlights: [{ start: 10, end: 17 }] }],
    ]);
  });

  test("an artifact named as its id starts is listed once, by its name; the others starting so by their ids", async () => {
    const content = sha256Of("named after its own id");
    const own = artifactIdFor("csv", content);
    const query = own.slice(0, 5);
    await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [{ originalName: query.toUpperCase(), contentHash: content }] }] });
    const starting = (await t.app.database.prisma.artifact.findMany({ where: { id: { startsWith: query } }, select: { id: true } })).map((a) => a.id).sort();
    const hits = (await search(t, query, { kinds: ["ARTIFACT"], first: 50 })).edges.map((e) => [e.node.id, e.node.rank, e.node.matched?.field ?? "LABEL"]);
    expect(hits[0]).toEqual([own, "EXACT", "LABEL"]);
    expect(hits.slice(1)).toEqual(starting.filter((id) => id !== own).map((id) => [id, "PREFIX", "ID"]));
  });

  test("a run by its id or by the start of the UUID its producer gave it", async () => {
    for (const query of [`run_${openLineageRunId}`, openLineageRunId.slice(0, 8), openLineageRunId.toUpperCase()]) {
      const { edges } = await search(t, query, { kinds: ["RUN"] });
      expect(edges.map((e) => [e.node.kind, e.node.id, e.node.detail.split(" · ").slice(0, 2)])).toEqual([["RUN", `run_${openLineageRunId}`, ["load_orders", "COMPLETED"]]]);
    }
  });

  test("kinds narrows the search; each hit opens what it names", async () => {
    expect(await labels(t, "orders", { kinds: ["DATASET", "JOB"] })).toEqual(["WORD DATASET postgres://db:5432/shop.orders", "WORD JOB load_orders"]);
    // An empty list narrows nothing, as leaving it out.
    const every = await labels(t, "orders");
    expect(every.length).toBeGreaterThan(2);
    expect(await labels(t, "orders", { kinds: [] })).toEqual(every);
    const res = await t.gql(`{ search(query: "orders", kinds: [DATASET, JOB, PIPELINE]) { edges { node { kind id dataset { namespace name } artifact { dataset { name } } operation { name version } } } } }`);
    expect(res.data!.search.edges.map((e: any) => e.node)).toEqual([
      { kind: "DATASET", id: expect.stringMatching(/^art_/), dataset: { namespace: "postgres://db:5432", name: "shop.orders" }, artifact: { dataset: { name: "shop.orders" } }, operation: null },
      { kind: "JOB", id: "job:airflow-prod/load_orders", dataset: null, artifact: null, operation: { name: "load_orders", version: "openlineage:airflow-prod" } },
      { kind: "PIPELINE", id: "pipeline:nightly-orders", dataset: null, artifact: null, operation: null },
    ]);
  });

  test("a dataset hit opens its newest version; a column hit the newest version that has the column", async () => {
    const version = async (fields: string[]) => {
      const answer = await postEvent(t, runEvent({ job: { namespace: "airflow-prod", name: "load_ledger" }, outputs: [dataset("warehouse", "finance.ledger", { schema: { fields: fields.map((name) => ({ name, type: "TEXT" })) } })] }));
      expect(answer.status).toBe(201);
    };
    await version(["entry_id", "legacy_code"]);
    await version(["entry_id", "legacy_code"]);
    await version(["entry_id"]);
    const versions = (await t.gql(`{ dataset(namespace: "warehouse", name: "finance.ledger") { versions { id columns { field } } } }`)).data!.dataset.versions as { id: string; columns: { field: string }[] }[];
    expect(versions.map((v) => v.columns.map((c) => c.field).sort())).toEqual([["entry_id"], ["entry_id", "legacy_code"], ["entry_id", "legacy_code"]]);
    const res = await t.gql(`{ search(query: "finance.ledger", kinds: [DATASET, COLUMN], first: 10) { edges { node { kind label id artifact { id } } } } }`);
    const opened = Object.fromEntries(res.data!.search.edges.map((e: any) => [e.node.label, e.node.artifact.id]));
    expect(opened).toEqual({ "warehouse/finance.ledger": versions[0].id, "warehouse/finance.ledger.entry_id": versions[0].id, "warehouse/finance.ledger.legacy_code": versions[1].id });
  });

  test("autocomplete answers the best hits for what is typed so far; an empty prefix has none", async () => {
    const res = await t.gql(`{ a: autocomplete(prefix: "or", first: 3) { label rank } b: autocomplete(prefix: "  ") { label } c: autocomplete(prefix: "rep", kinds: [ARTIFACT]) { label highlights { start end } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({
      a: [
        { label: "order-loader", rank: "PREFIX" },
        { label: "ord", rank: "PREFIX" },
        { label: "ORD_backup.csv", rank: "PREFIX" },
      ],
      b: [],
      c: [{ label: "reports/daily_summary.csv", highlights: [{ start: 0, end: 3 }] }],
    });
  });

  test("totalCount counts every hit", async () => {
    const res = await t.gql(`{ search(query: "ord", first: 2) { totalCount edges { node { label } } pageInfo { hasNextPage } } }`);
    expect(res.data!.search).toMatchObject({ totalCount: 11, pageInfo: { hasNextPage: true } });
  });

  test("bad arguments are typed errors naming the field", async () => {
    const cases: [string, string, string][] = [
      [`{ search(query: "   ") { totalCount } }`, "INVALID_ARGUMENT", "query"],
      [`{ search(query: "a\\u0007b") { totalCount } }`, "INVALID_ARGUMENT", "query"],
      [`{ search(query: "${"x".repeat(201)}") { totalCount } }`, "INVALID_ARGUMENT", "query"],
      [`{ search(query: "ord", first: 101) { totalCount } }`, "PAGE_SIZE", "first"],
      [`{ autocomplete(prefix: "ord", first: 51) { label } }`, "PAGE_SIZE", "first"],
      [`{ search(query: "ord", after: "bm90LWEtY3Vyc29y") { totalCount } }`, "INVALID_CURSOR", "after"],
    ];
    for (const [query, code, field] of cases) {
      const res = await t.gql(query);
      expect([errorCodes(res), res.errors?.[0].extensions?.field]).toEqual([[code], field]);
    }
    // A cursor of another query is not a place in this one.
    const other = await search(t, "orders", { first: 1 });
    const res = await t.gql(SEARCH, { query: "ord", after: other.pageInfo.endCursor });
    expect(errorCodes(res)).toEqual(["INVALID_CURSOR"]);
  });
});

describe("search paging", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    // 60 names across every rank of "log": exact, prefixes, word starts, substrings.
    const names = ["log", ...Array.from({ length: 20 }, (_, i) => `log_${i}.csv`), ...Array.from({ length: 20 }, (_, i) => `app/log_${i}.txt`), ...Array.from({ length: 19 }, (_, i) => `catalog_${i}.json`)];
    await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: names.map(draft) }] });
  });
  afterAll(() => t.close());

  test("pages visit every hit exactly once, in the order of one big page, and a thing recorded meanwhile at most once", async () => {
    const all = (await search(t, "log", { first: 100 })).edges.map((e) => e.node.label);
    expect(all).toHaveLength(60);
    expect(all.slice(0, 2)).toEqual(["log", "log_0.csv"]);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; ; page++) {
      const { edges, pageInfo } = await search(t, "log", { first: 7, after });
      seen.push(...edges.map((e) => e.node.label));
      if (page === 2) await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft("app/log_new.txt")] }] });
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    // The new artifact is the newest of the WORD lane, which the pages had not reached: it is listed, once, first of its lane.
    expect(seen.filter((label) => label !== "app/log_new.txt")).toEqual(all);
    expect(seen.filter((label) => label === "app/log_new.txt")).toHaveLength(1);
    expect(seen.indexOf("app/log_new.txt")).toBe(all.findIndex((label) => label.startsWith("app/")));
  });
});

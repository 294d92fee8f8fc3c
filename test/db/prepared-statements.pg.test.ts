import { openReadDatabase } from "../../src/db/client";
import { PREPARED_SQL, RUNS_BEFORE_NAMED } from "../../src/db/prepared-statements";
import { createDiscovery } from "../../src/services/discovery";
import { LINEAGE_GRAPH_READS } from "../../src/services/lineage-graph";
import { draft, generator, recordOk, registerOperation, transform } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";
import { createTestDatabaseUrl } from "../support/test-database";

/**
 * On PostgreSQL the graph reads and the search lanes run as named statements from their third run of
 * a text on (src/db/prepared-statements.ts), each connection planning them once: the answers stay
 * the same through PostgreSQL's first plans and its generic plan (from a statement's sixth run), and
 * a URL through a pooler in transaction mode (`pgbouncer=true`) prepares nothing.
 */
describe("PostgreSQL: graph reads and search lanes run prepared", () => {
  let t: TestApp;
  let url: string;
  let dropDatabase: () => Promise<void>;
  let joined: string;

  beforeAll(async () => {
    ({ url, drop: dropDatabase } = await createTestDatabaseUrl());
    t = await createTestApp({ env: { DATABASE_URL: url } });
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    const sources = await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: ["orders.csv", "customers.csv"].map(draft) }] });
    const result = await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: Object.values(sources.outputIds) }],
      outputs: [{ role: "result", artifacts: [draft("orders_by_customer.csv")] }],
    });
    joined = result.outputIds["orders_by_customer.csv"];
  });
  afterAll(async () => {
    await t.close();
    await dropDatabase();
  });

  /** The statements prepared on the reader's one connection that provgraph marked. */
  const preparedOn = async (reader: ReturnType<typeof openReadDatabase>) =>
    (await reader.readRows(`SELECT statement FROM pg_prepared_statements`, [])).rows.map((row) => String(row[0])).filter((sql) => sql.startsWith(PREPARED_SQL));

  /** Asks `ask` ten times on a reader of one connection: the same answer each time; what was prepared after the first runs and after all. */
  async function askTen<T>(readUrl: string, ask: (reader: ReturnType<typeof openReadDatabase>) => Promise<T>) {
    const reader = openReadDatabase(readUrl, { poolSize: 1 });
    try {
      const first = await ask(reader);
      for (let run = 1; run < RUNS_BEFORE_NAMED; run++) expect(await ask(reader)).toEqual(first);
      const beforeNamed = await preparedOn(reader);
      for (let run = RUNS_BEFORE_NAMED; run < 10; run++) expect(await ask(reader)).toEqual(first);
      return { first, beforeNamed, after: await preparedOn(reader) };
    } finally {
      await reader.close();
    }
  }

  test("search: the lanes' statements are prepared from their third run, and answer the same", async () => {
    const search = (reader: ReturnType<typeof openReadDatabase>) => createDiscovery(reader).search({ query: "orders", first: 20, canRead: async (subjects) => subjects.map(() => true) });
    const { first, beforeNamed, after } = await askTen(url, search);
    expect(first.hits.map((hit) => hit.kind === "ARTIFACT" && hit.label).filter(Boolean)).toEqual(expect.arrayContaining(["orders.csv", "orders_by_customer.csv"]));
    expect(beforeNamed).toEqual([]);
    expect(after.length).toBeGreaterThan(0);
  });

  test("lineageGraph: its statements are prepared from their third run, and draw the same graph", async () => {
    const graph = (reader: ReturnType<typeof openReadDatabase>) =>
      LINEAGE_GRAPH_READS.lineageGraph({ roots: [joined], direction: "BOTH", depth: 2, asOf: null, stepBoundaryOnly: false, columns: false, layout: false, first: 100 }, { reader });
    const { first, beforeNamed, after } = await askTen(url, graph);
    expect(first.nodes.length).toBe(4);
    expect(beforeNamed).toEqual([]);
    expect(after.length).toBeGreaterThan(0);
  });

  test("through a pooler in transaction mode (pgbouncer=true in the URL) nothing is prepared", async () => {
    const pooled = new URL(url);
    pooled.searchParams.set("pgbouncer", "true");
    const graph = (reader: ReturnType<typeof openReadDatabase>) =>
      LINEAGE_GRAPH_READS.lineageGraph({ roots: [joined], direction: "BOTH", depth: 2, asOf: null, stepBoundaryOnly: false, columns: false, layout: false, first: 100 }, { reader });
    const { first, after } = await askTen(pooled.toString(), graph);
    expect(first.nodes.length).toBe(4);
    expect(after).toEqual([]);
  });
});

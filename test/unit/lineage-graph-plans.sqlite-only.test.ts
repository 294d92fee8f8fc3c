import { type GraphReadClient, LINEAGE_GRAPH_READS } from "../../src/services/lineage-graph";
import { seedRuns, type SeededRuns } from "../support/graph-seed";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * The statements of a neighbourhood graph read the stored tables through their indexes, never by
 * scanning a whole index: their cost follows the neighbourhood, not the store. SQLite chooses its plan
 * without statistics here (no ANALYZE), as on a store written by provgraph, so a statement shaped such
 * that it prefers a scan shows it on a small store too — as a CTE merged into another did, scanning the
 * whole runId index of the 1.05M-edge store for a dozen edges.
 */
describe("lineage graph statements: index lookups, no full scans (SQLite plans)", () => {
  let t: TestDatabase;
  let g: SeededRuns;

  beforeAll(async () => {
    t = await createTestDatabase();
    // hub ← source (run make); hub → child0..2 (runs use0..2, each with a co-input); child0 → grandchild (run next)
    g = await seedRuns(t.database.prisma, "plans", { source: "csv", hub: "csv", co: "csv", child0: "csv", child1: "csv", child2: "csv", grandchild: "csv" }, [
      { name: "make", inputs: [["source", "in"]], outputs: [["hub", "out"]], derivations: [{ from: "source", to: "hub" }] },
      ...[0, 1, 2].map((i) => ({
        name: `use${i}`,
        inputs: [["hub", "data"], ["co", "side"]] as [string, string][],
        outputs: [[`child${i}`, "out"]] as [string, string][],
        derivations: [{ from: "hub", to: `child${i}`, kind: "CO_INPUT", group: "g" }, { from: "co", to: `child${i}`, kind: "CO_INPUT", group: "g" }],
      })),
      { name: "next", inputs: [["child0", "in"]], outputs: [["grandchild", "out"]], derivations: [{ from: "child0", to: "grandchild" }] },
    ]);
  });
  afterAll(() => t.drop());

  /** Every statement a computation runs, with SQLite's plan of it. */
  async function plansOf(compute: (reader: GraphReadClient) => Promise<unknown>): Promise<{ sql: string; plan: string[] }[]> {
    const statements: { sql: string; params: readonly unknown[] }[] = [];
    await compute({
      provider: "sqlite",
      readRows: (sql, params) => {
        statements.push({ sql, params });
        return t.database.readRows(sql, params);
      },
    });
    const plans = [];
    for (const { sql, params } of statements) {
      const rows = await t.database.readRows(`EXPLAIN QUERY PLAN ${sql}`, params);
      const detail = rows.columnNames.indexOf("detail");
      plans.push({ sql: sql.slice(0, 80), plan: rows.rows.map((row) => String(row[detail])) });
    }
    return plans;
  }

  const fullScans = (plans: { sql: string; plan: string[] }[]) => plans.flatMap(({ sql, plan }) => plan.filter((line) => /^SCAN \S+ USING (COVERING )?INDEX/.test(line)).map((line) => `${sql}…: ${line}`));

  test.each([
    ["depth 1 both ways around the hub", () => ({ roots: [g.id("hub")], direction: "BOTH" as const, depth: 1, first: 1000 })],
    ["depth 3 both ways around a child", () => ({ roots: [g.id("child0")], direction: "BOTH" as const, depth: 3, first: 1000 })],
    ["depth 2 downstream of the hub, two nodes at most (lists cut)", () => ({ roots: [g.id("hub")], direction: "DOWNSTREAM" as const, depth: 2, first: 2 })],
    ["a run as root, as of now, step boundaries only", () => ({ roots: [g.id("use1")], direction: "BOTH" as const, depth: 2, first: 1000, asOf: new Date(), stepBoundaryOnly: true })],
  ])("lineageGraph, %s", async (_, args) => {
    const plans = await plansOf((reader) => LINEAGE_GRAPH_READS.lineageGraph({ asOf: null, stepBoundaryOnly: false, columns: false, layout: false, ...args() }, { reader }));
    expect(plans.length).toBeGreaterThanOrEqual(2);
    expect(fullScans(plans)).toEqual([]);
  });
});

import { jsonListSelect } from "../../src/db/json-list";
import { StatementParams } from "../../src/services/lineage-graph/read-client";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * The graph reads bind lists of ids as one JSON array; PostgreSQL's planner takes a set-returning
 * function for 100 rows unless told otherwise, and a recursive walk seeded from such a list for a
 * million, whose UNION hash table it then sizes at executor start (85 of the 88 ms of a depth-3 walk
 * of 19 nodes on the benchmark's store). Each list is LIMITed to its length rounded up to a power of two
 * (so a statement's texts are few: prepared statements): the planner's estimate of its rows is that,
 * up to 64; a longer list is planned as the planner's 100 rows.
 */
describe("PostgreSQL: a bound list of ids is planned for its length (graph reads, closures, tag flow, erasure)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const estimatedRows = async (sql: string, params: readonly unknown[]) => {
    const { rows } = await t.app.database.readRows(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    const plan = typeof rows[0][0] === "string" ? JSON.parse(rows[0][0] as string) : rows[0][0];
    return (plan as { Plan: { "Plan Rows": number } }[])[0].Plan["Plan Rows"];
  };

  test.each([
    [1, 1],
    [3, 4],
    [64, 64],
    [65, 100],
    [250, 100],
  ])("a list of %i ids, with or without its places, and a list of pairs: planned as %i rows", async (n, planned) => {
    const ids = Array.from({ length: n }, (_, i) => `art_${i}`);
    const p = new StatementParams("postgres");
    expect(await estimatedRows(`SELECT value FROM ${p.list(ids)}`, p.params)).toBe(planned);
    const q = new StatementParams("postgres");
    expect(await estimatedRows(`SELECT value, ord FROM ${q.indexedList(ids)}`, q.params)).toBe(planned);
    const r = new StatementParams("postgres");
    expect(await estimatedRows(`SELECT artifact, field FROM ${r.pairList(ids.map((id) => [id, "f"] as const))}`, r.params)).toBe(planned);
    expect(await estimatedRows(`SELECT x FROM (${jsonListSelect("postgres", "$1", ids.length)}) s(x)`, [JSON.stringify(ids)])).toBe(planned);
  });

  test("the lists still hold every id, in order", async () => {
    const ids = ["b", "a", "c", "a"];
    const p = new StatementParams("postgres");
    expect((await t.app.database.readRows(`SELECT value, ord FROM ${p.indexedList(ids)} ORDER BY ord`, p.params)).rows.map((r) => r[0])).toEqual(ids);
    expect((await t.app.database.readRows(jsonListSelect("postgres", "$1", ids.length), [JSON.stringify(ids)])).rows.map((r) => r[0])).toEqual(ids);
  });
});

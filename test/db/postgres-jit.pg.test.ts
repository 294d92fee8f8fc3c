import { createTestApp, type TestApp } from "../support/test-app";

/**
 * PostgreSQL's JIT and parallel query are off on every connection provgraph opens (src/db/client.ts):
 * compiling the walks and searches its planner overestimates cost 0.7–2.5 s a statement that reads a
 * few pages, and starting parallel workers for a search 30–40 ms.
 * The direct reads (readRows: closures, graphs, search) run on the same connections.
 */
describe("PostgreSQL connections: JIT and parallel query off", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("the writer, the reader and the direct reads say jit = off", async () => {
    const show = async (rows: Promise<unknown>) => JSON.stringify(await rows);
    expect(await show(t.app.database.prisma.$queryRawUnsafe("SHOW jit"))).toBe(JSON.stringify([{ jit: "off" }]));
    expect(await show(t.app.database.reader.$queryRawUnsafe("SHOW jit"))).toBe(JSON.stringify([{ jit: "off" }]));
    expect((await t.app.database.readRows("SHOW jit", [])).rows).toEqual([["off"]]);
  });

  test("the writer, the reader and the direct reads start no parallel workers", async () => {
    const show = async (rows: Promise<unknown>) => JSON.stringify(await rows);
    const none = JSON.stringify([{ max_parallel_workers_per_gather: "0" }]);
    expect(await show(t.app.database.prisma.$queryRawUnsafe("SHOW max_parallel_workers_per_gather"))).toBe(none);
    expect(await show(t.app.database.reader.$queryRawUnsafe("SHOW max_parallel_workers_per_gather"))).toBe(none);
    expect((await t.app.database.readRows("SHOW max_parallel_workers_per_gather", [])).rows).toEqual([["0"]]);
  });
});

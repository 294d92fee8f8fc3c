import { createTestApp, type TestApp } from "../support/test-app";

/**
 * PostgreSQL's JIT is off on every connection provgraph opens (src/db/client.ts): compiling the
 * walks and searches its planner overestimates cost 0.7–2.5 s a statement that reads a few pages.
 * The direct reads (readRows: closures, graphs, search) run on the same connections.
 */
describe("PostgreSQL connections: JIT off", () => {
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
});

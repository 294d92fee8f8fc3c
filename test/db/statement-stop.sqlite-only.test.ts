import { stopCheckSql, whileStoppable } from "../../src/db/statement-stop";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * better-sqlite3 cannot interrupt a running statement: a long one of a heavy read (a search lane's
 * rest) calls the stop function on its read connection every so many rows, which runs the check its
 * thread set for the task (its budget, whether its client went away).
 */
describe("a SQLite statement that can end itself", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  // 100,000 rows, the stop function called on every 256th.
  const counted = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c WHERE ${stopCheckSql("x")}`;

  test("on the read connection it ends when the check set for its work throws, with that error", async () => {
    let checks = 0;
    const stop = () => {
      if (++checks === 3) throw Object.assign(new Error("gone"), { code: "REQUEST_ABORTED" });
    };
    await expect(whileStoppable(stop, () => db.database.readRows(counted, []))).rejects.toMatchObject({ code: "REQUEST_ABORTED" });
    expect(checks).toBe(3);
  });

  test("without a check set it runs to its end", async () => {
    expect((await db.database.readRows(counted, [])).rows).toEqual([[100_000]]);
    // The check is the work's own: once it is done, statements no longer run it.
    let checks = 0;
    await whileStoppable(() => void (checks += 1), async () => undefined);
    expect((await db.database.readRows(counted, [])).rows).toEqual([[100_000]]);
    expect(checks).toBe(0);
  });
});

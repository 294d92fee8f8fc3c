import type { DbTx } from "../../src/db/client";
import { insertRows } from "../../src/services/recording";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

// insertRows' `returning`: which rows went in. The recording path decides by it which artifacts a unit
// created (and so which it indexes, which take their dataset's tags); on SQLite a column the rows give
// is read from the rows that went in, without RETURNING, and a generated one comes back from RETURNING.
describe(`insertRows returning (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  // A transaction the database opens: its statements go straight to the driver, as the commit path's do.
  const inTransaction = <T>(work: (tx: DbTx) => Promise<T>) => db.database.transaction(work, { maxWait: 5_000, timeout: 10_000 });

  test("a given column: the keys of the rows inserted, a conflict ignored left out, in the order they went in", async () => {
    await db.database.prisma.$executeRawUnsafe(`INSERT INTO "SearchNamespace" ("name", "datasets", "jobs") VALUES ('warehouse', 3, 0)`);
    const rows = ["s3://lake", "warehouse", "postgres://db", "kafka://bus"].map((name) => [name, 1, 0]);
    const returned = await inTransaction((tx) => insertRows(tx, "SearchNamespace", ["name", "datasets", "jobs"], rows, { ignoreConflicts: true, returning: "name" }));
    // Rows that may conflict go in sorted by their values (one lock order for every transaction).
    expect(returned).toEqual(["kafka://bus", "postgres://db", "s3://lake"]);
    const stored = await db.database.prisma.$queryRawUnsafe<{ name: string; datasets: number }[]>(`SELECT "name", "datasets" FROM "SearchNamespace" ORDER BY "name"`);
    expect(stored.map((r) => [r.name, Number(r.datasets)])).toEqual([
      ["kafka://bus", 1],
      ["postgres://db", 1],
      ["s3://lake", 1],
      ["warehouse", 3],
    ]);
  });

  test("every row a conflict: nothing returned, nothing changed", async () => {
    const returned = await inTransaction((tx) => insertRows(tx, "SearchNamespace", ["name", "datasets", "jobs"], [["warehouse", 9, 9]], { ignoreConflicts: true, returning: "name" }));
    expect(returned).toEqual([]);
    const [row] = await db.database.prisma.$queryRawUnsafe<{ datasets: number }[]>(`SELECT "datasets" FROM "SearchNamespace" WHERE "name" = 'warehouse'`);
    expect(Number(row.datasets)).toBe(3);
  });

  test("a generated column (an autoincrement id the rows do not give): the ids the database gave", async () => {
    const at = new Date("2026-12-04T00:00:00.000Z");
    const rows = ["pii", "finance"].map((tag) => [tag, "[]", "test", "tester", null, at]);
    const returned = await inTransaction((tx) => insertRows(tx, "TagPurposePolicy", ["tag", "purposes", "reason", "declaredBy", "tokenId", "createdAt"], rows, { returning: "id" }));
    const stored = await db.database.prisma.tagPurposePolicy.findMany({ orderBy: { id: "asc" }, select: { id: true, tag: true } });
    expect(stored.map((r) => r.tag)).toEqual(["pii", "finance"]);
    expect(returned).toEqual(stored.map((r) => String(r.id)));
  });
});

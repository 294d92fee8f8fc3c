import BetterSqlite3 from "better-sqlite3";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import type { SqlDriverAdapter, SqlQuery } from "@prisma/driver-adapter-utils";
import { reuseAdapterStatements, sqliteDriverHandle } from "../../src/db/reused-statements";

/** Prisma's better-sqlite3 adapter over a connection that prepares each SQL text once: same answers, fewer prepares. */
describe("statements reused by the SQLite driver adapter", () => {
  let adapter: SqlDriverAdapter;
  let prepare: jest.SpyInstance<BetterSqlite3.Statement, [string]>;
  const query = (sql: string, ...args: (string | number)[]): SqlQuery => ({
    sql,
    args,
    argTypes: args.map((arg) => ({ scalarType: typeof arg === "number" ? "int" : "string", arity: "scalar" })),
  });

  beforeEach(async () => {
    adapter = await new PrismaBetterSqlite3({ url: "file::memory:" }).connect();
    reuseAdapterStatements(adapter);
    await adapter.executeScript(`CREATE TABLE "Item" (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`);
    prepare = jest.spyOn(BetterSqlite3.prototype, "prepare");
  });
  afterEach(async () => {
    prepare.mockRestore();
    await adapter.dispose();
  });

  test("one statement serves every run of its SQL, each with its own arguments", async () => {
    const insert = `INSERT INTO "Item" (id, name) VALUES (?, ?)`;
    for (let id = 1; id <= 5; id++) expect(await adapter.executeRaw(query(insert, id, `item ${id}`))).toBe(1);
    const byId = `SELECT id, name FROM "Item" WHERE id = ?`;
    const second = await adapter.queryRaw(query(byId, 2));
    const fourth = await adapter.queryRaw(query(byId, 4));
    expect(second.columnNames).toEqual(["id", "name"]);
    expect(second.rows).toEqual([[2, "item 2"]]);
    expect(fourth.rows).toEqual([[4, "item 4"]]);
    expect(prepare.mock.calls.map(([sql]) => sql)).toEqual([insert, byId]);
  });

  test("transactions reuse BEGIN and COMMIT; a failed statement leaves its statement usable", async () => {
    const insert = `INSERT INTO "Item" (id, name) VALUES (?, ?)`;
    for (let round = 0; round < 3; round++) {
      const transaction = await adapter.startTransaction();
      await transaction.executeRaw(query(insert, 10 + round, "kept"));
      // The same id twice: the constraint fails, and the statement runs again right after.
      await expect(transaction.executeRaw(query(insert, 10 + round, "again"))).rejects.toMatchObject({ name: "DriverAdapterError" });
      await transaction.executeRaw(query(insert, 20 + round, "kept too"));
      await transaction.executeRaw(query("COMMIT"));
      await transaction.commit();
    }
    const count = await adapter.queryRaw(query(`SELECT COUNT(*) AS n FROM "Item"`));
    expect(count.rows).toEqual([[6]]);
    expect(prepare.mock.calls.map(([sql]) => sql)).toEqual(["BEGIN", insert, "COMMIT", `SELECT COUNT(*) AS n FROM "Item"`]);
  });

  test("a statement read in raw mode by the adapter answers in rows to the next use", async () => {
    const insert = `INSERT INTO "Item" (id, name) VALUES (?, ?)`;
    await adapter.executeRaw(query(insert, 1, "one"));
    const sql = `SELECT id, name FROM "Item" WHERE id = ?`;
    await adapter.queryRaw(query(sql, 1)); // the adapter reads it with raw()
    const handle = sqliteDriverHandle((adapter as unknown as { client: unknown }).client)!;
    // Our direct statements reach the driver's own handle, past the reused statements.
    expect(handle).toBeInstanceOf(BetterSqlite3);
    const client = (adapter as unknown as { client: BetterSqlite3.Database }).client;
    expect(client.prepare(sql).get(1)).toEqual({ id: 1n, name: "one" });
    expect(client.prepare(sql).bind(1).raw().all()).toEqual([[1n, "one"]]);
    expect(prepare.mock.calls.map(([prepared]) => prepared)).toEqual([insert, sql]);
  });
});

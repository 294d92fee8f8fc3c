import { directStatementsOf } from "../../src/db/direct-statements";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

// Reads on a connection (or pool) of their own; the hot statements of a recording straight to the driver.
describe(`the read client and direct statements (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  const insertOperation = (id: string) => `INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ('${id}', '${id}', '1', 'CREATOR', '{}', CURRENT_TIMESTAMP)`;
  const seen = async (id: string) => (await db.database.reader.operation.findUnique({ where: { id } })) !== null;

  test("the reader sees what is committed, never a transaction still open on the writer", async () => {
    const duringWrite = await db.database.transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(insertOperation("op_open"));
        return seen("op_open");
      },
      { maxWait: 5_000, timeout: 10_000 },
    );
    expect({ duringWrite, afterCommit: await seen("op_open") }).toEqual({ duringWrite: false, afterCommit: true });
  });

  test("a transaction the database opens reaches its driver directly (on SQLite through prepared statements, one row each); others do not", async () => {
    const kinds = await db.database.transaction(
      async (tx) => {
        const direct = directStatementsOf(tx);
        const before = db.database.statementCount();
        const { columnNames, rows } = await direct!.query(`SELECT CAST(COUNT(*) AS INTEGER) AS "n", 'x' AS "s" FROM "Operation"`, []);
        return { provider: direct!.provider, eachRow: direct!.runEach !== undefined, counted: db.database.statementCount() - before, columnNames, rows };
      },
      { maxWait: 5_000, timeout: 10_000 },
    );
    expect(kinds).toEqual({ provider: testProvider, eachRow: testProvider === "sqlite", counted: 1, columnNames: ["n", "s"], rows: [[1, "x"]] });
    await db.database.prisma.$transaction(async (tx) => expect(directStatementsOf(tx)).toBeUndefined());
  });

  test("readRows answers arrays from the reader, integers as numbers, counted as one statement", async () => {
    const before = db.database.statementCount();
    const result = await db.database.readRows(`SELECT id, 2 AS "two" FROM "Operation" WHERE id = ${testProvider === "sqlite" ? "?" : "$1"}`, ["op_open"]);
    expect(db.database.statementCount() - before).toBe(1);
    expect(result).toEqual({ columnNames: ["id", "two"], rows: [["op_open", 2]] });
  });
});

import type { DbTx } from "../../src/db/client";
import { directStatementsOf } from "../../src/db/direct-statements";
import { GroupCommit } from "../../src/services/recording";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

// A group-commit transaction that outlives its time limit is rolled back by Prisma while a unit in it
// still runs (a 30,000-output recording on a loaded machine met the 120 s limit): that unit's later
// statements went straight to the driver outside any transaction, committed on their own, and the
// group commit's RELEASE SAVEPOINT then failed with "no such savepoint" for every caller in it.
describe(`a transaction that outlives its time limit (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  // Long enough that the rerun of the unit before (BEGIN, one INSERT, COMMIT in a new transaction with
  // the same limit) cannot meet it on a loaded machine: at 300 ms a CI run on PostgreSQL once did.
  const TIMEOUT_MS = 2_000;
  const insertOperation = (id: string) => `INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ('${id}', '${id}', '1', 'CREATOR', '{}', CURRENT_TIMESTAMP)`;
  /** The way recording writes its rows: straight to the driver, in the unit's transaction (bulk-insert.ts). */
  const write = (tx: DbTx, id: string) => directStatementsOf(tx)!.execute(insertOperation(id), []);
  const stored = async (prefix: string) =>
    (await db.database.reader.operation.findMany({ where: { id: { startsWith: prefix } }, select: { id: true }, orderBy: { id: "asc" } })).map((row) => row.id);
  /** Waits (without a time bound of its own) until Prisma has ended the transaction: it then refuses queries through `tx`. */
  async function untilEnded(tx: DbTx): Promise<void> {
    for (;;) {
      try {
        await tx.$queryRawUnsafe("SELECT 1");
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const outcome = (result: PromiseSettledResult<unknown>) =>
    result.status === "fulfilled" ? result.value : { code: (result.reason as { code?: unknown }).code, message: (result.reason as Error).message, details: (result.reason as { details?: unknown }).details };

  test("the unit it ended under writes nothing outside it and fails with TRANSACTION_TIMEOUT; the unit before it commits in a new transaction", async () => {
    const commits = new GroupCommit(db.database, { maxTransactionMs: 60_000, transactionTimeoutMs: TIMEOUT_MS });
    const results = await Promise.allSettled([
      commits.run(async (tx) => {
        await write(tx, "t_a");
        return "a";
      }),
      commits.run(async (tx) => {
        await write(tx, "t_b_before");
        await untilEnded(tx);
        await write(tx, "t_b_after");
        return "b";
      }),
    ]);
    expect(results.map(outcome)).toEqual([
      "a",
      { code: "TRANSACTION_TIMEOUT", message: `the write's transaction ran past its time limit of 2,000 ms and was rolled back; nothing of it was recorded`, details: { timeoutMs: TIMEOUT_MS, retryable: true, retryAfterSeconds: 1 } },
    ]);
    expect(await stored("t_")).toEqual(["t_a"]);
    // The writer is usable afterwards: the next unit commits.
    await expect(commits.run((tx) => write(tx, "t_next"))).resolves.toBe(1);
    expect(await stored("t_")).toEqual(["t_a", "t_next"]);
  }, 60_000);

  test("a unit that fails on its own after the transaction ended keeps its own error; the unit before it commits in a new transaction", async () => {
    const commits = new GroupCommit(db.database, { maxTransactionMs: 60_000, transactionTimeoutMs: TIMEOUT_MS });
    const results = await Promise.allSettled([
      commits.run(async (tx) => {
        await write(tx, "u_a");
        return "a";
      }),
      commits.run(async (tx) => {
        await write(tx, "u_b");
        await untilEnded(tx);
        throw new Error("unit b's own failure");
      }),
    ]);
    expect(results.map(outcome)).toEqual(["a", { code: undefined, message: "unit b's own failure", details: undefined }]);
    expect(await stored("u_")).toEqual(["u_a"]);
  }, 60_000);

  test("a unit whose savepoint cannot be rolled back keeps its own error; the units it shared the transaction with hear why they failed", async () => {
    const commits = new GroupCommit(db.database, { maxTransactionMs: 60_000 });
    const results = await Promise.allSettled([
      commits.run((tx) => write(tx, "v_a")),
      commits.run(async (tx) => {
        await write(tx, "v_b");
        // Its own savepoint (the group commit's second) gone: rolling the unit back to it fails.
        await directStatementsOf(tx)!.execute("RELEASE SAVEPOINT unit_2", []);
        throw new Error("unit b's own failure");
      }),
    ]);
    expect(outcome(results[1])).toMatchObject({ message: "unit b's own failure" });
    expect(results[0].status).toBe("rejected");
    const shared = (results[0] as PromiseRejectedResult).reason as Error;
    expect(shared.message).toMatch(/^a recording sharing this transaction failed and could not be rolled back to its savepoint \(.*savepoint.*\); nothing of the transaction was committed$/);
    expect((shared.cause as Error).message).toBe("unit b's own failure");
    expect(await stored("v_")).toEqual([]);
  }, 60_000);
});

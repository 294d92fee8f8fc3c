import BetterSqlite3 from "better-sqlite3";
import { openDatabase } from "../../src/db/client";
import { sqliteFilePath } from "../../src/db/database-url";
import { GroupCommit, MAX_TRANSACTION_ATTEMPTS, type RecordingEvent } from "../../src/services/recording";
import type { ExecutionRecord } from "../../src/services/records";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

const event = (runId: string): RecordingEvent => ({ type: "EXECUTION_RECORDED", execution: { runId } as ExecutionRecord, edges: [] });
const runIdOf = (e: RecordingEvent) => (e.type === "LINEAGE_RECORDED" ? e.runId : e.execution.runId);
const insertOperation = (id: string) => `INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ('${id}', '${id}', '1', 'CREATOR', '{}', CURRENT_TIMESTAMP)`;
/** What node-postgres raises for a deadlock (SQLSTATE 40P01), as it reaches a unit through the driver. */
/** One transaction takes every unit queued together, however slow a busy machine makes it (the default stops taking units after 100 ms). */
const oneTransaction = { maxTransactionMs: 60_000 };
const deadlock = () => Object.assign(new Error("deadlock detected"), { code: "40P01", severity: "ERROR" });

// Issue 13, point 1: the commit path runs a transaction again when it meets a deadlock or a
// serialization failure, rerunning its surviving units from their start, and answers each caller once.
describe(`transaction retries on the commit path (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  const stored = async (prefix: string) =>
    (await db.database.reader.operation.findMany({ where: { id: { startsWith: prefix } }, select: { id: true }, orderBy: { id: "asc" } })).map((row) => row.id);

  test("a transaction failing with 40P01 once is rolled back and rerun: each caller answered once, each row and event once", async () => {
    const commits = new GroupCommit(db.database, oneTransaction);
    const heard: string[][] = [];
    commits.onCommitted((events) => heard.push(events.map(runIdOf)));
    const runs = { u1: 0, u2: 0, u3: 0, u4: 0 };
    const answers: string[] = [];
    const answer = (name: string, promise: Promise<unknown>) =>
      promise.then(
        (value) => answers.push(`${name}: ${String(value)}`),
        (error: Error) => answers.push(`${name} refused: ${error.message}`),
      );
    await Promise.all([
      answer(
        "u1",
        commits.run(async (tx, scope) => {
          runs.u1 += 1;
          await tx.$executeRawUnsafe(insertOperation("r_1"));
          scope.emit(event("run_1"));
          return "ok 1";
        }),
      ),
      answer(
        "u2",
        commits.run(async (tx, scope) => {
          runs.u2 += 1;
          await tx.$executeRawUnsafe(insertOperation("r_2"));
          if (runs.u2 === 1) throw deadlock();
          scope.emit(event("run_2"));
          return "ok 2";
        }),
      ),
      answer(
        "u3",
        commits.run(async (tx) => {
          runs.u3 += 1;
          await tx.$executeRawUnsafe(insertOperation("r_3"));
          throw new Error("u3 fails on its own");
        }),
      ),
      answer(
        "u4",
        commits.run(async (tx, scope) => {
          runs.u4 += 1;
          await tx.$executeRawUnsafe(insertOperation("r_4"));
          scope.emit(event("run_4"));
          return "ok 4";
        }),
      ),
    ]);
    // u1 and u2 shared the first transaction, which met the deadlock in u2: both reran in the second; u3 and u4 came after.
    expect(runs).toEqual({ u1: 2, u2: 2, u3: 1, u4: 1 });
    expect(answers.sort()).toEqual(["u1: ok 1", "u2: ok 2", "u3 refused: u3 fails on its own", "u4: ok 4"]);
    expect(await stored("r_")).toEqual(["r_1", "r_2", "r_4"]);
    expect(heard).toEqual([["run_1", "run_2"], ["run_4"]]);
    expect(commits.stats()).toEqual({ transactions: 2, units: 6, retries: 1 });
  });

  test("a unit that fails on its own in a retried transaction keeps its answer and is not rerun", async () => {
    const commits = new GroupCommit(db.database, oneTransaction);
    const runs = { ok: 0, own: 0, conflicted: 0 };
    const results = await Promise.allSettled([
      commits.run(async (tx) => {
        runs.ok += 1;
        await tx.$executeRawUnsafe(insertOperation("s_1"));
      }),
      commits.run(async (tx) => {
        runs.own += 1;
        await tx.$executeRawUnsafe(insertOperation("s_1")); // a duplicate key: its own failure
      }),
      commits.run(async (tx) => {
        runs.conflicted += 1;
        await tx.$executeRawUnsafe(insertOperation("s_3"));
        if (runs.conflicted === 1) throw deadlock();
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(runs).toEqual({ ok: 2, own: 1, conflicted: 2 });
    expect(await stored("s_")).toEqual(["s_1", "s_3"]);
  });

  test(`after ${MAX_TRANSACTION_ATTEMPTS} attempts a unit that keeps meeting conflicts fails alone with TRANSACTION_CONFLICT; the others commit`, async () => {
    const commits = new GroupCommit(db.database, oneTransaction);
    let conflicted = 0;
    const results = await Promise.allSettled([
      commits.run((tx) => tx.$executeRawUnsafe(insertOperation("t_1"))),
      commits.run(async (tx) => {
        conflicted += 1;
        await tx.$executeRawUnsafe(insertOperation("t_2"));
        throw deadlock();
      }),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? "fulfilled" : [(r.reason as { code: string }).code, (r.reason as { details: unknown }).details]))).toEqual([
      "fulfilled",
      ["TRANSACTION_CONFLICT", { attempts: MAX_TRANSACTION_ATTEMPTS, retryable: true, retryAfterSeconds: 1 }],
    ]);
    expect(conflicted).toBe(MAX_TRANSACTION_ATTEMPTS);
    expect(await stored("t_")).toEqual(["t_1"]);
    expect(commits.stats()).toMatchObject({ transactions: 1, retries: MAX_TRANSACTION_ATTEMPTS - 1 });
  });

  // A real conflict, raised by the database itself.
  if (testProvider === "postgres") {
    test("PostgreSQL: a real deadlock between two instances' transactions is resolved by the retry; both callers succeed", async () => {
      await db.database.prisma.$executeRawUnsafe(insertOperation("d_x"));
      await db.database.prisma.$executeRawUnsafe(insertOperation("d_y"));
      const other = openDatabase(db.url);
      try {
        const mine = new GroupCommit(db.database);
        const theirs = new GroupCommit(other);
        // Each locks one row, waits until the other has locked its own, then asks for the other's: a deadlock PostgreSQL breaks (deadlock_timeout, 1 s).
        let locked = 0;
        const bothLocked = () => new Promise<void>((resolve) => {
          const check = () => (locked >= 2 ? resolve() : setTimeout(check, 5));
          check();
        });
        const lockBoth = (first: string, second: string) => async (tx: Parameters<Parameters<GroupCommit["run"]>[0]>[0]) => {
          await tx.$executeRawUnsafe(`UPDATE "Operation" SET version = version WHERE id = '${first}'`);
          locked += 1;
          await bothLocked();
          await tx.$executeRawUnsafe(`UPDATE "Operation" SET version = version WHERE id = '${second}'`);
          return first;
        };
        const results = await Promise.allSettled([mine.run(lockBoth("d_x", "d_y")), theirs.run(lockBoth("d_y", "d_x"))]);
        expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
        expect(mine.stats().retries + theirs.stats().retries).toBe(1);
      } finally {
        await other.close();
      }
    }, 30_000);
  } else {
    test("SQLite: a stale snapshot (SQLITE_BUSY_SNAPSHOT: another connection committed between the unit's read and its write) is retried", async () => {
      const commits = new GroupCommit(db.database, oneTransaction);
      const outsider = new BetterSqlite3(sqliteFilePath(db.url), { timeout: 0 });
      let runs = 0;
      try {
        const result = await commits.run(async (tx) => {
          runs += 1;
          await tx.$queryRawUnsafe(`SELECT COUNT(*) FROM "Operation"`);
          // Another connection writes and commits once, after our read: our snapshot is now stale.
          if (runs === 1) outsider.exec(insertOperation("b_outsider"));
          await tx.$executeRawUnsafe(insertOperation(`b_mine`));
          return runs;
        });
        expect(result).toBe(2);
        expect(await stored("b_")).toEqual(["b_mine", "b_outsider"]);
        expect(commits.stats().retries).toBe(1);
      } finally {
        outsider.close();
      }
    });
  }
});

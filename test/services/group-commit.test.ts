import { GroupCommit, type RecordingEvent } from "../../src/services/recording";
import type { ExecutionRecord } from "../../src/services/records";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

// The commit path of record: units coalesced into shared transactions, each one atomic on its own.
describe(`group commit (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  const event = (runId: string): RecordingEvent => ({ type: "EXECUTION_RECORDED", execution: { runId } as ExecutionRecord, edges: [] });
  const runIdOf = (e: RecordingEvent) => (e.type === "LINEAGE_RECORDED" ? e.runId : e.execution.runId);
  const insertOperation = (id: string) => `INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ('${id}', '${id}', '1', 'CREATOR', '{}', CURRENT_TIMESTAMP)`;
  const stored = async (prefix: string) =>
    (await db.database.reader.operation.findMany({ where: { id: { startsWith: prefix } }, select: { id: true }, orderBy: { id: "asc" } })).map((row) => row.id);

  test("units handed in together share one transaction; one that throws after writing is rolled back alone and its caller gets its error", async () => {
    // No time cut: on a loaded machine ten units can take longer than the default 100 ms, and the count below is about coalescing.
    const commits = new GroupCommit(db.database, { maxTransactionMs: 60_000 });
    const heard: string[][] = [];
    commits.onCommitted((events) => heard.push(events.map(runIdOf)));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        commits.run(async (tx, scope) => {
          await tx.$executeRawUnsafe(insertOperation(`a_${i}`));
          scope.emit(event(`run_a_${i}`));
          if (i % 3 === 1) throw new Error(`unit ${i} rejected after writing`);
          await tx.$executeRawUnsafe(insertOperation(`a_${i}_second`));
          return `result ${i}`;
        }),
      ),
    );
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      "result 0",
      "unit 1 rejected after writing",
      "result 2",
      "result 3",
      "unit 4 rejected after writing",
      "result 5",
      "result 6",
      "unit 7 rejected after writing",
      "result 8",
      "result 9",
    ]);
    expect(await stored("a_")).toEqual(["a_0", "a_0_second", "a_2", "a_2_second", "a_3", "a_3_second", "a_5", "a_5_second", "a_6", "a_6_second", "a_8", "a_8_second", "a_9", "a_9_second"]);
    expect(commits.stats()).toEqual({ transactions: 1, units: 10, retries: 0 });
    expect(heard).toEqual([["run_a_0", "run_a_2", "run_a_3", "run_a_5", "run_a_6", "run_a_8", "run_a_9"]]);
  });

  test("a failed statement inside a unit does not poison the transaction: the next units' statements run and commit", async () => {
    const commits = new GroupCommit(db.database);
    const results = await Promise.allSettled([
      commits.run((tx) => tx.$executeRawUnsafe(insertOperation("b_1"))),
      // a duplicate key: on PostgreSQL the transaction is in error until rolled back to the savepoint
      commits.run((tx) => tx.$executeRawUnsafe(insertOperation("b_1"))),
      commits.run((tx) => tx.$executeRawUnsafe(insertOperation("b_2"))),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await stored("b_")).toEqual(["b_1", "b_2"]);
  });

  test("when the first unit of a transaction fails, the transaction is rolled back and the units after it commit in the next", async () => {
    const commits = new GroupCommit(db.database);
    const results = await Promise.allSettled([
      commits.run(async (tx) => {
        await tx.$executeRawUnsafe(insertOperation("c_1"));
        throw new Error("first unit fails");
      }),
      commits.run((tx) => tx.$executeRawUnsafe(insertOperation("c_2"))),
      commits.run((tx) => tx.$executeRawUnsafe(insertOperation("c_3"))),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(await stored("c_")).toEqual(["c_2", "c_3"]);
    expect(commits.stats()).toEqual({ transactions: 1, units: 3, retries: 0 });
  });

  test("a caller is answered only after the commit holding its unit: the read client sees its rows then, and not before", async () => {
    const commits = new GroupCommit(db.database);
    const seen = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const whileWriting = await commits.run(async (tx) => {
          await tx.$executeRawUnsafe(insertOperation(`d_${i}`));
          return (await stored(`d_${i}`)).length;
        });
        return { whileWriting, answered: (await stored(`d_${i}`)).length };
      }),
    );
    expect(seen).toEqual(Array.from({ length: 5 }, () => ({ whileWriting: 0, answered: 1 })));
  });

  test("the journal is written once per transaction, inside it, with the events of the units kept, and listeners get its receipts", async () => {
    const calls: string[][] = [];
    const journal = {
      append: async (tx: Parameters<Parameters<GroupCommit["run"]>[0]>[0], events: readonly RecordingEvent[]) => {
        calls.push(events.map(runIdOf));
        await tx.$executeRawUnsafe(insertOperation(`e_journal_${calls.length}`));
        return events.map((_, k) => ({ sequence: calls.length * 10 + k, loggedAt: new Date(0) }));
      },
    };
    const commits = new GroupCommit(db.database, { journal });
    const heard: { events: string[]; receipts: readonly unknown[] }[] = [];
    commits.onCommitted((events, receipts) => heard.push({ events: events.map(runIdOf), receipts }));
    await Promise.allSettled([
      commits.run(async (_tx, scope) => void scope.emit(event("run_e_1"))),
      commits.run(async (_tx, scope) => {
        scope.emit(event("run_e_2"));
        throw new Error("rolled back: its event is not journalled");
      }),
      commits.run(async (_tx, scope) => {
        scope.emit(event("run_e_3"));
        scope.emit(event("run_e_4"));
      }),
    ]);
    expect(calls).toEqual([["run_e_1", "run_e_3", "run_e_4"]]);
    expect(heard).toEqual([{ events: ["run_e_1", "run_e_3", "run_e_4"], receipts: [10, 11, 12].map((sequence) => ({ sequence, loggedAt: new Date(0) })) }]);
    expect(await stored("e_journal")).toEqual(["e_journal_1"]);
  });

  test("a journal that fails rolls the whole transaction back: every caller in it gets that error, nothing is announced", async () => {
    const journal = {
      append: async () => {
        throw new Error("feed log unavailable");
      },
    };
    const commits = new GroupCommit(db.database, { journal });
    const heard: unknown[] = [];
    commits.onCommitted((events) => heard.push(events));
    const results = await Promise.allSettled([
      commits.run(async (tx, scope) => {
        await tx.$executeRawUnsafe(insertOperation("f_1"));
        scope.emit(event("run_f_1"));
      }),
      commits.run(async (tx, scope) => {
        await tx.$executeRawUnsafe(insertOperation("f_2"));
        scope.emit(event("run_f_2"));
      }),
    ]);
    expect(results.map((r) => (r.status === "rejected" ? (r.reason as Error).message : "fulfilled"))).toEqual(["feed log unavailable", "feed log unavailable"]);
    expect(await stored("f_")).toEqual([]);
    expect(heard).toEqual([]);
  });

  test("units handed in while a transaction runs go into the next, in order; listeners hear transactions in commit order", async () => {
    const commits = new GroupCommit(db.database);
    const heard: string[][] = [];
    commits.onCommitted((events) => heard.push(events.map(runIdOf)));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = commits.run(async (_tx, scope) => {
      scope.emit(event("run_g_1"));
      await gate;
    });
    await new Promise((resolve) => setTimeout(resolve, 20)); // the first transaction is open, waiting on the gate
    const later = [2, 3].map((n) => commits.run(async (_tx, scope) => void scope.emit(event(`run_g_${n}`))));
    // The first transaction takes units until it is 100 ms old; hold it past that so the later ones wait for the next.
    setTimeout(release, 150);
    await Promise.all([first, ...later]);
    expect(heard).toEqual([["run_g_1"], ["run_g_2", "run_g_3"]]);
  });
});

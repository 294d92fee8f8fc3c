import { type EventJournal, type RecordingEvent, TransactionPerUnit } from "../../src/services/recording";
import type { ExecutionRecord } from "../../src/services/records";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

// The commit path every recording takes: a unit's rows and events are kept together or dropped together.
describe("commit path (one transaction per unit)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  const event = (runId: string): RecordingEvent => ({ type: "EXECUTION_RECORDED", execution: { runId } as ExecutionRecord, edges: [] });
  const runIdOf = (e: RecordingEvent) => (e.type === "LINEAGE_RECORDED" ? e.runId : e.execution.runId);
  const insertOperation = (id: string) => `INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ('${id}', '${id}', '1', 'CREATOR', '{}', CURRENT_TIMESTAMP)`;

  it("delivers a unit's events after its commit, in the order emitted, and answers the unit's result", async () => {
    const commits = new TransactionPerUnit(db.database.prisma);
    const heard: { runIds: string[]; committed: number }[] = [];
    commits.onCommitted((events) => {
      // Listeners run after the commit, so a fresh read sees the unit's row.
      void db.database.prisma.operation.count().then((committed) => heard.push({ runIds: events.map(runIdOf), committed }));
    });
    const result = await commits.run(async (tx, scope) => {
      await tx.$executeRawUnsafe(insertOperation("op_a"));
      scope.emit(event("run_1"));
      scope.emit(event("run_2"));
      return "done";
    });
    expect(result).toBe("done");
    // The listener's count is a read of its own: wait for it (50 ms was not always enough for PostgreSQL on a loaded machine).
    while (heard.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(heard).toEqual([{ runIds: ["run_1", "run_2"], committed: 1 }]);
  });

  it("a unit that throws writes nothing and announces nothing", async () => {
    const commits = new TransactionPerUnit(db.database.prisma);
    const heard: RecordingEvent[][] = [];
    commits.onCommitted((events) => heard.push([...events]));
    const before = await db.database.prisma.operation.count();
    await expect(
      commits.run(async (tx, scope) => {
        await tx.$executeRawUnsafe(insertOperation("op_b"));
        scope.emit(event("run_3"));
        throw new Error("rejected");
      }),
    ).rejects.toThrow("rejected");
    expect(await db.database.prisma.operation.count()).toBe(before);
    expect(heard).toEqual([]);
  });

  it("a listener that throws does not fail a committed unit; the others still hear it; unsubscribing stops delivery", async () => {
    const reported: unknown[] = [];
    const commits = new TransactionPerUnit(db.database.prisma, (error) => reported.push(error));
    const heard: string[] = [];
    commits.onCommitted(() => {
      throw new Error("listener bug");
    });
    const stop = commits.onCommitted((events) => heard.push(...events.map(runIdOf)));
    await expect(commits.run(async (_tx, scope) => (scope.emit(event("run_4")), "committed"))).resolves.toBe("committed");
    stop();
    await commits.run(async (_tx, scope) => void scope.emit(event("run_5")));
    expect(heard).toEqual(["run_4"]);
    expect(reported.map((e) => (e as Error).message)).toEqual(["listener bug", "listener bug"]);
  });

  it("with a journal: it appends the unit's events inside the transaction, its receipts reach the listeners; a journal that fails rolls the unit back", async () => {
    const appended: { runIds: string[]; inTransaction: number }[] = [];
    let fail = false;
    const journal: EventJournal = {
      append: async (tx, events) => {
        // Inside the unit's transaction: its rows are visible here, not yet committed.
        appended.push({ runIds: events.map(runIdOf), inTransaction: Number((await tx.$queryRawUnsafe<{ n: number }[]>(`SELECT COUNT(*) AS n FROM "Operation"`))[0].n) });
        if (fail) throw new Error("journal unavailable");
        return events.map((_, i) => ({ sequence: 100 + i, loggedAt: new Date(0) }));
      },
    };
    const commits = new TransactionPerUnit(db.database.prisma, undefined, journal);
    const heard: { runIds: string[]; sequences: number[] }[] = [];
    commits.onCommitted((events, receipts) => heard.push({ runIds: events.map(runIdOf), sequences: receipts.map((r) => r.sequence) }));
    const before = await db.database.prisma.operation.count();
    await commits.run(async (tx, scope) => {
      await tx.$executeRawUnsafe(insertOperation("op_journal_1"));
      scope.emit(event("run_6"));
      scope.emit(event("run_7"));
    });
    expect(appended).toEqual([{ runIds: ["run_6", "run_7"], inTransaction: before + 1 }]);
    expect(heard).toEqual([{ runIds: ["run_6", "run_7"], sequences: [100, 101] }]);
    fail = true;
    await expect(
      commits.run(async (tx, scope) => {
        await tx.$executeRawUnsafe(insertOperation("op_journal_2"));
        scope.emit(event("run_8"));
      }),
    ).rejects.toThrow("journal unavailable");
    expect(await db.database.prisma.operation.count()).toBe(before + 1);
    expect(heard).toHaveLength(1);
  });
});

import type { DbTx } from "../../src/db/client";
import { FeedLog } from "../../src/services/feeds";
import { type EventJournal, type JournalReceipt, type RecordingEvent, TransactionPerUnit } from "../../src/services/recording";
import { executionRecord, lineageRecorded, recorded, statusChanged } from "../support/feeds";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

// The feed log is the commit path's journal: a unit's events are appended inside its transaction.
describe(`feed log (${testProvider})`, () => {
  let db: TestDatabase;
  let log: FeedLog;
  beforeAll(async () => {
    db = await createTestDatabase();
    log = new FeedLog(db.database.prisma, db.database.provider);
  });
  afterAll(() => db.drop());

  const feedRows = () => db.database.prisma.feedEvent.count();

  test("a committed unit's events get consecutive sequences in the order emitted; listeners hear the receipts; the log returns the same events", async () => {
    const commits = new TransactionPerUnit(db.database.prisma, undefined, log);
    const heard: { types: string[]; sequences: number[] }[] = [];
    commits.onCommitted((events, receipts) => heard.push({ types: events.map((e) => e.type), sequences: receipts.map((r) => r.sequence) }));
    const started = executionRecord({ status: "STARTED", params: { deep: { list: [1, "two", null] } }, pipeline: "nightly", step: 2 });
    const running = { ...started, status: "RUNNING" as const, endedAt: null };
    const edges = [{ sourceId: "art_a", targetId: "art_b", runId: started.runId, kind: "INDEPENDENT" as const, groupId: "g1", stepBoundary: true, sourceType: "csv", targetType: "csv" }];
    const events: RecordingEvent[] = [recorded(started, edges), statusChanged(running, "STARTED"), lineageRecorded(started.runId, edges)];
    const head = await log.head();
    await commits.run(async (_tx, scope) => events.forEach((event) => scope.emit(event)));
    expect(heard).toEqual([{ types: ["EXECUTION_RECORDED", "EXECUTION_STATUS_CHANGED", "LINEAGE_RECORDED"], sequences: [head + 1, head + 2, head + 3] }]);
    const read = await log.read(head, head + 3, 10);
    expect(read.map((entry) => entry.sequence)).toEqual([head + 1, head + 2, head + 3]);
    // Dates, nested params and edges come back as they went in.
    expect(read.map((entry) => entry.event)).toEqual(events);
    expect(new Set(read.map((entry) => entry.committedAt.getTime())).size).toBe(1);
  });

  test("a rejected unit appends nothing and announces nothing; the next unit's sequence follows the last committed one", async () => {
    const commits = new TransactionPerUnit(db.database.prisma, undefined, log);
    const heard: number[] = [];
    commits.onCommitted((_events, receipts) => heard.push(...receipts.map((r) => r.sequence)));
    const before = await feedRows();
    const head = await log.head();
    await expect(
      commits.run(async (_tx, scope) => {
        scope.emit(recorded(executionRecord()));
        throw new Error("rejected");
      }),
    ).rejects.toThrow("rejected");
    expect(await feedRows()).toBe(before);
    await commits.run(async (_tx, scope) => scope.emit(recorded(executionRecord())));
    expect(heard).toHaveLength(1);
    // PostgreSQL sequences are not transactional, so a rolled-back append may leave a gap; never a step back.
    if (testProvider === "sqlite") expect(heard).toEqual([head + 1]);
    else expect(heard[0]).toBeGreaterThan(head);
  });

  test("a unit that emits nothing writes no feed row", async () => {
    const commits = new TransactionPerUnit(db.database.prisma, undefined, log);
    const before = await feedRows();
    await commits.run(async () => "nothing to say");
    expect(await feedRows()).toBe(before);
  });

  test("read pages, bounds, the first entry after a time, pruning", async () => {
    const commits = new TransactionPerUnit(db.database.prisma, undefined, log);
    const start = await log.head();
    await commits.run(async (_tx, scope) => {
      for (let i = 0; i < 5; i++) scope.emit(recorded(executionRecord()));
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const between = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await commits.run(async (_tx, scope) => scope.emit(recorded(executionRecord())));
    const head = await log.head();
    expect(head).toBe(start + 6);
    expect((await log.read(start, head, 2)).map((e) => e.sequence)).toEqual([start + 1, start + 2]);
    expect((await log.read(start + 4, start + 5, 100)).map((e) => e.sequence)).toEqual([start + 5]);
    expect(await log.firstAfter(between)).toBe(head);
    expect(await log.firstAfter(new Date(Date.now() + 60_000))).toBeNull();
    const { oldest } = (await log.bounds())!;
    expect(await commits.run((tx) => log.prune(tx, head - 2))).toBe(head - 2 - oldest + 1);
    expect(await log.bounds()).toEqual({ oldest: head - 1, newest: head });
  });

  /**
   * A journal that waits after appending, inside the transaction, before the commit, the earlier
   * appends longest: without the append lock, later transactions would commit their (higher)
   * sequences in that window.
   */
  class SlowJournal implements EventJournal {
    private appended = 0;
    constructor(private readonly inner: FeedLog) {}
    async append(tx: DbTx, events: readonly RecordingEvent[]): Promise<readonly JournalReceipt[]> {
      const receipts = await this.inner.append(tx, events);
      await new Promise((resolve) => setTimeout(resolve, Math.max(2, 40 - 4 * this.appended++)));
      return receipts;
    }
  }

  test("sequences become visible in order: a reader never sees a sequence before every lower one is committed (10 concurrent units)", async () => {
    const commits = new TransactionPerUnit(db.database.prisma, undefined, new SlowJournal(log));
    const start = await log.head();
    const snapshots: number[][] = [];
    let writing = true;
    const reader = (async () => {
      while (writing && snapshots.length < 5000) {
        const rows = await db.database.prisma.feedEvent.findMany({ where: { sequence: { gt: start } }, select: { sequence: true }, orderBy: { sequence: "asc" } });
        snapshots.push(rows.map((row) => Number(row.sequence)));
      }
    })();
    try {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          commits.run(async (_tx, scope) => {
            await new Promise((resolve) => setTimeout(resolve, i));
            scope.emit(recorded(executionRecord()));
          }),
        ),
      );
    } finally {
      writing = false;
      await reader;
    }
    const final = snapshots.length ? (await log.read(start, Number.MAX_SAFE_INTEGER, 100)).map((e) => e.sequence) : [];
    expect(final).toEqual(Array.from({ length: 10 }, (_, i) => start + 1 + i));
    expect(snapshots.length).toBeGreaterThan(3);
    // Each snapshot is a prefix of the final order: no hole below a visible sequence.
    for (const snapshot of snapshots) expect(snapshot).toEqual(final.slice(0, snapshot.length));
  });
});

import { openDatabase } from "../../src/db/client";
import type { FeedBroadcast, FeedNotice } from "../../src/services/feeds";
import { FeedFactReader, NO_NEEDS } from "../../src/services/feeds/feed-facts";
import { FeedHub } from "../../src/services/feeds/feed-hub";
import { FeedLog } from "../../src/services/feeds/feed-log";
import { runRecordedMatcher } from "../../src/services/feeds/feed-matchers";
import { type FeedSubscriber, FeedSubscription } from "../../src/services/feeds/feed-subscription";
import type { RunId } from "../../src/services/ids";
import { ClosureReader } from "../../src/services/lineage/closure";
import { TransactionPerUnit } from "../../src/services/recording";
import { createServices, type Services } from "../../src/services/services";
import { executionRecord, FeedReader, recorded } from "../support/feeds";
import { seedExecution } from "../support/seed";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

/** An in-memory broadcast between the instances of one test, that can lose notices on purpose. */
class TestBroadcast {
  private readonly listeners = new Set<(notice: FeedNotice) => void>();
  losing = false;
  heard: FeedNotice[] = [];
  instance(): FeedBroadcast {
    return {
      announce: (head) => {
        if (this.losing) return;
        setImmediate(() => this.send({ head }));
      },
      listen: (listener) => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
      },
      status: () => ({ via: "none", mode: "push" }),
      close: async () => undefined,
    };
  }
  send(notice: FeedNotice): void {
    this.heard.push(notice);
    for (const listener of this.listeners) listener(notice);
  }
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const sequencesOf = (items: { event?: { sequence: number } }[]) => items.map((item) => item.event!.sequence);

// Several instances over one database: each instance's hub delivers every sequence once, in order.
describe(`feed hub: instances sharing one database (${testProvider})`, () => {
  let db: TestDatabase;
  let a: Services;
  let b: Services;
  const broadcast = new TestBroadcast();
  beforeAll(async () => {
    db = await createTestDatabase();
    // Two connections, as two processes would have.
    a = createServices(openDatabase(db.url), undefined, { queueLimit: 100, replayWindow: 10_000, broadcast: broadcast.instance(), logger: silent });
    b = createServices(openDatabase(db.url), undefined, { queueLimit: 100, replayWindow: 10_000, broadcast: broadcast.instance(), logger: silent });
    await a.feeds.start();
    await b.feeds.start();
  });
  afterAll(async () => {
    for (const services of [a, b]) {
      await services.feeds.stop();
      await services.database.close();
    }
    await db.drop();
  });

  const emit = (services: Services, n = 1) =>
    services.commits.run(async (_tx, scope) => {
      const runs = Array.from({ length: n }, () => executionRecord());
      for (const run of runs) scope.emit(recorded(run));
      return runs.map((run) => run.runId);
    });

  test("runs committed on A reach B's subscriber, read from the log, in commit order, once each", async () => {
    const onB = new FeedReader(await b.feeds.runRecorded({})).start();
    const onA = new FeedReader(await a.feeds.runRecorded({})).start();
    await new Promise((resolve) => setImmediate(resolve));
    const reads = b.feeds.stats().catchUpReads;
    const committed = [...(await emit(a, 2)), ...(await emit(b)), ...(await emit(a))];
    const gotB = (await onB.take(4)).map((item) => ("event" in item ? item.event.execution.runId : item.error));
    const gotA = (await onA.take(4)).map((item) => ("event" in item ? item.event.execution.runId : item.error));
    expect(gotB).toEqual(committed);
    expect(gotA).toEqual(committed);
    expect(b.feeds.stats().catchUpReads).toBeGreaterThan(reads);
    expect(await onB.idle(100)).toEqual([]);
    await onA.close();
    await onB.close();
  });

  test("lost notices: the next notice makes B read every entry it missed; a notice that lies costs one read and skips nothing", async () => {
    const onB = new FeedReader(await b.feeds.runRecorded({})).start();
    await new Promise((resolve) => setImmediate(resolve));
    broadcast.losing = true;
    const lost = await emit(a, 3);
    expect(await onB.idle(100)).toEqual([]);
    broadcast.losing = false;
    // A notice from nowhere (another deployment on the same channel, say): far ahead of the log.
    broadcast.send({ head: 1_000_000_000 });
    const next = await emit(a);
    const got = await onB.take(4);
    expect(got.map((item) => ("event" in item ? item.event.execution.runId : item.error))).toEqual([...lost, ...next]);
    const sequences = sequencesOf(got as never);
    expect(sequences).toEqual([sequences[0], sequences[0] + 1, sequences[0] + 2, sequences[0] + 3]);
    await onB.close();
  });

  test("after a reconnect (resync) B looks at the log itself", async () => {
    const onB = new FeedReader(await b.feeds.runRecorded({})).start();
    await new Promise((resolve) => setImmediate(resolve));
    broadcast.losing = true;
    const lost = await emit(a);
    broadcast.losing = false;
    expect(await onB.idle(50)).toEqual([]);
    broadcast.send({ resync: true });
    expect((await onB.take(1)).map((item) => ("event" in item ? item.event.execution.runId : item.error))).toEqual(lost);
    await onB.close();
  });

  test("an instance without live subscribers reads nothing for others' notices; its first subscriber starts at the log's head", async () => {
    const reads = b.feeds.stats().catchUpReads;
    await emit(a, 5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(b.feeds.stats()).toMatchObject({ live: 0, catchUpReads: reads });
    const onB = new FeedReader(await b.feeds.runRecorded({})).start();
    await new Promise((resolve) => setImmediate(resolve));
    const next = await emit(a);
    expect((await onB.take(1)).map((item) => ("event" in item ? item.event.execution.runId : item.error))).toEqual(next);
    expect(await onB.idle(50)).toEqual([]);
    await onB.close();
  });
});

describe(`feed hub: this instance's commits heard out of order (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  test("a later entry heard first waits for the earlier one (read from the log): the subscriber sees commit order", async () => {
    const prisma = db.database.prisma;
    const log = new FeedLog(prisma, db.database.provider);
    const hub = new FeedHub(log, new FeedFactReader(prisma, new ClosureReader(db.database), () => undefined), silent);
    await hub.start();
    const heard: Parameters<FeedHub["acceptCommitted"]>[0][] = [];
    const commits = new TransactionPerUnit(prisma, undefined, log);
    commits.onCommitted((events, receipts) => heard.push(events.map((event, i) => ({ sequence: receipts[i].sequence, committedAt: receipts[i].loggedAt, event }))));
    const subscription = new FeedSubscription(hub, runRecordedMatcher({}), 100, hub.delivered, hub.delivered);
    const reader = new FeedReader(subscription).start();
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 3; i++) await commits.run(async (_tx, scope) => scope.emit(recorded(executionRecord())));
    const [first, second, third] = heard.flat();
    hub.acceptCommitted([third]);
    hub.acceptCommitted([first]);
    expect(hub.stats().delivered).toBe(first.sequence);
    const got = await reader.take(3);
    expect(sequencesOf(got as never)).toEqual([first.sequence, second.sequence, third.sequence]);
    // The one it had in memory was kept; the one it never heard was read from the log.
    expect(got.map((item) => ("event" in item ? item.event.execution : null))).toEqual(heard.flat().map((entry) => (entry.event as { execution: unknown }).execution));
    hub.acceptCommitted([second]);
    expect(await reader.idle(50)).toEqual([]);
    expect(hub.stats()).toMatchObject({ delivered: third.sequence, catchUpReads: 1 });
    await reader.close();
  });

  test("a subscriber that attaches in the middle of a fan-out, with a filter that needs facts the others did not, is offered the entry with them", async () => {
    const prisma = db.database.prisma;
    const log = new FeedLog(prisma, db.database.provider);
    const hub = new FeedHub(log, new FeedFactReader(prisma, new ClosureReader(db.database), () => undefined), silent);
    await hub.start();
    const seeded = await seedExecution(prisma, { operation: "late", label: "late" });
    await prisma.artifact.update({ where: { id: seeded.inputs[0] }, data: { datasetNamespace: "warehouse", datasetName: "orders" } });
    const seen: { who: string; namespaces: string[] }[] = [];
    const late: FeedSubscriber = {
      position: hub.delivered,
      needs: { ...NO_NEEDS, namespaces: true },
      offer: (entry, facts) => seen.push({ who: "late", namespaces: [...facts.namespacesOf((entry.event as { execution: { runId: RunId } }).execution.runId)] }),
      fail: (error) => {
        throw error;
      },
    };
    // 40 subscribers that need nothing; the 35th, past the first slice, brings the late one in.
    for (let i = 0; i < 40; i++) {
      const subscriber: FeedSubscriber = {
        position: hub.delivered,
        needs: NO_NEEDS,
        offer: () => {
          seen.push({ who: `plain ${i}`, namespaces: [] });
          if (i === 34) hub.attach(late);
        },
        fail: (error) => {
          throw error;
        },
      };
      hub.attach(subscriber);
    }
    const commits = new TransactionPerUnit(prisma, undefined, log);
    commits.onCommitted((events, receipts) => hub.acceptCommitted(events.map((event, i) => ({ sequence: receipts[i].sequence, committedAt: receipts[i].loggedAt, event }))));
    await commits.run(async (_tx, scope) => scope.emit(recorded(executionRecord({ runId: seeded.runId }))));
    for (let i = 0; i < 100 && seen.length < 41; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.filter((s) => s.who === "late")).toEqual([{ who: "late", namespaces: ["warehouse"] }]);
    expect(seen).toHaveLength(41);
  });

  test("a replay that cannot read the log ends the subscription with that error (the caller masks it), once", async () => {
    const ended: string[] = [];
    const broken = { delivered: 10, attach: () => undefined, detach: () => undefined, replayPage: () => Promise.reject(new Error("disk I/O error")) };
    const subscription = new FeedSubscription(broken, runRecordedMatcher({}), 100, 0, 10, { onEnd: (reason, at) => ended.push(`${reason}: ${at.error?.message}`) });
    const reader = new FeedReader(subscription);
    const [item] = await reader.take(1);
    expect("error" in item && item.error.message).toBe("disk I/O error");
    expect(await reader.ends()).toBe(true);
    expect(ended).toEqual(["error: disk I/O error"]);
  });
});

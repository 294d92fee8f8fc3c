import type { FeedItem, LineageAdded, RunRecorded } from "../../src/services/feeds";
import { artifactIdFor, type RunId } from "../../src/services/ids";
import { executionRecord, FeedReader, recorded, statusChanged } from "../support/feeds";
import { draft, recordExecution, recordOk, registerOperation, sha256Of, tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";
import { testProvider } from "../support/test-database";

const generate = { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
const transform = {
  name: "transform",
  version: "1",
  kind: "CREATOR",
  inputs: [{ role: "data", artifactType: "csv" }],
  outputs: [{ role: "result", artifactType: "csv", required: false, inferLineageFrom: { inputs: ["data"] } }],
};

const idOf = (name: string) => artifactIdFor("csv", sha256Of(name));
const events = <T>(items: FeedItem<T>[]): T[] =>
  items.map((item) => {
    if ("error" in item) throw item.error;
    return item.event;
  });
const runIds = (items: FeedItem<RunRecorded>[]) => events(items).map((event) => event.execution.runId);

// The feeds as the core offers them (services.feeds), fed by recordings through GraphQL.
describe(`feeds: filters, lineage, resuming (${testProvider})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { FEED_REPLAY_WINDOW: "1000" } });
    await registerOperation(t, generate);
    await registerOperation(t, transform);
  });
  afterAll(() => t.close());

  const feeds = () => t.app.services.feeds;
  const gen = async (name: string, extra: Record<string, unknown> = {}) =>
    (await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(name)] }], ...extra })).runId as RunId;
  const tx = async (inputs: string[], output: string | null, extra: Record<string, unknown> = {}) =>
    (
      await recordOk(t, {
        operation: "transform",
        operationVersion: "1",
        inputs: [{ role: "data", artifactIds: inputs }],
        outputs: output === null ? [] : [{ role: "result", artifacts: [draft(output)] }],
        ...extra,
      })
    ).runId as RunId;
  const subscribe = async <T>(feed: Promise<AsyncIterableIterator<FeedItem<T>>>) => {
    const reader = new FeedReader(await feed).start(); // a transport reads at once
    await new Promise((resolve) => setImmediate(resolve));
    return reader;
  };

  test("runRecorded: each subscriber gets exactly the runs its filter selects (operation, pipeline, status, namespace), in commit order", async () => {
    // An artifact of an OpenLineage dataset (ingestion is not needed to have one).
    const warehouse = { id: idOf("orders.csv"), artifactType: "csv", contentHash: sha256Of("orders.csv"), originalName: "orders.csv", datasetNamespace: "warehouse", datasetName: "orders" };
    await t.app.database.prisma.artifact.create({ data: warehouse });
    const all = await subscribe(feeds().runRecorded({}));
    const byOperation = await subscribe(feeds().runRecorded({ operation: "transform" }));
    const byPipeline = await subscribe(feeds().runRecorded({ pipeline: "nightly" }));
    const byStatus = await subscribe(feeds().runRecorded({ status: "FAILED" }));
    const byNamespace = await subscribe(feeds().runRecorded({ namespace: "warehouse" }));
    const combined = await subscribe(feeds().runRecorded({ operation: "transform", pipeline: "nightly", status: "COMPLETED" }));
    const nobody = await subscribe(feeds().runRecorded({ operation: "no-such-operation" }));

    const r1 = await gen("f_raw.csv", { pipeline: "nightly", step: 1 });
    const r2 = await tx([idOf("f_raw.csv")], "f_raw_clean.csv", { pipeline: "nightly", step: 2 });
    const r3 = await tx([idOf("f_raw.csv")], null, { status: "FAILED" });
    const r4 = await tx([warehouse.id], "orders_clean.csv");
    const r5 = await gen("f_other.csv", { status: "FAILED" });

    const everything = await all.take(5);
    expect(runIds(everything)).toEqual([r1, r2, r3, r4, r5]);
    const sequences = events(everything).map((event) => event.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(5);
    expect(runIds(await byOperation.take(3))).toEqual([r2, r3, r4]);
    expect(runIds(await byPipeline.take(2))).toEqual([r1, r2]);
    expect(runIds(await byStatus.take(2))).toEqual([r3, r5]);
    expect(runIds(await byNamespace.take(1))).toEqual([r4]);
    expect(runIds(await combined.take(1))).toEqual([r2]);
    // Nothing more for anyone.
    for (const reader of [all, byOperation, byPipeline, byStatus, byNamespace, combined, nobody]) expect(await reader.idle(100)).toEqual([]);
    // The event is the run as recorded.
    expect(events(everything)[1].execution).toMatchObject({ runId: r2, status: "COMPLETED", pipeline: "nightly", step: 2 });
    for (const reader of [all, byOperation, byPipeline, byStatus, byNamespace, combined, nobody]) await reader.close();
    expect(feeds().stats().live).toBe(0);
  });

  test("a rejected recording writes no feed entry and publishes nothing; the next run follows with the next sequence", async () => {
    const all = await subscribe(feeds().runRecorded({}));
    const before = await tableCounts(t);
    const rejected = await recordExecution(t, {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [idOf("f_raw.csv")] }],
      outputs: [{ role: "result", artifacts: [draft("unrelated_name.csv")] }],
    });
    expect(rejected.__typename).toBe("LineageCompletenessError");
    expect(await tableCounts(t)).toEqual(before);
    expect(await all.idle(100)).toEqual([]);
    const head = await feedHead();
    const next = await gen("after_rejection.csv");
    const [event] = events(await all.take(1));
    expect(event.execution.runId).toBe(next);
    // The rejected unit never reached the journal: not even a PostgreSQL sequence number was spent.
    expect(event.sequence).toBe(head + 1);
    await all.close();
  });

  test("runStatusChanged: one run's status when recorded, then each change, and nothing of other runs", async () => {
    const run = executionRecord({ status: "STARTED" });
    const other = executionRecord({ status: "STARTED" });
    const watcher = await subscribe(feeds().runStatusChanged(run.runId));
    const emit = (event: Parameters<typeof recorded>[0] | ReturnType<typeof statusChanged>) => t.app.services.commits.run(async (_tx, scope) => scope.emit("type" in event ? event : recorded(event)));
    await emit(run);
    await emit(other);
    await emit(statusChanged({ ...other, status: "RUNNING" }, "STARTED"));
    await emit(statusChanged({ ...run, status: "RUNNING" }, "STARTED"));
    await emit(statusChanged({ ...run, status: "COMPLETED", endedAt: new Date("2026-01-02T04:00:00.000Z") }, "RUNNING"));
    const changes = events(await watcher.take(3));
    expect(changes.map(({ runId, status, previousStatus }) => ({ runId, status, previousStatus }))).toEqual([
      { runId: run.runId, status: "STARTED", previousStatus: null },
      { runId: run.runId, status: "RUNNING", previousStatus: "STARTED" },
      { runId: run.runId, status: "COMPLETED", previousStatus: "RUNNING" },
    ]);
    expect(changes[2].execution.endedAt).toEqual(new Date("2026-01-02T04:00:00.000Z"));
    expect(await watcher.idle(100)).toEqual([]);
    // Replayed from the log, the same changes come back, in the same order.
    const replay = await subscribe(feeds().runStatusChanged(run.runId, { sequence: changes[0].sequence - 1 }));
    expect(events(await replay.take(3))).toEqual(changes);
    await watcher.close();
    await replay.close();
  });

  test("lineageAdded: new descendants (DOWNSTREAM) and ancestors (UPSTREAM), through the closure, for artifacts recorded or not yet", async () => {
    await gen("l_raw.csv");
    const downstreamOfRaw = await subscribe(feeds().lineageAdded(idOf("l_raw.csv"), "DOWNSTREAM"));
    const upstreamOfRaw = await subscribe(feeds().lineageAdded(idOf("l_raw.csv"), "UPSTREAM"));
    // Not recorded yet: content-addressed ids are known beforehand.
    const upstreamOfFinal = await subscribe(feeds().lineageAdded(idOf("l_raw_clean_final.csv"), "UPSTREAM"));
    const downstreamOfFinal = await subscribe(feeds().lineageAdded(idOf("l_raw_clean_final.csv"), "DOWNSTREAM"));

    const r2 = await tx([idOf("l_raw.csv")], "l_raw_clean.csv");
    const r3 = await tx([idOf("l_raw_clean.csv")], "l_raw_clean_final.csv");
    await gen("l_unrelated.csv");
    await tx([idOf("l_unrelated.csv")], "l_unrelated_clean.csv");

    const shape = (event: LineageAdded) => ({ runId: event.runId, key: event.key, edges: event.edges.map((edge) => [edge.sourceId, edge.targetId, edge.runId, edge.kind]) });
    expect(events(await downstreamOfRaw.take(2)).map(shape)).toEqual([
      { runId: r2, key: { artifactId: idOf("l_raw.csv"), direction: "DOWNSTREAM" }, edges: [[idOf("l_raw.csv"), idOf("l_raw_clean.csv"), r2, "INDEPENDENT"]] },
      { runId: r3, key: { artifactId: idOf("l_raw.csv"), direction: "DOWNSTREAM" }, edges: [[idOf("l_raw_clean.csv"), idOf("l_raw_clean_final.csv"), r3, "INDEPENDENT"]] },
    ]);
    expect(events(await upstreamOfFinal.take(1)).map(shape)).toEqual([
      { runId: r3, key: { artifactId: idOf("l_raw_clean_final.csv"), direction: "UPSTREAM" }, edges: [[idOf("l_raw_clean.csv"), idOf("l_raw_clean_final.csv"), r3, "INDEPENDENT"]] },
    ]);
    for (const reader of [downstreamOfRaw, upstreamOfRaw, upstreamOfFinal, downstreamOfFinal]) {
      expect(await reader.idle(100)).toEqual([]);
      await reader.close();
    }
    // The edges are the stored ones (ids and times included).
    const stored = await t.app.database.prisma.provenanceEdge.findFirst({ where: { runId: r3 } });
    const replay = await subscribe(feeds().lineageAdded(idOf("l_raw_clean.csv"), "DOWNSTREAM", { time: new Date(Date.now() - 60_000) }));
    const [replayed] = events(await replay.take(1));
    expect(replayed.edges.map((edge) => [edge.id, edge.createdAt])).toEqual([[stored!.id, stored!.createdAt]]);
    await replay.close();
  });

  test("resuming by sequence: the runs missed are replayed once, then the live feed follows without a gap", async () => {
    const missed = [await gen("m_1.csv"), await gen("m_2.csv"), await gen("m_3.csv")];
    const lastSeen = await sequenceOf(missed[0]);
    const resumed = await subscribe(feeds().runRecorded({}, { sequence: lastSeen }));
    const live = await gen("m_4.csv");
    const got = events(await resumed.take(3));
    expect(got.map((event) => event.execution.runId)).toEqual([missed[1], missed[2], live]);
    expect(got.map((event) => event.sequence)).toEqual([lastSeen + 1, lastSeen + 2, lastSeen + 3]);
    expect(await resumed.idle(100)).toEqual([]);
    await resumed.close();
  });

  test("resuming by time: the runs committed after it are replayed, then the live feed", async () => {
    await gen("n_1.csv");
    await new Promise((resolve) => setTimeout(resolve, 10));
    const after = new Date();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const missed = [await gen("n_2.csv"), await gen("n_3.csv")];
    const resumed = await subscribe(feeds().runRecorded({}, { time: after }));
    const live = await gen("n_4.csv");
    expect(runIds(await resumed.take(3))).toEqual([...missed, live]);
    expect(await resumed.idle(100)).toEqual([]);
    await resumed.close();
  });

  test("a replay longer than a page, while new events keep committing: every sequence once, in order, no gap", async () => {
    const start = await feedHead();
    await emitMany(900); // more than a page (FEED_PAGE = 500), within the window
    const resumed = new FeedReader(await feeds().runRecorded({}, { sequence: start }));
    const got: number[] = [];
    // Read slowly while 30 more units commit, one event each.
    const writer = (async () => {
      for (let i = 0; i < 30; i++) await emitMany(1);
    })();
    while (got.length < 930) {
      got.push(...events(await resumed.take(Math.min(100, 930 - got.length))).map((event) => event.sequence));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writer;
    expect(got).toEqual(Array.from({ length: 930 }, (_, i) => start + 1 + i));
    expect(await resumed.idle(100)).toEqual([]);
    await resumed.close();
  });

  test("since is checked: a sequence not logged yet, or further back than the replay window, is refused with its code", async () => {
    await emitMany(1_100);
    const head = await feedHead();
    await expect(feeds().runRecorded({}, { sequence: head + 1 })).rejects.toMatchObject({ code: "FEED_POSITION_UNKNOWN", details: { field: "since.sequence", sequence: head + 1, newest: head } });
    await expect(feeds().runRecorded({}, { sequence: head - 1001 })).rejects.toMatchObject({ code: "FEED_REPLAY_WINDOW", details: { field: "since", window: 1000, newest: head } });
    await expect(feeds().runRecorded({}, { sequence: -1 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { field: "since.sequence" } });
    // At the window's edge, and at the head itself, a resume is accepted.
    for (const sequence of [head - 1000, head]) await (await feeds().runRecorded({}, { sequence })).return?.();
  });

  test("pruning keeps the replay window; a time before every entry kept is then refused", async () => {
    await emitMany(1_100);
    const head = await feedHead();
    const pruned = await feeds().prune();
    expect(pruned).toBeGreaterThan(0);
    const bounds = await t.app.database.prisma.feedEvent.aggregate({ _min: { sequence: true }, _max: { sequence: true } });
    expect([Number(bounds._min.sequence), Number(bounds._max.sequence)]).toEqual([head - 1000 + 1, head]);
    await expect(feeds().runRecorded({}, { time: new Date(0) })).rejects.toMatchObject({ code: "FEED_REPLAY_WINDOW", details: { field: "since.time" } });
    expect(await feeds().prune()).toBe(0);
  });

  const emitMany = (n: number) =>
    t.app.services.commits.run(async (_tx, scope) => {
      for (let i = 0; i < n; i++) scope.emit(recorded(executionRecord()));
    });
  const feedHead = async () => Number((await t.app.database.prisma.feedEvent.aggregate({ _max: { sequence: true } }))._max.sequence ?? 0);
  const sequenceOf = async (runId: RunId) => Number((await t.app.database.prisma.feedEvent.findFirst({ where: { runId } }))!.sequence);
});

describe(`feeds: a subscriber that does not read (${testProvider})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { FEED_QUEUE_LIMIT: "3" } });
  });
  afterAll(() => t.close());

  test("is cut off past its queue's bound with FEED_OVERFLOW (its queue dropped), while a reading subscriber gets everything", async () => {
    const feeds = t.app.services.feeds;
    const slow = new FeedReader(await feeds.runRecorded({})).start(); // one read pending, then it never reads again
    const fast = new FeedReader(await feeds.runRecorded({})).start();
    await new Promise((resolve) => setImmediate(resolve));
    const runs = Array.from({ length: 6 }, () => executionRecord());
    const fastGot: RunId[] = [];
    for (const run of runs) {
      await t.app.services.commits.run(async (_tx, scope) => scope.emit(recorded(run)));
      fastGot.push(...events(await fast.take(1)).map((event) => event.execution.runId));
    }
    expect(fastGot).toEqual(runs.map((run) => run.runId));
    expect(feeds.stats()).toMatchObject({ live: 1, overflows: 1 });
    // The pending read got the first run; runs 2–4 filled the queue; run 5 overflowed it.
    const [first, second] = await slow.take(2);
    expect(first).toEqual({ event: expect.objectContaining({ execution: runs[0] }) });
    expect("error" in second && second.error).toMatchObject({ code: "FEED_OVERFLOW", details: { limit: 3 } });
    expect(await slow.ends()).toBe(true);
    await fast.close();
    expect(feeds.stats().live).toBe(0);
  });

  test("ends every subscription with FEED_CLOSED when the server stops", async () => {
    const reader = new FeedReader(await t.app.services.feeds.runStatusChanged(executionRecord().runId)).start();
    await new Promise((resolve) => setImmediate(resolve));
    await t.app.services.feeds.stop();
    const [item] = await reader.take(1);
    expect("error" in item && item.error).toMatchObject({ code: "FEED_CLOSED" });
    expect(await reader.ends()).toBe(true);
  });
});

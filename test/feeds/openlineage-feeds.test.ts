import { randomUUID } from "node:crypto";
import type { FeedItem, LineageAdded, RunRecorded, RunStatusChange } from "../../src/services/feeds";
import type { ArtifactId, RunId } from "../../src/services/ids";
import { FeedReader } from "../support/feeds";
import { dataset, postEvent, runEvent } from "../support/openlineage";
import { createTestApp, type TestApp } from "../support/test-app";
import { testProvider } from "../support/test-database";

const events = <T>(items: FeedItem<T>[]): T[] =>
  items.map((item) => {
    if ("error" in item) throw item.error;
    return item.event;
  });

// Ingested runs are runs too: OpenLineage events feed the same subscriptions as recordExecution.
describe(`OpenLineage runs on the live feeds (${testProvider})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const subscribe = async <T>(feed: Promise<AsyncIterableIterator<FeedItem<T>>>) => {
    const reader = new FeedReader(await feed).start();
    await new Promise((resolve) => setImmediate(resolve));
    return reader;
  };

  test("START → RUNNING → COMPLETE: runRecorded once (namespace filter), runStatusChanged per change, lineageAdded for the output", async () => {
    const uuid = randomUUID();
    const runId = `run_${uuid}` as RunId;
    const input = dataset("warehouse", "orders", { version: { _producer: "https://example.com/p", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/DatasetVersionDatasetFacet.json", datasetVersion: "7" } });
    const output = dataset("warehouse", "orders_daily");
    const recordedRuns = await subscribe<RunRecorded>(t.app.services.feeds.runRecorded({ namespace: "warehouse" }));
    const statuses = await subscribe<RunStatusChange>(t.app.services.feeds.runStatusChanged(runId));

    const start = await postEvent(t, runEvent({ runId: uuid, eventType: "START", eventTime: "2026-03-11T02:00:00Z", inputs: [input], outputs: [] }));
    expect(start.status).toBe(201);
    const inputId = (await t.app.database.prisma.artifact.findFirstOrThrow({ where: { datasetName: "orders" } })).id as ArtifactId;
    const derived = await subscribe<LineageAdded>(t.app.services.feeds.lineageAdded(inputId, "DOWNSTREAM"));
    expect((await postEvent(t, runEvent({ runId: uuid, eventType: "RUNNING", eventTime: "2026-03-11T02:01:00Z", inputs: [input], outputs: [] }))).status).toBe(201);
    expect((await postEvent(t, runEvent({ runId: uuid, eventType: "COMPLETE", eventTime: "2026-03-11T02:02:00Z", inputs: [input], outputs: [output] }))).status).toBe(201);

    expect(events(await statuses.take(3)).map((e) => [e.previousStatus, e.status])).toEqual([
      [null, "STARTED"],
      ["STARTED", "RUNNING"],
      ["RUNNING", "COMPLETED"],
    ]);
    const [first] = events(await recordedRuns.take(1));
    expect([first.execution.runId, first.execution.status]).toEqual([runId, "STARTED"]);
    const [added] = events(await derived.take(1));
    const outputId = (await t.app.database.prisma.artifact.findFirstOrThrow({ where: { datasetName: "orders_daily" } })).id;
    expect([added.runId, added.edges.map((e) => [e.sourceId, e.targetId])]).toEqual([runId, [[inputId, outputId]]]);
    // A run is recorded once: the later events changed its state, they did not record it again.
    expect(await recordedRuns.idle(300)).toEqual([]);
  });
});

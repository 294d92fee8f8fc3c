import zlib from "node:zlib";
import { OPENLINEAGE_LIMITS } from "../../src/openlineage";
import { capturedLog } from "../support/request-log";
import { dataset, postEvent, postLineage, runEvent } from "../support/openlineage";
import { tableCounts } from "../support/recording";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { createTestApp, type TestApp } from "../support/test-app";

const STACK = /\bat .*\.(ts|js):\d+|\n\s+at /;
const JSON_HEADERS = { "content-type": "application/json" };

/** POST /api/v1/lineage and its batch form, through yoga.fetch (the same routes HTTP clients reach). */
describe("POST /api/v1/lineage", () => {
  let t: TestApp;
  let logLines: Record<string, any>[] = [];
  beforeAll(async () => {
    const { logger, lines } = capturedLog();
    logLines = lines;
    t = await createTestApp({ app: { logger } });
  });
  afterAll(() => t.close());

  const storedEvents = (runId: string) =>
    t.gql(`query($runId: ID!) { openLineageEvents(runId: $runId) { edges { node { eventType event } } } }`, { runId }).then((res) => {
      if (res.errors) throw new Error(JSON.stringify(res.errors));
      return res.data!.openLineageEvents.edges.map((e: any) => e.node.event);
    });

  it("stores one event as OpenLineage's transport sends it: 201; the same event again is 200 DUPLICATE and writes nothing", async () => {
    const event = runEvent({ outputs: [dataset("pg://db", "public.orders")] });
    const first = await postEvent(t, event);
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ index: 0, status: "STORED", kind: "RUN", runId: `run_${event.run.runId}`, executionStatus: "COMPLETED" });
    const before = await tableCounts(t);
    // Keys in another order: the same event.
    const again = await postLineage(t, JSON.stringify(Object.fromEntries(Object.entries(event).reverse())), JSON_HEADERS);
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ index: 0, status: "DUPLICATE", kind: "RUN", runId: `run_${event.run.runId}`, executionStatus: "COMPLETED" });
    expect(await tableCounts(t)).toEqual(before);
    expect(await storedEvents(event.run.runId)).toEqual([event]);
  });

  it("takes the routes with a trailing slash too (a base URL and endpoint joined by hand); one slash only", async () => {
    const single = runEvent();
    const one = await t.app.yoga.fetch("http://provgraph.test/api/v1/lineage/", { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(single) });
    expect([one.status, (await one.json()).status]).toEqual([201, "STORED"]);
    const batch = await t.app.yoga.fetch("http://provgraph.test/api/v1/lineage/batch/", { method: "POST", headers: JSON_HEADERS, body: JSON.stringify([runEvent()]) });
    expect([batch.status, (await batch.json()).stored]).toEqual([200, 1]);
    expect(await storedEvents(single.run.runId)).toEqual([single]);
    const other = await t.app.yoga.fetch("http://provgraph.test/api/v1/lineage//", { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(runEvent()) });
    expect(other.status).toBe(404);
  });

  it("accepts a gzip-compressed body (Content-Encoding: gzip)", async () => {
    const event = runEvent();
    const answer = await postLineage(t, zlib.gzipSync(JSON.stringify(event)), { ...JSON_HEADERS, "content-encoding": "gzip" });
    expect(answer.status).toBe(201);
    expect(await storedEvents(event.run.runId)).toEqual([event]);
  });

  it("takes a JSON array as a batch: each event on its own, one refused event does not stop the others (207 with every result)", async () => {
    const good = [runEvent(), runEvent({ eventType: "START" })];
    const bad = runEvent({ eventType: "FINISHED" });
    const answer = await postLineage(t, JSON.stringify([good[0], bad, good[1]]), JSON_HEADERS);
    expect(answer.status).toBe(207);
    expect(answer.json).toEqual({
      stored: 2,
      duplicates: 0,
      refused: 1,
      results: [
        { index: 0, status: "STORED", kind: "RUN", runId: `run_${good[0].run.runId}`, executionStatus: "COMPLETED" },
        {
          index: 1,
          status: "REFUSED",
          error: {
            code: "INVALID_EVENT",
            message: '/eventType: must be one of "START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"',
            pointer: "/eventType",
            reason: 'must be one of "START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"',
          },
        },
        { index: 2, status: "STORED", kind: "RUN", runId: `run_${good[1].run.runId}`, executionStatus: "STARTED" },
      ],
    });
    expect(await storedEvents(bad.run.runId)).toEqual([]);
  });

  it("takes NDJSON on /api/v1/lineage/batch: a line that is not JSON is refused alone; all stored is 200", async () => {
    const events = [runEvent(), runEvent()];
    const body = `${JSON.stringify(events[0])}\n{not json\n\n${JSON.stringify(events[1])}\n`;
    const answer = await postLineage(t, body, { "content-type": "application/x-ndjson" }, "/api/v1/lineage/batch");
    expect(answer.status).toBe(207);
    expect(answer.json.results.map((r: any) => [r.index, r.status, r.error?.code])).toEqual([
      [0, "STORED", undefined],
      [1, "REFUSED", "INVALID_JSON"],
      [2, "STORED", undefined],
    ]);
    const allGood = await postLineage(t, [runEvent(), runEvent()].map((e) => JSON.stringify(e)).join("\n"), { "content-type": "application/x-ndjson" }, "/api/v1/lineage/batch");
    expect([allGood.status, allGood.json.stored, allGood.json.refused]).toEqual([200, 2, 0]);
    // One event on the batch route is a batch of one.
    const single = await postLineage(t, JSON.stringify(runEvent()), JSON_HEADERS, "/api/v1/lineage/batch");
    expect([single.status, single.json.stored]).toEqual([200, 1]);
  });

  it("answers other methods 405 with Allow: POST", async () => {
    const response = await t.app.yoga.fetch("http://provgraph.test/api/v1/lineage", { method: "GET" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  const bomb = () => zlib.gzipSync(Buffer.alloc(OPENLINEAGE_LIMITS.maxBatchBytes * 2, 0x20));
  const bigSingle = () => JSON.stringify(runEvent({ job: { namespace: "tests", name: "big", facets: { sql: { query: "x".repeat(OPENLINEAGE_LIMITS.maxEventBytes) } } } }));
  const controlJob = () => JSON.stringify(runEvent({ job: { namespace: "tests", name: "bad\u0000name" } }));
  const surrogate = () => JSON.stringify(runEvent({ outputs: [dataset("ns", "bad\ud800name")] }));
  const badType = () =>
    JSON.stringify(
      runEvent({
        inputs: [dataset("ns", "in")],
        outputs: [dataset("ns", "out", { columnLineage: { fields: { a: { inputFields: [{ namespace: "ns", name: "in", field: "b", transformations: [{ type: "SIDEWAYS" }] }] } } } })],
      }),
    );
  const selfParent = () => {
    const event = runEvent();
    event.run.facets.parent = { run: { runId: event.run.runId }, job: { namespace: "tests", name: "parent" } };
    return JSON.stringify(event);
  };
  const { runId: _runId, ...withoutRunIdRun } = runEvent().run;
  const badInputs: [string, () => string | Uint8Array, Record<string, string>, number, Record<string, unknown>][] = [
    ["not JSON", () => "{ this is not json", JSON_HEADERS, 400, { code: "INVALID_JSON" }],
    ["an empty body", () => "", JSON_HEADERS, 400, { code: "EMPTY_BODY" }],
    ["a wrong eventType", () => JSON.stringify(runEvent({ eventType: "DONE" })), JSON_HEADERS, 400, { code: "INVALID_EVENT", pointer: "/eventType" }],
    ["a missing runId", () => JSON.stringify(runEvent({ run: withoutRunIdRun })), JSON_HEADERS, 400, { code: "INVALID_EVENT", pointer: "/run/runId", reason: "is required and missing" }],
    ["a runId that is not a UUID", () => JSON.stringify(runEvent({ runId: "run-42" })), JSON_HEADERS, 400, { code: "INVALID_EVENT", pointer: "/run/runId", reason: 'must match format "uuid"' }],
    ["an event over 5 MB", bigSingle, JSON_HEADERS, 413, { code: "PAYLOAD_TOO_LARGE", limit: OPENLINEAGE_LIMITS.maxEventBytes }],
    ["a body over 50 MB", () => `[${" ".repeat(OPENLINEAGE_LIMITS.maxBatchBytes)}]`, JSON_HEADERS, 413, { code: "PAYLOAD_TOO_LARGE", limit: OPENLINEAGE_LIMITS.maxBatchBytes }],
    ["a gzip bomb (100 MB of spaces in 100 KB)", bomb, { ...JSON_HEADERS, "content-encoding": "gzip" }, 413, { code: "PAYLOAD_TOO_LARGE", limit: OPENLINEAGE_LIMITS.maxBatchBytes }],
    ["a body declared gzip that is not", () => "plain text", { ...JSON_HEADERS, "content-encoding": "gzip" }, 400, { code: "INVALID_GZIP" }],
    ["an unsupported Content-Encoding", () => "{}", { ...JSON_HEADERS, "content-encoding": "br" }, 415, { code: "UNSUPPORTED_ENCODING" }],
    ["JSON nested 5,000 deep", () => deep(5_000), JSON_HEADERS, 400, { code: "JSON_TOO_DEEP" }],
    ["a control character in a job name", controlJob, JSON_HEADERS, 400, { code: "INVALID_EVENT", pointer: "/job/name", reason: "contains the control character U+0000 at index 3" }],
    ["a lone surrogate in a dataset name", surrogate, JSON_HEADERS, 400, { code: "INVALID_EVENT", pointer: "/outputs/0/name" }],
    ["a transformation type that is neither DIRECT nor INDIRECT", badType, JSON_HEADERS, 400, { code: "INVALID_EVENT", pointer: "/outputs/0/facets/columnLineage/fields/a/inputFields/0/transformations/0/type" }],
    ["a run naming itself as parent", selfParent, JSON_HEADERS, 400, { code: "INVALID_EVENT", pointer: "/run/facets/parent/run/runId" }],
    ["a batch of 10,001 events", () => JSON.stringify(Array.from({ length: OPENLINEAGE_LIMITS.maxBatchEvents + 1 }, () => ({}))), JSON_HEADERS, 413, { code: "TOO_MANY_EVENTS" }],
  ];

  it.each(badInputs)("refuses %s with its reason, writes nothing, logs one line, and keeps serving", async (_name, body, headers, status, error) => {
    const before = await tableCounts(t);
    const linesBefore = logLines.length;
    const answer = await postLineage(t, body(), headers);
    expect(answer.status).toBe(status);
    expect(answer.json.error).toEqual(expect.objectContaining({ ...error, message: expect.any(String) }));
    expect(answer.text).not.toMatch(STACK);
    expect(await tableCounts(t)).toEqual(before);
    const lines = logLines.slice(linesBefore);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[30, expect.stringMatching(/^lineage request (refused|answered with refused events)$/)]]);
    expect(JSON.stringify(lines)).not.toMatch(STACK);
    const health = await t.app.yoga.fetch("http://provgraph.test/healthz");
    expect(health.status).toBe(200);
  });

  describe("what real producers send", () => {
    const executionOf = async (runId: string) => {
      const res = await t.gql(`query($runId: ID!) { execution(runId: $runId) { runId status startedAt endedAt operation { name version } outputs { artifact { dataset { namespace name } columns { field } } } } }`, { runId });
      if (res.errors) throw new Error(JSON.stringify(res.errors));
      return res.data!.execution;
    };

    it("an eventTime without a zone reads as UTC; nanoseconds are kept in the event and read to the millisecond", async () => {
      const naive = runEvent({ eventTime: "2026-03-11T02:14:07.318123" });
      const nanos = runEvent({ eventTime: "2026-03-11T04:14:07.318123456+02:00" });
      expect((await postEvent(t, naive)).status).toBe(201);
      expect((await postEvent(t, nanos)).status).toBe(201);
      expect((await executionOf(naive.run.runId)).endedAt).toBe("2026-03-11T02:14:07.318Z");
      expect((await executionOf(nanos.run.runId)).endedAt).toBe("2026-03-11T02:14:07.318Z");
      expect((await storedEvents(nanos.run.runId))[0].eventTime).toBe("2026-03-11T04:14:07.318123456+02:00");
    });

    it("a missing schemaURL, facets without _producer/_schemaURL, and unknown custom facets are accepted; custom facets are kept", async () => {
      const { schemaURL: _schemaURL, ...event } = runEvent({
        run: { runId: "0190b7a2-3d4e-7f00-8a00-0123456789ab", facets: { acme_cost: { currency: "EUR", cents: 1234, nested: { deep: [1, 2, 3] } }, nominalTime: { nominalStartTime: "2026-03-11T00:00:00Z" } } },
        job: { namespace: "tests", name: "custom", facets: { sql: { query: "SELECT 1" } } },
      });
      expect((await postEvent(t, event)).status).toBe(201);
      expect(await storedEvents("0190b7a2-3d4e-7f00-8a00-0123456789ab")).toEqual([event]);
      const res = await t.gql(`{ execution(runId: "0190b7a2-3d4e-7f00-8a00-0123456789ab") { params } }`);
      expect(res.data!.execution.params).toEqual({ nominalTime: { nominalStartTime: "2026-03-11T00:00:00Z" }, sql: { query: "SELECT 1" } });
    });

    it("unicode names: jobs, namespaces, datasets and fields", async () => {
      const event = runEvent({
        job: { namespace: "équipe-données", name: "日次集計 🚀 job" },
        outputs: [dataset("s3://bücket", "ventes.été", { schema: { fields: [{ name: "montant_€", type: "decimal" }, { name: "名前", type: "string" }] } })],
      });
      expect((await postEvent(t, event)).status).toBe(201);
      const execution = await executionOf(event.run.runId);
      expect(execution.operation).toEqual({ name: "日次集計 🚀 job", version: "openlineage:équipe-données" });
      expect(execution.outputs).toEqual([{ artifact: { dataset: { namespace: "s3://bücket", name: "ventes.été" }, columns: [{ field: "montant_€" }, { field: "名前" }] } }]);
    });

    it("an event of several hundred KB (a 4,000-column schema)", async () => {
      const fields = Array.from({ length: 4_000 }, (_, i) => ({ name: `column_${i}_with_a_long_descriptive_name`, type: "varchar(255)", description: `the ${i}th column of a wide table` }));
      const event = runEvent({ outputs: [dataset("warehouse", "wide_table", { schema: { fields } })] });
      const body = JSON.stringify(event);
      expect(body.length).toBeGreaterThan(300_000);
      expect((await postLineage(t, body, JSON_HEADERS)).status).toBe(201);
      const res = await t.gql(`query($runId: ID!) { execution(runId: $runId) { outputs { artifact { columns { field position } } } } }`, { runId: event.run.runId });
      const columns = res.data!.execution.outputs[0].artifact.columns;
      expect(columns).toHaveLength(4_000);
      expect(columns[3_999]).toEqual({ field: "column_3999_with_a_long_descriptive_name", position: 3_999 });
    });
  });
});

describe("the lineage routes take the same tokens as /graphql (write scope)", () => {
  let t: TokenTestApp;
  let readToken: string;
  let writeToken: string;
  beforeAll(async () => {
    t = await createTokenTestApp();
    readToken = await t.issue(["read"], { name: "dashboard" });
    writeToken = await t.issue(["write"], { name: "airflow" });
  });
  afterAll(() => t.close());

  const post = (authorization: string | undefined, body: unknown, path = "/api/v1/lineage") =>
    postLineage(t, JSON.stringify(body), { ...JSON_HEADERS, ...(authorization ? { authorization } : {}) }, path);

  it.each([
    ["no token", undefined, 401, "UNAUTHENTICATED"],
    ["a malformed token", "Bearer not-a-token", 401, "UNAUTHENTICATED"],
    ["an unknown token", "Bearer pgt_0000000000000000000000000000000000000000000", 401, "UNAUTHENTICATED"],
  ])("refuses %s with 401 and a Bearer challenge, writing nothing", async (_case, authorization, status, code) => {
    const before = await tableCounts(t);
    const answer = await post(authorization, runEvent());
    expect([answer.status, answer.json.errors?.[0]?.extensions?.code ?? answer.json.error?.code]).toEqual([status, code]);
    expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await tableCounts(t)).toEqual(before);
  });

  it("refuses a read token with 403 FORBIDDEN naming the write scope, on both routes, writing nothing", async () => {
    const before = await tableCounts(t);
    for (const path of ["/api/v1/lineage", "/api/v1/lineage/batch"]) {
      const answer = await post(`Bearer ${readToken}`, path.endsWith("batch") ? [runEvent()] : runEvent(), path);
      const error = answer.json.errors?.[0] ?? answer.json.error;
      expect([answer.status, error.extensions?.code ?? error.code, error.extensions?.scope ?? error.scope]).toEqual([403, "FORBIDDEN", "write"]);
    }
    expect(await tableCounts(t)).toEqual(before);
  });

  it("stores with a write token and audits who wrote which runs, with the outcome", async () => {
    const stored = runEvent();
    const answer = await post(`Bearer ${writeToken}`, stored);
    expect(answer.status).toBe(201);
    const batch = await post(`Bearer ${writeToken}`, [runEvent(), { ...runEvent(), eventType: "NOT_A_TYPE" }], "/api/v1/lineage/batch");
    expect(batch.status).toBe(207);
    const log = await t.gql(`{ auditLog(first: 2) { edges { node { actor via action targets outcome } } } }`);
    const [latest, earlier] = log.data!.auditLog.edges.map((e: any) => e.node);
    expect(earlier).toEqual({ actor: "airflow", via: "HTTP", action: "POST /api/v1/lineage", targets: [`run_${stored.run.runId}`], outcome: "OK" });
    expect([latest.actor, latest.action, latest.outcome, latest.targets.length]).toEqual(["airflow", "POST /api/v1/lineage/batch", "PARTIAL", 1]);
  });
});


describe("ingestOpenLineageEvents (the same ingestion as GraphQL)", () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const INGEST = `mutation($events: [JSON!]!) { ingestOpenLineageEvents(events: $events) {
    stored duplicates refused results { index status kind runId executionStatus execution { runId status } error { code pointer reason } } } }`;

  it("records each event atomically and independently, answering each one's result", async () => {
    const start = runEvent({ eventType: "START", eventTime: "2026-03-11T02:00:00Z" });
    const complete = { ...start, eventType: "COMPLETE", eventTime: "2026-03-11T03:00:00Z" };
    const bad = runEvent({ runId: "not-a-uuid" });
    const res = await t.gql(INGEST, { events: [start, bad, complete, start] });
    expect(res.errors).toBeUndefined();
    const runId = `run_${start.run.runId}`;
    expect(res.data!.ingestOpenLineageEvents).toEqual({
      stored: 2,
      duplicates: 1,
      refused: 1,
      results: [
        { index: 0, status: "STORED", kind: "RUN", runId, executionStatus: "STARTED", execution: { runId, status: "COMPLETED" }, error: null },
        { index: 1, status: "REFUSED", kind: null, runId: null, executionStatus: null, execution: null, error: { code: "INVALID_EVENT", pointer: "/run/runId", reason: 'must match format "uuid"' } },
        { index: 2, status: "STORED", kind: "RUN", runId, executionStatus: "COMPLETED", execution: { runId, status: "COMPLETED" }, error: null },
        { index: 3, status: "DUPLICATE", kind: "RUN", runId, executionStatus: "COMPLETED", execution: { runId, status: "COMPLETED" }, error: null },
      ],
    });
    // The bare OpenLineage UUID names the run too, and the events come back exactly as sent.
    const events = await t.gql(`query($runId: ID!) { execution(runId: $runId) { runId } openLineageEvents(runId: $runId) { edges { node { eventType event } } } }`, { runId: start.run.runId });
    expect(events.data!.execution.runId).toBe(runId);
    expect(events.data!.openLineageEvents.edges.map((e: any) => e.node)).toEqual([
      { eventType: "START", event: start },
      { eventType: "COMPLETE", event: complete },
    ]);
  });

  it(`takes at most ${OPENLINEAGE_LIMITS.maxMutationEvents} events per call (INVALID_ARGUMENT), writing nothing`, async () => {
    const before = await tableCounts(t);
    const res = await t.gql(INGEST, { events: Array.from({ length: OPENLINEAGE_LIMITS.maxMutationEvents + 1 }, () => runEvent()) });
    expect(res.errors!.map((e) => [e.extensions?.code, e.extensions?.field])).toEqual([["INVALID_ARGUMENT", "events"]]);
    expect(await tableCounts(t)).toEqual(before);
  });

  it("JobEvents register the job; DatasetEvents are stored; both come back from openLineageEvents", async () => {
    const jobEvent = { eventTime: "2026-03-11T02:00:00Z", producer: "https://example.com/p", schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent", job: { namespace: "tests", name: "declared" } };
    const datasetEvent = { eventTime: "2026-03-11T02:00:00Z", producer: "https://example.com/p", schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent", dataset: { namespace: "tests", name: "static" } };
    const res = await t.gql(INGEST, { events: [jobEvent, datasetEvent] });
    expect(res.data!.ingestOpenLineageEvents.results.map((r: any) => [r.status, r.kind])).toEqual([
      ["STORED", "JOB"],
      ["STORED", "DATASET"],
    ]);
    const read = await t.gql(`{
      operation(name: "declared", version: "openlineage:tests") { kind inputs { role artifactType required } outputs { role artifactType required } }
      jobs: openLineageEvents(job: { namespace: "tests", name: "declared" }) { edges { node { kind event } } }
      datasets: openLineageEvents(dataset: { namespace: "tests", name: "static" }) { edges { node { kind event } } }
    }`);
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({
      operation: { kind: "CREATOR", inputs: [{ role: "input", artifactType: "dataset", required: false }], outputs: [{ role: "output", artifactType: "dataset", required: false }] },
      jobs: { edges: [{ node: { kind: "JOB", event: jobEvent } }] },
      datasets: { edges: [{ node: { kind: "DATASET", event: datasetEvent } }] },
    });
  });
});

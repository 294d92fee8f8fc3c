import { artifactIdFor } from "../../src/services/ids";
import { executionRecord, recorded, statusChanged } from "../support/feeds";
import { draft, recordOk, registerOperation, sha256Of } from "../support/recording";
import { SseReader } from "../support/sse";
import { createTestApp, type TestApp } from "../support/test-app";
import { testProvider } from "../support/test-database";

const generate = { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
const transform = { name: "transform", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "result", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] };
const idOf = (name: string) => artifactIdFor("csv", sha256Of(name));

/** The Subscription type, through Yoga in-process (GraphQL over SSE): arguments, events, errors. */
describe(`Subscription: the schema's translation (${testProvider})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generate);
    await registerOperation(t, transform);
  });
  afterAll(() => t.close());

  async function subscribe(query: string, variables: Record<string, unknown> = {}) {
    const response = await t.app.yoga.fetch("http://provgraph.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query, variables }),
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    return new SseReader(response.body!).ready();
  }
  const gen = async (name: string, extra: Record<string, unknown> = {}) =>
    (await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(name)] }], ...extra })).runId as string;

  test.each([
    ["since with both fields", `subscription { runRecorded(since: { sequence: 1, time: "2026-01-01T00:00:00Z" }) { sequence } }`, { code: "INVALID_ARGUMENT", field: "since" }],
    ["since with neither", `subscription { runRecorded(since: {}) { sequence } }`, { code: "INVALID_ARGUMENT", field: "since" }],
    ["a malformed runId", `subscription { runStatusChanged(runId: "run_nope") { status } }`, { code: "INVALID_ID", field: "runId" }],
    ["a malformed artifact id", `subscription { lineageAdded(artifactId: "x") { sequence } }`, { code: "INVALID_ID", field: "artifactId" }],
    ["a sequence not logged yet", `subscription { runRecorded(since: { sequence: 999999 }) { sequence } }`, { code: "FEED_POSITION_UNKNOWN", field: "since.sequence" }],
  ])("%s is refused before any event, with its code, and the stream completes", async (_name, query, expected) => {
    const reader = await subscribe(query);
    const [result, complete] = await reader.take(2);
    expect(result.data.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining(expected) })]);
    expect(result.data.errors[0].message).not.toMatch(/Unexpected error/);
    expect(complete.event).toBe("complete");
  });

  test("runRecorded events resolve any selection of the execution (each event with batch loaders of its own)", async () => {
    const reader = await subscribe(`subscription($f: RunFeedFilter) { runRecorded(filter: $f) { __typename sequence committedAt execution { runId status pipeline operation { name version } outputs { role artifact { originalName } } } } }`, {
      f: { operation: "generate" },
    });
    const first = await gen("api_a.csv", { pipeline: "p", step: 1 });
    const second = await gen("api_b.csv");
    const events = (await reader.take(2)).map((message) => message.data.data.runRecorded);
    expect(events.map(({ sequence, committedAt, ...rest }) => (expect(typeof sequence).toBe("number"), expect(Date.parse(committedAt)).not.toBeNaN(), rest))).toEqual([
      { __typename: "RunRecordedEvent", execution: { runId: first, status: "COMPLETED", pipeline: "p", operation: { name: "generate", version: "1" }, outputs: [{ role: "out", artifact: { originalName: "api_a.csv" } }] } },
      { __typename: "RunRecordedEvent", execution: { runId: second, status: "COMPLETED", pipeline: null, operation: { name: "generate", version: "1" }, outputs: [{ role: "out", artifact: { originalName: "api_b.csv" } }] } },
    ]);
    expect(events[1].sequence).toBe(events[0].sequence + 1);
    await reader.cancel();
  });

  test("runStatusChanged and lineageAdded events", async () => {
    const run = executionRecord({ status: "STARTED" });
    const status = await subscribe(`subscription($r: ID!) { runStatusChanged(runId: $r) { runId status previousStatus execution { status } } }`, { r: run.runId });
    await t.app.services.commits.run(async (_tx, scope) => scope.emit(recorded(run)));
    await t.app.services.commits.run(async (_tx, scope) => scope.emit(statusChanged({ ...run, status: "FAILED" }, "STARTED")));
    expect((await status.take(2)).map((message) => message.data.data.runStatusChanged)).toEqual([
      { runId: run.runId, status: "STARTED", previousStatus: null, execution: { status: "STARTED" } },
      { runId: run.runId, status: "FAILED", previousStatus: "STARTED", execution: { status: "FAILED" } },
    ]);
    await status.cancel();

    await gen("api_src.csv");
    const lineage = await subscribe(
      `subscription($a: ID!) { lineageAdded(artifactId: $a) { artifactId direction run { operation { name } } artifacts { originalName } edges { kind source { originalName } target { originalName } runId } } }`,
      { a: idOf("api_src.csv") },
    );
    const run2 = (await recordOk(t, { operation: "transform", operationVersion: "1", inputs: [{ role: "data", artifactIds: [idOf("api_src.csv")] }], outputs: [{ role: "result", artifacts: [draft("api_src_v2.csv")] }] })).runId;
    expect((await lineage.take(1)).map((message) => message.data.data.lineageAdded)).toEqual([
      {
        artifactId: idOf("api_src.csv"),
        direction: "DOWNSTREAM",
        run: { operation: { name: "transform" } },
        artifacts: [{ originalName: "api_src_v2.csv" }],
        edges: [{ kind: "INDEPENDENT", source: { originalName: "api_src.csv" }, target: { originalName: "api_src_v2.csv" }, runId: run2 }],
      },
    ]);
    await lineage.cancel();
  });

  test("subscribers of one document with the same variables share one execution per event; other documents or variables get their own", async () => {
    const query = `subscription($f: RunFeedFilter) { runRecorded(filter: $f) { sequence execution { runId operation { name } } } }`;
    const statementsFor = async (readers: SseReader[]) => {
      // The recording's own statements, then each execution's operation read (one statement, batched).
      const before = t.app.database.statementCount();
      const runId = await gen(`share_${before}.csv`);
      const events = await Promise.all(readers.map(async (reader) => (await reader.take(1))[0].data.data.runRecorded));
      for (const event of events) expect(event.execution).toEqual({ runId, operation: { name: "generate" } });
      return t.app.database.statementCount() - before;
    };
    const none = await statementsFor([]);
    const one = [await subscribe(query, { f: { operation: "generate" } })];
    await statementsFor(one); // warm: the feed reads the operation's name once
    const alone = await statementsFor(one);
    const perExecution = alone - none;
    expect(perExecution).toBeGreaterThan(0);
    const many = [...one, ...(await Promise.all(Array.from({ length: 19 }, () => subscribe(query, { f: { operation: "generate" } }))))];
    expect(await statementsFor(many)).toBe(alone);
    // Another variable value, and another document: one more execution each.
    const others = [await subscribe(query, { f: { pipeline: null } }), await subscribe(query.replace("sequence", "sequence committedAt"), { f: { operation: "generate" } })];
    expect(await statementsFor([...many, ...others])).toBe(alone + 2 * perExecution);
    for (const reader of [...many, ...others]) await reader.cancel();
  });

  test("stopping the server ends subscriptions with FEED_CLOSED", async () => {
    const reader = await subscribe(`subscription { runRecorded { sequence } }`);
    await t.app.services.feeds.stop();
    const [result, complete] = await reader.take(2);
    expect(result.data.errors).toEqual([expect.objectContaining({ extensions: { code: "FEED_CLOSED" }, path: ["runRecorded"] })]);
    expect(complete.event).toBe("complete");
  });
});

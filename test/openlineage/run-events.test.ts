import { randomUUID } from "node:crypto";
import type { RecordingEvent } from "../../src/services/recording";
import { groupIdFor } from "../../src/services/recording";
import { datasetArtifactId } from "../../src/openlineage";
import { dataset, postEvent, postLineage, runEvent } from "../support/openlineage";
import { draft, recordOk, registerOperation, tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/** How an OpenLineage run's events become one execution, whatever order they arrive in. */
describe("OpenLineage runs → executions", () => {
  let t: TestApp;
  const committed: RecordingEvent[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    t.app.services.commits.onCommitted((events) => committed.push(...events));
  });
  afterAll(() => t.close());

  const EXECUTION = `query($runId: ID!) { execution(runId: $runId) {
    runId status startedAt endedAt recordedAt params agent parent { runId status operation { name version } }
    pins { inputVersions codeVersion imageDigest deterministic }
    operation { name version }
    inputs { role artifact { id dataset { namespace name version } } }
    outputs { role artifact { id dataset { namespace name version } derivations { kind groupId sources { id } } } }
    openLineage { job { namespace name } eventCount } failure { message programmingLanguage stackTrace } } }`;
  const execution = async (runId: string) => {
    const res = await t.gql(EXECUTION, { runId });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!.execution;
  };
  const post = async (event: Record<string, unknown>) => {
    const answer = await postEvent(t, event);
    if (answer.status !== 201) throw new Error(`${answer.status} ${answer.text}`);
    return answer.json;
  };

  const TIMES = { START: "2026-03-11T02:00:00.000Z", RUNNING: "2026-03-11T02:30:00.000Z", COMPLETE: "2026-03-11T03:00:00.000Z" } as const;
  const orders: (keyof typeof TIMES)[][] = [
    ["START", "COMPLETE"],
    ["COMPLETE", "START"],
    ["START", "RUNNING", "COMPLETE"],
    ["START", "COMPLETE", "RUNNING"],
    ["RUNNING", "START", "COMPLETE"],
    ["RUNNING", "COMPLETE", "START"],
    ["COMPLETE", "START", "RUNNING"],
    ["COMPLETE", "RUNNING", "START"],
  ];
  it.each(orders.map((order) => [order.join(" → "), order] as const))("%s: one execution, COMPLETED, started at START, ended at COMPLETE", async (_name, order) => {
    const runId = randomUUID();
    committed.length = 0;
    const statuses: string[] = [];
    for (const eventType of order) {
      const answer = await post(runEvent({ runId, eventType, eventTime: TIMES[eventType], job: { namespace: "lifecycle", name: "nightly" } }));
      statuses.push(answer.executionStatus);
    }
    // The status after each event is the fold of the events stored so far.
    const expectedAfter = order.map((_, i) => {
      const seen = order.slice(0, i + 1);
      return seen.includes("COMPLETE") ? "COMPLETED" : seen.includes("RUNNING") ? "RUNNING" : "STARTED";
    });
    expect(statuses).toEqual(expectedAfter);
    const recorded = await execution(runId);
    expect(recorded).toEqual(
      expect.objectContaining({
        runId: `run_${runId}`,
        status: "COMPLETED",
        startedAt: TIMES.START,
        endedAt: TIMES.COMPLETE,
        operation: { name: "nightly", version: "openlineage:lifecycle" },
        openLineage: { job: { namespace: "lifecycle", name: "nightly" }, eventCount: order.length },
        failure: null,
      }),
    );
    expect(await t.app.database.prisma.execution.count({ where: { runId: `run_${runId}` } })).toBe(1);
    // Recorded once, then one status change per change of the fold.
    const changes = expectedAfter.filter((status, i) => i > 0 && status !== expectedAfter[i - 1]).length;
    expect(committed.map((e) => e.type)).toEqual(["EXECUTION_RECORDED", ...Array(changes).fill("EXECUTION_STATUS_CHANGED")]);
  });

  it("events of one run (and its parent) posted at the same time: one execution each, the right final state", async () => {
    const runId = randomUUID();
    const parentId = randomUUID();
    const job = { namespace: "concurrent", name: "job" };
    const facets = { parent: { run: { runId: parentId }, job: { namespace: "concurrent", name: "dag" } } };
    const events = [
      runEvent({ runId, job, eventType: "START", eventTime: "2026-03-11T02:00:00Z", run: { runId, facets }, inputs: [dataset("c", "in")] }),
      ...Array.from({ length: 6 }, (_, i) => runEvent({ runId, job, eventType: "RUNNING", eventTime: `2026-03-11T02:0${i + 1}:00Z`, run: { runId, facets }, inputs: [dataset("c", "in")] })),
      runEvent({ runId, job, eventType: "COMPLETE", eventTime: "2026-03-11T03:00:00Z", run: { runId, facets }, inputs: [dataset("c", "in")], outputs: [dataset("c", "out")] }),
    ];
    const answers = await Promise.all(events.map((event) => postEvent(t, event)));
    expect(answers.map((a) => a.status)).toEqual(events.map(() => 201));
    expect(await execution(runId)).toEqual(expect.objectContaining({ status: "COMPLETED", startedAt: "2026-03-11T02:00:00.000Z", endedAt: "2026-03-11T03:00:00.000Z", openLineage: { job, eventCount: 8 } }));
    expect(await t.app.database.prisma.execution.count({ where: { runId: { in: [`run_${runId}`, `run_${parentId}`] } } })).toBe(2);
  });

  it("FAIL with an errorMessage facet is the execution's failure; the latest terminal event decides, FAIL before COMPLETE at one instant", async () => {
    const runId = randomUUID();
    const errorMessage = { message: "division by zero", programmingLanguage: "python", stackTrace: "Traceback (most recent call last): …" };
    await post(runEvent({ runId, eventType: "START", eventTime: "2026-03-11T02:00:00Z" }));
    await post(runEvent({ runId, eventType: "FAIL", eventTime: "2026-03-11T02:10:00Z", run: { runId, facets: { errorMessage } } }));
    expect(await execution(runId)).toEqual(expect.objectContaining({ status: "FAILED", endedAt: "2026-03-11T02:10:00.000Z", failure: errorMessage }));
    // A retry of the same run that completed later.
    await post(runEvent({ runId, eventType: "COMPLETE", eventTime: "2026-03-11T02:20:00Z" }));
    expect(await execution(runId)).toEqual(expect.objectContaining({ status: "COMPLETED", endedAt: "2026-03-11T02:20:00.000Z", failure: null }));
    // At one instant, FAIL wins over COMPLETE (and OTHER never moves the status).
    await post(runEvent({ runId, eventType: "FAIL", eventTime: "2026-03-11T02:20:00Z", run: { runId, facets: { errorMessage } } }));
    await post(runEvent({ runId, eventType: "OTHER", eventTime: "2026-03-11T04:00:00Z" }));
    expect(await execution(runId)).toEqual(expect.objectContaining({ status: "FAILED", endedAt: "2026-03-11T02:20:00.000Z", failure: errorMessage }));
    const aborted = randomUUID();
    await post(runEvent({ runId: aborted, eventType: "ABORT" }));
    expect((await execution(aborted)).status).toBe("ABORTED");
  });

  it("outputs reported in a later event are appended to the execution: links, a joint derivation from the run's inputs, LINEAGE_RECORDED", async () => {
    const runId = randomUUID();
    const job = { namespace: "append", name: "join" };
    const a = dataset("wh", "a", { version: { datasetVersion: "1" } });
    const b = dataset("wh", "b", { version: { datasetVersion: "7" } });
    committed.length = 0;
    await post(runEvent({ runId, job, eventType: "START", eventTime: "2026-03-11T02:00:00Z", inputs: [a], outputs: [] }));
    await post(runEvent({ runId, job, eventType: "RUNNING", eventTime: "2026-03-11T02:05:00Z", inputs: [a, b], outputs: [] }));
    await post(runEvent({ runId, job, eventType: "COMPLETE", eventTime: "2026-03-11T02:10:00Z", inputs: [a, b], outputs: [dataset("wh", "joined")] }));
    const ids = { a: datasetArtifactId({ namespace: "wh", name: "a", version: "1" }), b: datasetArtifactId({ namespace: "wh", name: "b", version: "7" }), joined: datasetArtifactId({ namespace: "wh", name: "joined", version: `run_${runId}` }) };
    const recorded = await execution(runId);
    expect(recorded.inputs.map((i: any) => i.artifact.id).sort()).toEqual([ids.a, ids.b].sort());
    expect(recorded.outputs).toEqual([
      {
        role: "output",
        artifact: {
          id: ids.joined,
          dataset: { namespace: "wh", name: "joined", version: `run_${runId}` },
          derivations: [{ kind: "CO_INPUT", groupId: groupIdFor([ids.a, ids.b]), sources: expect.arrayContaining([{ id: ids.a }, { id: ids.b }]) }],
        },
      },
    ]);
    expect(committed.map((e) => e.type)).toEqual(["EXECUTION_RECORDED", "EXECUTION_STATUS_CHANGED", "EXECUTION_STATUS_CHANGED", "LINEAGE_RECORDED"]);
    const lineage = committed[3] as Extract<RecordingEvent, { type: "LINEAGE_RECORDED" }>;
    expect(lineage.edges.map((e) => [e.sourceId, e.targetId, e.kind])).toEqual(expect.arrayContaining([[ids.a, ids.joined, "CO_INPUT"], [ids.b, ids.joined, "CO_INPUT"]]));
    // A later event reporting a third input adds a new joint derivation; the first stays (append-only).
    const c = dataset("wh", "c", { version: { datasetVersion: "3" } });
    await post(runEvent({ runId, job, eventType: "OTHER", eventTime: "2026-03-11T02:20:00Z", inputs: [a, b, c], outputs: [dataset("wh", "joined")] }));
    const later = await execution(runId);
    const idC = datasetArtifactId({ namespace: "wh", name: "c", version: "3" });
    expect(later.outputs[0].artifact.derivations.map((d: any) => d.groupId).sort()).toEqual([groupIdFor([ids.a, ids.b]), groupIdFor([ids.a, ids.b, idC])].sort());
  });

  it("the parent facet names the parent execution; one not seen yet is recorded STARTED until its own events arrive and fold into it", async () => {
    const parentId = randomUUID();
    const childId = randomUUID();
    const parentJob = { namespace: "airflow", name: "daily_dag" };
    await post(runEvent({ runId: childId, job: { namespace: "airflow", name: "daily_dag.load" }, run: { runId: childId, facets: { parent: { run: { runId: parentId }, job: parentJob } } } }));
    const child = await execution(childId);
    expect(child.parent).toEqual({ runId: `run_${parentId}`, status: "STARTED", operation: { name: "daily_dag", version: "openlineage:airflow" } });
    expect((await execution(parentId)).openLineage).toEqual({ job: parentJob, eventCount: 0 });
    await post(runEvent({ runId: parentId, job: parentJob, eventType: "START", eventTime: "2026-03-11T01:00:00Z" }));
    await post(runEvent({ runId: parentId, job: parentJob, eventType: "COMPLETE", eventTime: "2026-03-11T04:00:00Z" }));
    expect(await execution(parentId)).toEqual(
      expect.objectContaining({ status: "COMPLETED", startedAt: "2026-03-11T01:00:00.000Z", endedAt: "2026-03-11T04:00:00.000Z", openLineage: { job: parentJob, eventCount: 2 } }),
    );
  });

  it("a START with a parent facet, then a COMPLETE without it: the COMPLETE is stored, the run COMPLETED, its parent kept (from the START)", async () => {
    const parentId = randomUUID();
    const runId = randomUUID();
    const job = { namespace: "airflow", name: "dag.task" };
    const parent = { run: { runId: parentId }, job: { namespace: "airflow", name: "dag" } };
    await post(runEvent({ runId, job, eventType: "START", eventTime: "2026-03-11T01:00:00Z", run: { runId, facets: { parent } } }));
    const answer = await postEvent(t, runEvent({ runId, job, eventType: "COMPLETE", eventTime: "2026-03-11T02:00:00Z" }));
    expect([answer.status, answer.json.status, answer.json.executionStatus]).toEqual([201, "STORED", "COMPLETED"]);
    expect(await execution(runId)).toEqual(expect.objectContaining({ status: "COMPLETED", parent: { runId: `run_${parentId}`, status: "STARTED", operation: { name: "dag", version: "openlineage:airflow" } } }));
    // The other way round, and in one batch.
    const later = randomUUID();
    await post(runEvent({ runId: later, job, eventType: "COMPLETE", eventTime: "2026-03-11T02:00:00Z" }));
    await post(runEvent({ runId: later, job, eventType: "START", eventTime: "2026-03-11T01:00:00Z", run: { runId: later, facets: { parent } } }));
    expect((await execution(later)).parent.runId).toBe(`run_${parentId}`);
    const batched = randomUUID();
    const otherParent = randomUUID();
    await post(runEvent({ runId: batched, job, eventType: "START", eventTime: "2026-03-11T01:00:00Z", run: { runId: batched, facets: { parent: { ...parent, run: { runId: otherParent } } } } }));
    const batch = await postLineage(t, JSON.stringify([runEvent({ runId: batched, job, eventType: "RUNNING", eventTime: "2026-03-11T01:30:00Z" }), runEvent({ runId: batched, job, eventType: "COMPLETE", eventTime: "2026-03-11T02:00:00Z" })]));
    expect([batch.status, batch.json.stored]).toEqual([200, 2]);
    expect(await execution(batched)).toEqual(expect.objectContaining({ status: "COMPLETED", parent: expect.objectContaining({ runId: `run_${otherParent}` }) }));
  });

  it("a run's events must name one job: another job is refused, and the job it names is not registered (the refused unit wrote nothing)", async () => {
    const runId = randomUUID();
    await post(runEvent({ runId, job: { namespace: "jobs", name: "first" } }));
    const before = await tableCounts(t);
    const answer = await postEvent(t, runEvent({ runId, eventType: "START", job: { namespace: "jobs", name: "second" } }));
    expect([answer.status, answer.json.error.code, answer.json.error.pointer]).toEqual([400, "INVALID_EVENT", "/job"]);
    expect(answer.json.error.reason).toBe(`run run_${runId} is a run of job 'first' in namespace 'jobs'; this event names job 'second' in namespace 'jobs'`);
    expect(await tableCounts(t)).toEqual(before);
  });

  it("an execution recorded through recordExecution cannot be appended to by OpenLineage events", async () => {
    await registerOperation(t, { name: "native", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    const native = await recordOk(t, { operation: "native", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft("native.csv")] }] });
    const before = await tableCounts(t);
    const answer = await postEvent(t, runEvent({ runId: native.runId.slice("run_".length) }));
    expect([answer.status, answer.json.error.pointer]).toEqual([400, "/run/runId"]);
    expect(await tableCounts(t)).toEqual(before);
  });

  it("dataset versions: the version facet (pinned), else the latest version known (unpinned), else the dataset itself (unpinned); outputs without one are the run's version", async () => {
    const producer = randomUUID();
    const consumer = randomUUID();
    await post(runEvent({ runId: producer, job: { namespace: "versions", name: "produce" }, outputs: [dataset("wh", "daily")] }));
    await post(
      runEvent({
        runId: consumer,
        job: { namespace: "versions", name: "consume" },
        inputs: [dataset("wh", "daily"), dataset("wh", "ref", { version: { datasetVersion: "88" } }), dataset("ext", "never_seen")],
        outputs: [dataset("wh", "report")],
      }),
    );
    const recorded = await execution(consumer);
    const daily = { namespace: "wh", name: "daily", version: `run_${producer}` };
    expect(recorded.pins.inputVersions).toEqual([
      { namespace: "ext", name: "never_seen", version: null, artifactId: datasetArtifactId({ namespace: "ext", name: "never_seen", version: null }), pinned: false, resolvedBy: "UNVERSIONED" },
      { ...daily, artifactId: datasetArtifactId(daily), pinned: false, resolvedBy: "LATEST_KNOWN" },
      { namespace: "wh", name: "ref", version: "88", artifactId: datasetArtifactId({ namespace: "wh", name: "ref", version: "88" }), pinned: true, resolvedBy: "VERSION_FACET" },
    ]);
    expect(recorded.outputs[0].artifact.dataset).toEqual({ namespace: "wh", name: "report", version: `run_${consumer}` });
    // Each run's output is a new immutable version; the dataset lists them all, newest first.
    const second = randomUUID();
    await post(runEvent({ runId: second, job: { namespace: "versions", name: "produce" }, outputs: [dataset("wh", "daily")] }));
    const res = await t.gql(`{ dataset(namespace: "wh", name: "daily") { namespace name version versions { dataset { version } producedBy { runId } } latestVersion { dataset { version } } } }`);
    expect(res.data!.dataset).toEqual({
      namespace: "wh",
      name: "daily",
      version: null,
      versions: [
        { dataset: { version: `run_${second}` }, producedBy: [{ runId: `run_${second}` }] },
        { dataset: { version: `run_${producer}` }, producedBy: [{ runId: `run_${producer}` }] },
      ],
      latestVersion: { dataset: { version: `run_${second}` } },
    });
    const unknown = await t.gql(`{ dataset(namespace: "wh", name: "nothing") { name } }`);
    expect(unknown.errors!.map((e) => [e.extensions?.code, e.extensions?.field])).toEqual([["NOT_FOUND", "name"]]);
  });

  it("facets become params, replay pins and the agent", async () => {
    const runId = randomUUID();
    await post(
      runEvent({
        runId,
        run: {
          runId,
          facets: {
            nominalTime: { nominalStartTime: "2026-03-11T00:00:00Z", nominalEndTime: "2026-03-12T00:00:00Z" },
            processing_engine: { version: "3.5.1", name: "spark", openlineageAdapterVersion: "1.30.0" },
            codeVersion: { gitSha: "9f2c1ab", image: "sha256:4d7e0b31" },
          },
        },
        job: { namespace: "facets", name: "job", facets: { sql: { query: "SELECT * FROM t", dialect: "spark" }, ownership: { owners: [{ name: "team:risk", type: "TEAM" }] } } },
      }),
    );
    const recorded = await execution(runId);
    expect(recorded.params).toEqual({
      nominalTime: { nominalStartTime: "2026-03-11T00:00:00Z", nominalEndTime: "2026-03-12T00:00:00Z" },
      processingEngine: { version: "3.5.1", name: "spark", openlineageAdapterVersion: "1.30.0" },
      sql: { query: "SELECT * FROM t", dialect: "spark" },
    });
    expect(recorded.pins).toEqual({ inputVersions: null, codeVersion: "9f2c1ab", imageDigest: "sha256:4d7e0b31", deterministic: null });
    expect(recorded.agent).toBe("team:risk");
  });
});

import { randomUUID } from "node:crypto";
import { dataset, postEvent, PRODUCER, runEvent } from "../support/openlineage";
import { tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

const INGEST = `mutation($events: [JSON!]!) { ingestOpenLineageEvents(events: $events) {
  stored refused results { status kind runId executionStatus error { code pointer reason } warnings { code pointer reason } } } }`;
const EVENTS_OF_RUN = `query($runId: ID!) { openLineageEvents(runId: $runId) { edges { node { eventType event warnings { code pointer reason } } } } }`;

/**
 * What real producers send beyond the letter of the 2-0-x schema, as Marquez reads it: a JobEvent
 * that also carries an eventType, values that break only their `format` (kept, with a warning on
 * the event), eventTime as epoch milliseconds; and dataset versions named by the bare runId.
 */
describe("OpenLineage events as real producers send them", () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it("a JobEvent that also carries eventType (Marquez's event_job_event.json) is a JobEvent, as its schemaURL says", async () => {
    const event = {
      eventType: "COMPLETE",
      eventTime: "2020-12-28T19:52:00.001+10:00",
      job: { namespace: "my-scheduler-namespace", name: "myjob" },
      inputs: [{ namespace: "my-datasource-namespace", name: "instance.schema.input-1" }],
      outputs: [{ namespace: "my-datasource-namespace", name: "instance.schema.output-1" }],
      producer: "https://github.com/OpenLineage/OpenLineage/blob/v1-0-0/client",
      schemaURL: "https://openlineage.io/spec/1-0-1/OpenLineage.json#/definitions/JobEvent",
    };
    const answer = await postEvent(t, event);
    expect([answer.status, answer.json]).toEqual([201, { index: 0, status: "STORED", kind: "JOB" }]);
    const read = await t.gql(`{ openLineageEvents(job: { namespace: "my-scheduler-namespace", name: "myjob" }) { edges { node { kind eventType event } } } }`);
    expect(read.data!.openLineageEvents.edges).toEqual([{ node: { kind: "JOB", eventType: null, event } }]);
    // The same shape named a RunEvent by its schemaURL is one, and lacks its run.
    const asRun = await postEvent(t, { ...event, schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent" });
    expect([asRun.status, asRun.json.error.code, asRun.json.error.pointer]).toEqual([400, "INVALID_EVENT", "/run"]);
  });

  it("values that break only their format — Spark's dataSource.uri \"file\", dbt's \"bigquery\", a sourceCodeLocation.url that is no URI — are stored as sent, each a warning on its event", async () => {
    const event = runEvent({
      job: {
        namespace: "spark",
        name: "etl",
        facets: { sourceCodeLocation: { _producer: PRODUCER, _schemaURL: "https://openlineage.io/spec/facets/1-0-1/SourceCodeLocationJobFacet.json", type: "git", url: "git@github.com:acme/etl.git" } },
      },
      inputs: [dataset("file", "/data/in.parquet", { dataSource: { _producer: PRODUCER, _schemaURL: "https://openlineage.io/spec/facets/1-0-1/DatasourceDatasetFacet.json", name: "file", uri: "file" } })],
      outputs: [dataset("bigquery", "proj.ds.out", { dataSource: { _producer: PRODUCER, _schemaURL: "https://openlineage.io/spec/facets/1-0-1/DatasourceDatasetFacet.json", name: "bigquery", uri: "bigquery" } })],
    });
    const warnings = [
      { code: "FORMAT", pointer: "/job/facets/sourceCodeLocation/url", reason: 'must match format "uri"' },
      { code: "FORMAT", pointer: "/inputs/0/facets/dataSource/uri", reason: 'must match format "uri"' },
      { code: "FORMAT", pointer: "/outputs/0/facets/dataSource/uri", reason: 'must match format "uri"' },
    ];
    const answer = await postEvent(t, event);
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ status: "STORED", kind: "RUN", executionStatus: "COMPLETED" });
    expect(sorted(answer.json.warnings)).toEqual(sorted(warnings));

    // Visible on the stored event, which is kept exactly as sent.
    const read = await t.gql(EVENTS_OF_RUN, { runId: event.run.runId });
    expect(read.errors).toBeUndefined();
    const [node] = read.data!.openLineageEvents.edges.map((e: any) => e.node);
    expect(node.event).toEqual(event);
    expect(sorted(node.warnings)).toEqual(sorted(warnings));

    // Through the mutation the same; an event without any has none.
    const clean = runEvent();
    const res = await t.gql(INGEST, { events: [{ ...event, run: { runId: randomUUID(), facets: {} } }, clean] });
    expect(res.errors).toBeUndefined();
    expect(sorted(res.data!.ingestOpenLineageEvents.results[0].warnings)).toEqual(sorted(warnings));
    expect(res.data!.ingestOpenLineageEvents.results[1].warnings).toEqual([]);
    expect((await t.gql(EVENTS_OF_RUN, { runId: clean.run.runId })).data!.openLineageEvents.edges[0].node.warnings).toEqual([]);
  });

  it("a facet's own _producer or _schemaURL that is no URI (a custom facet's relative \"#/definitions/…\") is a warning like any format, not a refusal", async () => {
    const parentRunId = randomUUID();
    const event = runEvent({
      run: {
        runId: randomUUID(),
        facets: {
          acme_run: { _producer: "acme-scheduler", _schemaURL: "#/definitions/AcmeRunFacet", attempt: 2 },
          parent: {
            _producer: PRODUCER,
            _schemaURL: "ParentRunFacet.json",
            run: { runId: parentRunId },
            job: { namespace: "airflow", name: "dag.task" },
            // A root run's facets forwarded in the parent facet: an anyOf inside the facets' anyOf.
            root: { run: { runId: randomUUID(), facets: { acme_dag: { _producer: "acme-scheduler", _schemaURL: "#/definitions/AcmeDagFacet" } } }, job: { namespace: "airflow", name: "dag" } },
          },
        },
      },
      outputs: [dataset("tests", "facet-formats.out", { acme_quality: { _producer: "acme", _schemaURL: "https://acme.example/quality.json", score: 0.9 } })],
    });
    const answer = await postEvent(t, event);
    expect(answer.status).toBe(201);
    const pointers = [
      "/run/facets/acme_run/_producer",
      "/run/facets/acme_run/_schemaURL",
      "/run/facets/parent/_schemaURL",
      "/run/facets/parent/root/run/facets/acme_dag/_producer",
      "/run/facets/parent/root/run/facets/acme_dag/_schemaURL",
      "/outputs/0/facets/acme_quality/_producer",
    ];
    expect(sorted(answer.json.warnings)).toEqual(sorted(pointers.map((pointer) => ({ code: "FORMAT", pointer, reason: 'must match format "uri"' }))));
    const read = await t.gql(`query($runId: ID!) { execution(runId: $runId) { parent { id } } }`, { runId: event.run.runId });
    expect(read.data!.execution.parent).toEqual({ id: `run_${parentRunId}` });

    // The anyOf that checks facets still refuses what is wrong beyond a format, at the value that is.
    const before = await tableCounts(t);
    const cases: [Record<string, unknown>, string, string][] = [
      [runEvent({ run: { runId: randomUUID(), facets: { acme_run: 42 } } }), "/run/facets/acme_run", "must be object"],
      [runEvent({ run: { runId: randomUUID(), facets: { acme_run: { _producer: "acme", _schemaURL: 7 } } } }), "/run/facets/acme_run/_schemaURL", "must be string"],
      [runEvent({ run: { runId: randomUUID(), facets: { parent: { _producer: PRODUCER, _schemaURL: "x", run: { runId: "nope" }, job: { namespace: "a", name: "b" } } } } }), "/run/facets/parent/run/runId", 'must match format "uuid"'],
    ];
    for (const [refused, pointer, reason] of cases) {
      const res = await postEvent(t, refused);
      expect([res.status, res.json.error]).toEqual([400, expect.objectContaining({ code: "INVALID_EVENT", pointer, reason })]);
    }
    expect(await tableCounts(t)).toEqual(before);
  });

  it("structure and types stay strict, and so do the formats provgraph reads (eventTime, runIds): refused, nothing written", async () => {
    const before = await tableCounts(t);
    const cases: [Record<string, unknown>, string, string][] = [
      [runEvent({ inputs: [dataset("file", "x", { dataSource: { _producer: PRODUCER, _schemaURL: "https://x/y.json", uri: 42 } })] }), "/inputs/0/facets/dataSource/uri", "must be string"],
      [runEvent({ run: { runId: "not-a-uuid", facets: {} } }), "/run/runId", 'must match format "uuid"'],
      [runEvent({ eventTime: "yesterday" }), "/eventTime", 'must match format "date-time"'],
    ];
    for (const [event, pointer, reason] of cases) {
      const answer = await postEvent(t, event);
      expect([answer.status, answer.json.error]).toEqual([400, expect.objectContaining({ code: "INVALID_EVENT", pointer, reason })]);
    }
    expect(await tableCounts(t)).toEqual(before);
  });

  it("eventTime as epoch milliseconds, a JSON number or a string of digits (as Marquez accepts), is that instant", async () => {
    const at = Date.UTC(2026, 2, 11, 2, 14, 7, 318);
    const runId = randomUUID();
    const start = runEvent({ runId, eventType: "START", eventTime: at });
    const complete = runEvent({ runId, eventType: "COMPLETE", eventTime: String(at + 60_000), outputs: [dataset("tests", "epoch.out")] });
    for (const event of [start, complete]) expect((await postEvent(t, event)).status).toBe(201);
    const read = await t.gql(`query($runId: ID!) { execution(runId: $runId) { status startedAt endedAt } }`, { runId });
    expect(read.data!.execution).toEqual({ status: "COMPLETED", startedAt: new Date(at).toISOString(), endedAt: new Date(at + 60_000).toISOString() });
    // Stored as sent (the number stays a number).
    expect((await t.gql(EVENTS_OF_RUN, { runId })).data!.openLineageEvents.edges.map((e: any) => e.node.event.eventTime)).toEqual([at, String(at + 60_000)]);
    // Not a count of milliseconds: a fraction, or more digits than any date has.
    for (const eventTime of [at + 0.5, "17734952473180000"]) {
      const answer = await postEvent(t, runEvent({ eventTime }));
      expect([answer.status, answer.json.error.pointer]).toEqual([400, "/eventTime"]);
    }
  });

  it("columnLineage(version:) takes the bare OpenLineage runId of the run that produced the version, as it takes run_<uuid>", async () => {
    const runId = randomUUID();
    const lineage = { _producer: PRODUCER, _schemaURL: "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json", fields: { total: { inputFields: [{ namespace: "tests", name: "cl.src", field: "amount" }] } } };
    const answer = await postEvent(t, runEvent({ runId, inputs: [dataset("tests", "cl.src")], outputs: [dataset("tests", "cl.out", { columnLineage: lineage })] }));
    expect(answer.status).toBe(201);
    // A later run makes a newer version: the named one is read, not the newest.
    expect((await postEvent(t, runEvent({ inputs: [dataset("tests", "cl.src")], outputs: [dataset("tests", "cl.out")] }))).status).toBe(201);
    const query = `query($version: String) { columnLineage(namespace: "tests", name: "cl.out", field: "total", version: $version) { root { artifact { dataset { version } } } nodes { field artifact { dataset { name } } } } }`;
    const expected = { root: { artifact: { dataset: { version: `run_${runId}` } } }, nodes: [{ field: "amount", artifact: { dataset: { name: "cl.src" } } }] };
    for (const version of [`run_${runId}`, runId, runId.toUpperCase(), `urn:uuid:${runId}`]) {
      const res = await t.gql(query, { version });
      expect([version, res.errors, res.data!.columnLineage]).toEqual([version, undefined, expected]);
    }
    const unknown = await t.gql(query, { version: randomUUID() });
    expect(unknown.errors!.map((e) => [e.extensions!.code, e.extensions!.field])).toEqual([["NOT_FOUND", "version"]]);
  });
});

const sorted = <T extends { pointer: string }>(warnings: T[]) => [...warnings].sort((a, b) => a.pointer.localeCompare(b.pointer));

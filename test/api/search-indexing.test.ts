import type { GroupCommit } from "../../src/services/recording";
import { OPERATIONS, pipelineComposite, stepsOf, drafts } from "../support/composite-fixtures";
import { recordCompositeOk, registerComposite } from "../support/composites";
import { dataset, postEvent, postLineage, runEvent } from "../support/openlineage";
import { draft, generator, RECORD_EXECUTION, recordOk, registerOperation, tableCounts, transform } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * Every write path keeps the search index current inside its own transaction: what it committed is
 * found at once, and what it refused is not (nor is anything of it left in the index).
 */

async function found(t: TestApp, query: string, kinds?: string[]): Promise<string[]> {
  const res = await t.gql(`query($q: String!, $kinds: [SearchKind!]) { search(query: $q, kinds: $kinds, first: 100) { edges { node { kind label } } } }`, { q: query, kinds });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data!.search.edges.map((e: { node: { kind: string; label: string } }) => `${e.node.kind} ${e.node.label}`);
}

/** Rows of the search index (both databases have SearchEntry). */
const entries = async (t: TestApp) => Number((await t.app.database.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(`SELECT COUNT(*) AS n FROM "SearchEntry"`))[0].n);

describe("search indexing, one write path at a time", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("operation registration: the operation is a JOB", async () => {
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    expect(await found(t, "generat")).toEqual(["JOB generate"]);
  });

  test("recordExecution: its outputs, and its pipeline from its first step", async () => {
    await recordOk(t, { operation: "generate", operationVersion: "1", pipeline: "alpha-pipeline", step: 1, inputs: [], outputs: [{ role: "sample", artifacts: [draft("alpha_one.csv")] }] });
    expect(await found(t, "alpha")).toEqual(["PIPELINE alpha-pipeline", "ARTIFACT alpha_one.csv"]);
  });

  test("recordExecutions: every execution of the batch", async () => {
    const res = await t.gql(`mutation($inputs: [RecordExecutionInput!]!) { recordExecutions(inputs: $inputs) { __typename } }`, {
      inputs: ["bravo_one.csv", "bravo_two.csv"].map((name) => ({ operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft(name)] }] })),
    });
    expect(res.data!.recordExecutions).toEqual([{ __typename: "RecordExecutionPayload" }, { __typename: "RecordExecutionPayload" }]);
    expect(await found(t, "bravo")).toEqual(["ARTIFACT bravo_one.csv", "ARTIFACT bravo_two.csv"]);
  });

  test("group commit: concurrent recordings sharing a transaction, each indexed", async () => {
    const commits = t.app.services.commits as GroupCommit;
    const before = commits.stats();
    const names = Array.from({ length: 12 }, (_, i) => `charlie_${String(i).padStart(2, "0")}.csv`);
    const answers = await Promise.all(names.map((name) => t.gql(RECORD_EXECUTION, { input: { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft(name)] }] } })));
    expect(answers.every((a) => a.data?.recordExecution.__typename === "RecordExecutionPayload")).toBe(true);
    const after = commits.stats();
    expect(after.transactions - before.transactions).toBeLessThan(after.units - before.units);
    expect((await found(t, "charlie")).sort()).toEqual(names.map((name) => `ARTIFACT ${name}`));
  });

  // No unique index holds an artifact's entry (its key is the artifact's id): the unit that creates the artifact writes it, once.
  test("an artifact produced again — later, in one batch, by recordings committed together — keeps its one entry", async () => {
    const entriesOf = async (name: string) =>
      Number((await t.app.database.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(`SELECT COUNT(*) AS n FROM "SearchEntry" WHERE "kind" = 'ARTIFACT' AND "label" = '${name}'`))[0].n);
    const produce = (name: string, params: Record<string, number>) => ({ operation: "generate", operationVersion: "1", params, inputs: [], outputs: [{ role: "sample", artifacts: [draft(name)] }] });
    await recordOk(t, produce("repeat_again.csv", { n: 1 }));
    await recordOk(t, produce("repeat_again.csv", { n: 2 }));
    const batch = await t.gql(`mutation($inputs: [RecordExecutionInput!]!) { recordExecutions(inputs: $inputs) { __typename } }`, { inputs: [produce("repeat_batch.csv", { n: 1 }), produce("repeat_batch.csv", { n: 2 })] });
    expect(batch.errors).toBeUndefined();
    const together = await Promise.all([1, 2, 3, 4].map((n) => t.gql(RECORD_EXECUTION, { input: produce("repeat_together.csv", { n }) })));
    expect(together.map((a) => a.data?.recordExecution.__typename)).toEqual(Array(4).fill("RecordExecutionPayload"));
    expect([await entriesOf("repeat_again.csv"), await entriesOf("repeat_batch.csv"), await entriesOf("repeat_together.csv")]).toEqual([1, 1, 1]);
    expect(await found(t, "repeat_")).toEqual(["ARTIFACT repeat_again.csv", "ARTIFACT repeat_batch.csv", "ARTIFACT repeat_together.csv"]);
  });

  test("composites: the composite, its persisted intermediates and outputs (DISCARD keeps no intermediate)", async () => {
    for (const operation of OPERATIONS) await registerOperation(t, operation);
    await registerComposite(t, pipelineComposite("delta_persist", "PERSIST"));
    await registerComposite(t, pipelineComposite("delta_discard", "DISCARD"));
    expect(await found(t, "delta_")).toEqual(["JOB delta_discard", "JOB delta_persist"]);
    const source = await recordOk(t, { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: drafts("delta", ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]) }] });
    for (const mode of ["persist", "discard"]) {
      await recordCompositeOk(t, {
        composite: `delta_${mode}`,
        compositeVersion: "1",
        inputs: [
          { role: "a", artifactIds: [source.outputIds["A0.csv"], source.outputIds["A1.csv"]] },
          { role: "b", artifactIds: [source.outputIds["B0.csv"], source.outputIds["B1.csv"]] },
        ],
        steps: stepsOf(`delta-${mode}`),
      });
    }
    // PERSIST stores A0_clean.csv and A0_clean_joined.csv; DISCARD only the figure and metric (whose ids differ per run label).
    expect(await found(t, "a0_clean", ["ARTIFACT"])).toEqual([
      "ARTIFACT A0_clean.csv",
      "ARTIFACT A0_clean_joined.csv",
      "ARTIFACT A0_clean_joined_fig.png",
      "ARTIFACT A0_clean_joined_fig.png",
      "ARTIFACT A0_clean_joined_fig_metric.json",
      "ARTIFACT A0_clean_joined_fig_metric.json",
    ]);
  });

  test("OpenLineage ingestion: the job, the run, the dataset and its columns (POST /api/v1/lineage)", async () => {
    const runId = "0190c8c0-0000-7000-8000-00000000e001";
    const answer = await postEvent(
      t,
      runEvent({ runId, job: { namespace: "echo-ns", name: "echo_job" }, inputs: [], outputs: [dataset("warehouse", "echo.events", { schema: { fields: [{ name: "echo_key" }] } })] }),
    );
    expect(answer.status).toBe(201);
    expect(await found(t, "echo")).toEqual(["JOB echo_job", "DATASET warehouse/echo.events", "COLUMN warehouse/echo.events.echo_key"]);
    expect(await found(t, "0190c8c0-0000-7000-8000-00000000e", ["RUN"])).toEqual([`RUN run_${runId}`]);
  });

  test("OpenLineage ingestion in batches and through GraphQL", async () => {
    const batch = await postLineage(
      t,
      JSON.stringify(["foxtrot_a", "foxtrot_b"].map((name) => runEvent({ job: { namespace: "ns", name }, inputs: [], outputs: [] }))),
      { "content-type": "application/json" },
      "/api/v1/lineage/batch",
    );
    expect(batch.status).toBe(200);
    const res = await t.gql(`mutation($events: [JSON!]!) { ingestOpenLineageEvents(events: $events) { results { status } } }`, { events: [runEvent({ job: { namespace: "ns", name: "foxtrot_c" } })] });
    expect(res.data!.ingestOpenLineageEvents.results).toEqual([{ status: "STORED" }]);
    expect(await found(t, "foxtrot")).toEqual(["JOB foxtrot_a", "JOB foxtrot_b", "JOB foxtrot_c"]);
  });

  test("tag writes: a tag an admin gives is a POLICY_TAG; so is one a producer reports", async () => {
    const res = await t.gql(`mutation { tagColumn(input: { column: { namespace: "warehouse", name: "echo.events", field: "echo_key" }, tag: "GOLF_PII", reason: "test" }) { created } }`);
    expect(res.errors).toBeUndefined();
    const answer = await postEvent(
      t,
      runEvent({ job: { namespace: "ns", name: "tagger" }, inputs: [], outputs: [dataset("warehouse", "golf.table", { tags: { tags: [{ key: "GOLF_FINANCE", value: "true", source: "MANUAL" }] } })] }),
    );
    expect(answer.status).toBe(201);
    expect(await found(t, "golf_")).toEqual(["POLICY_TAG GOLF_FINANCE", "POLICY_TAG GOLF_PII"]);
  });

  test("a refused recording indexes nothing", async () => {
    const before = { rows: await tableCounts(t), entries: await entries(t) };
    const input = await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft("hotel_input.csv")] }] });
    const afterInput = await entries(t);
    expect(afterInput).toBe(before.entries + 1);
    const refusals = [
      // Refused inside its unit once its outputs are prepared: no output matches an input.
      { operation: "transform", operationVersion: "1", inputs: [{ role: "data", artifactIds: [input.outputIds["hotel_input.csv"]] }], outputs: [{ role: "result", artifacts: [draft("hotel_unrelated.csv")] }] },
      // Refused while staging: step 1 of alpha-pipeline runs generate.
      { operation: "transform", operationVersion: "1", pipeline: "alpha-pipeline", step: 1, inputs: [{ role: "data", artifactIds: [input.outputIds["hotel_input.csv"]] }], outputs: [{ role: "result", artifacts: [draft("hotel_input_clean.csv")] }] },
    ];
    const answers = await Promise.all(refusals.map((r) => t.gql(RECORD_EXECUTION, { input: r })));
    expect(answers.map((a) => a.data?.recordExecution?.__typename ?? a.errors?.[0].extensions?.code)).toEqual(["LineageCompletenessError", "STEP_CONFLICT"]);
    // An OpenLineage event refused whole: its run belongs to another job.
    const runId = "0190c8c0-0000-7000-8000-00000000e002";
    expect((await postEvent(t, runEvent({ runId, job: { namespace: "ns", name: "hotel_first" } }))).status).toBe(201);
    const clash = await postEvent(t, runEvent({ runId, job: { namespace: "ns", name: "hotel_second" }, outputs: [dataset("warehouse", "hotel.table")] }));
    expect(clash.status).toBe(400);
    expect(await entries(t)).toBe(afterInput + 1);
    expect(await found(t, "hotel")).toEqual(["JOB hotel_first", "ARTIFACT hotel_input.csv"]);
  });
});

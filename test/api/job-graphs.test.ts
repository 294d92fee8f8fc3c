import { randomUUID } from "node:crypto";
import { dataset, postEvent, runEvent } from "../support/openlineage";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

// An OpenLineage job drawn as a pipeline: the Airflow DAG "warehouse.daily" ran three tasks (child
// jobs, by the parent facet of their runs) — extract reads the source table, transform and load
// follow — so its macro and micro graphs have three steps, in the order the tasks first started.

const DAG = { namespace: "airflow", name: "warehouse.daily" };
const task = (name: string) => ({ namespace: "airflow", name: `warehouse.daily.${name}` });

async function runDag(t: TestApp, day: string) {
  const dagRun = randomUUID();
  await postEvent(t, runEvent({ runId: dagRun, job: DAG, eventType: "START", eventTime: `${day}T01:00:00Z` }));
  const parent = { run: { runId: dagRun }, job: DAG };
  const steps: [string, string, string[], string[]][] = [
    ["extract", "01:05", ["source.orders"], [`staging.orders_${day}`]],
    ["transform", "01:10", [`staging.orders_${day}`], [`clean.orders_${day}`]],
    ["load", "01:20", [`clean.orders_${day}`], [`warehouse.orders_${day}`]],
  ];
  for (const [name, time, inputs, outputs] of steps) {
    const runId = randomUUID();
    const base = { runId, job: task(name), run: { runId, facets: { parent } } };
    await postEvent(t, runEvent({ ...base, eventType: "START", eventTime: `${day}T${time}:00Z` }));
    const res = await postEvent(t, runEvent({ ...base, eventType: "COMPLETE", eventTime: `${day}T${time}:30Z`, inputs: inputs.map((n) => dataset("pg", n)), outputs: outputs.map((n) => dataset("pg", n)) }));
    expect(res.status).toBeLessThan(300);
  }
  await postEvent(t, runEvent({ runId: dagRun, job: DAG, eventType: "COMPLETE", eventTime: `${day}T02:00:00Z` }));
}

describe("macro and micro graphs of an OpenLineage job", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    await runDag(t, "2026-03-10");
    await runDag(t, "2026-03-11");
    // A job that has no children: a pipeline of one step, itself.
    await postEvent(t, runEvent({ job: { namespace: "spark", name: "nightly_compaction" }, inputs: [dataset("s3", "events")], outputs: [dataset("s3", "events_compacted")] }));
  });
  afterAll(() => t.close());

  test("macroGraph(job): the DAG's tasks are its steps, in the order they first started, fed by what their runs read", async () => {
    const res = await t.gql(`query($job: OpenLineageNameInput) { macroGraph(job: $job) { pipeline job { namespace name } steps
      nodes { key label column step } edges { from to kind role backward } } }`, { job: DAG });
    expect(res.errors).toBeUndefined();
    const graph = res.data!.macroGraph;
    expect(graph).toMatchObject({ pipeline: "airflow/warehouse.daily", job: DAG, steps: [1, 2, 3] });
    expect(graph.nodes.filter((n: { key: string }) => n.key.startsWith("step:")).map((n: { label: string; column: number }) => [n.label, n.column])).toEqual([
      ["warehouse.daily.extract", 1],
      ["warehouse.daily.transform", 3],
      ["warehouse.daily.load", 5],
    ]);
    expect(graph.edges.map((e: { from: string; to: string; kind: string; role: string }) => `${e.from} -> ${e.to} ${e.kind} ${e.role}`).sort()).toEqual(
      [
        "input:1:input -> step:1 USED input",
        "step:1 -> data:1:output WAS_GENERATED_BY output",
        "data:1:output -> step:2 USED input",
        "step:2 -> data:2:output WAS_GENERATED_BY output",
        "data:2:output -> step:3 USED input",
        "step:3 -> data:3:output WAS_GENERATED_BY output",
      ].sort(),
    );
  });

  test("microGraph(job): the latest DAG run's task runs at their steps, the dataset versions between them; runs: 2 adds the day before", async () => {
    const query = `query($job: OpenLineageNameInput, $runs: Int) { microGraph(job: $job, runs: $runs) { steps nodes { label column step } edges { kind backward } } }`;
    const latest = (await t.gql(query, { job: DAG })).data!.microGraph;
    expect(latest.steps).toEqual([1, 2, 3]);
    expect(latest.nodes.map((n: { label: string; column: number }) => `${n.column} ${n.label}`)).toEqual([
      "0 pg/source.orders",
      "1 warehouse.daily.extract",
      "2 pg/staging.orders_2026-03-11",
      "3 warehouse.daily.transform",
      "4 pg/clean.orders_2026-03-11",
      "5 warehouse.daily.load",
      "6 pg/warehouse.orders_2026-03-11",
    ].map((line) => line.replace(" pg/", " ")));
    expect(latest.edges.some((e: { backward: boolean }) => e.backward)).toBe(false);
    const both = (await t.gql(query, { job: DAG, runs: 2 })).data!.microGraph;
    expect(both.nodes.filter((n: { column: number }) => n.column === 1)).toHaveLength(2);
  });

  test("microGraph(job, upToStep: 0): the first frame shows what the first task reads", async () => {
    const res = await t.gql(`query($job: OpenLineageNameInput) { microGraph(job: $job, upToStep: 0) { steps nodes { label column } edges { from } } }`, { job: DAG });
    expect(res.data!.microGraph).toEqual({ steps: [], nodes: [{ label: "source.orders", column: 0 }], edges: [] });
  });

  test("a job without children is a pipeline of one step; an unknown job is NOT_FOUND; pipeline and job together are INVALID_ARGUMENT", async () => {
    const single = await t.gql(`{ microGraph(job: { namespace: "spark", name: "nightly_compaction" }) { steps nodes { label column } } }`);
    expect(single.data!.microGraph).toEqual({ steps: [1], nodes: [{ label: "events", column: 0 }, { label: "nightly_compaction", column: 1 }, { label: "events_compacted", column: 2 }] });
    const unknown = await t.gql(`{ macroGraph(job: { namespace: "spark", name: "nope" }) { steps } }`);
    expect(errorCodes(unknown)).toEqual(["NOT_FOUND"]);
    expect(unknown.errors![0].extensions).toMatchObject({ field: "job" });
    const both = await t.gql(`{ macroGraph(pipeline: "p", job: { namespace: "spark", name: "nope" }) { steps } }`);
    expect(errorCodes(both)).toEqual(["INVALID_ARGUMENT"]);
    const neither = await t.gql(`{ microGraph { steps } }`);
    expect(errorCodes(neither)).toEqual(["INVALID_ARGUMENT"]);
    const runs = await t.gql(`query($job: OpenLineageNameInput) { microGraph(job: $job, runs: 0) { steps } }`, { job: DAG });
    expect(runs.errors![0].extensions).toMatchObject({ code: "INVALID_ARGUMENT", field: "runs" });
  });

  test("layout: true gives every node a box in its column, left to right, and every edge a route from its source", async () => {
    for (const view of ["macroGraph", "microGraph"]) {
      const res = await t.gql(`query($job: OpenLineageNameInput) { g: ${view}(job: $job, layout: true) { width height nodes { key column x y width height } edges { from to points { x y } } } }`, { job: DAG });
      expect(res.errors).toBeUndefined();
      const graph = res.data!.g;
      const byKey = new Map(graph.nodes.map((n: any) => [n.key, n]));
      for (const node of graph.nodes) {
        expect(node.width).toBeGreaterThan(0);
        expect(node.x + node.width).toBeLessThanOrEqual(graph.width);
        expect(node.y + node.height).toBeLessThanOrEqual(graph.height);
      }
      // Columns left to right: every box of column c ends before any box of column c + 1 begins.
      for (const a of graph.nodes) for (const b of graph.nodes) if (a.column < b.column) expect(a.x + a.width).toBeLessThan(b.x);
      for (const edge of graph.edges) {
        const from: any = byKey.get(edge.from);
        expect(edge.points.length).toBeGreaterThanOrEqual(2);
        expect(edge.points[0].x).toBeGreaterThanOrEqual(from.x);
        expect(edge.points[0].x).toBeLessThanOrEqual(from.x + from.width);
      }
    }
    const plain = await t.gql(`query($job: OpenLineageNameInput) { macroGraph(job: $job) { width nodes { x } edges { points { x } } } }`, { job: DAG });
    expect(plain.data!.macroGraph.width).toBeNull();
    expect(plain.data!.macroGraph.nodes.every((n: { x: number | null }) => n.x === null)).toBe(true);
  });
});

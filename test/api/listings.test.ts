import { encodeCursor } from "../../src/services/pagination";
import { dataset, postEvent, runEvent } from "../support/openlineage";
import { draft, generator, recordOk, registerOperation, transform } from "../support/recording";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/** The listings a user interface pages through: what each lists, in what order, filtered how, paged how. */

async function query(t: TestApp, document: string, variables: Record<string, unknown> = {}) {
  const res = await t.gql(document, variables);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data!;
}

/** Every node of a connection, `first` at a time, checking each is seen once. */
async function pageAll(t: TestApp, field: string, args: string, selection: string, first: number): Promise<unknown[]> {
  const seen: unknown[] = [];
  let after: string | null = null;
  for (;;) {
    const data: any = await query(t, `query($after: String) { ${field}(${args}${args ? ", " : ""}first: ${first}, after: $after) { edges { cursor node { ${selection} } } pageInfo { hasNextPage endCursor } } }`, { after });
    seen.push(...data[field].edges.map((e: any) => e.node));
    if (!data[field].pageInfo.hasNextPage) return seen;
    after = data[field].pageInfo.endCursor;
  }
}

describe("listings", () => {
  let t: TestApp;
  // OpenLineage runs recorded in this order; their UUIDs sort the other way round.
  const olRuns = ["ffffffff-0000-4000-8000-000000000001", "88888888-0000-4000-8000-000000000002", "11111111-0000-4000-8000-000000000003"];

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    const at = (n: number) => `2026-03-0${n}T10:00:00.000Z`;
    const events = [
      runEvent({ runId: olRuns[0], eventType: "START", eventTime: at(3), job: { namespace: "airflow", name: "load_orders" }, outputs: [dataset("pg://db", "shop.orders"), dataset("pg://db", "Shop.Customers")] }),
      runEvent({ runId: olRuns[1], eventType: "FAIL", eventTime: at(1), job: { namespace: "airflow", name: "load_orders" }, outputs: [dataset("pg://db", "audit.log")] }),
      runEvent({ runId: olRuns[2], eventType: "COMPLETE", eventTime: at(2), job: { namespace: "dbt", name: "build_marts" }, outputs: [dataset("pg://db/replica", "shop.orders"), dataset("s3://lake", "raw/events")] }),
    ];
    for (const event of events) expect((await postEvent(t, event)).status).toBe(201);
    await recordOk(t, { operation: "generate", operationVersion: "1", pipeline: "nightly", step: 1, inputs: [], outputs: [{ role: "sample", artifacts: ["b_second.csv", "a_first.csv"].map(draft) }] });
    const first = await recordOk(t, { operation: "generate", operationVersion: "1", pipeline: "nightly", step: 1, inputs: [], outputs: [{ role: "sample", artifacts: [draft("c_third.csv")] }] });
    await recordOk(t, { operation: "transform", operationVersion: "1", pipeline: "nightly", step: 2, inputs: [{ role: "data", artifactIds: [first.outputIds["c_third.csv"]] }], outputs: [{ role: "result", artifacts: [draft("c_third_clean.csv")] }] });
  });
  afterAll(() => t.close());

  test("namespaces, with their datasets and jobs counted; prefix; paging", async () => {
    const all = await pageAll(t, "namespaces", "", "name datasetCount jobCount", 2);
    expect(all).toEqual([
      { name: "airflow", datasetCount: 0, jobCount: 1 },
      { name: "dbt", datasetCount: 0, jobCount: 1 },
      { name: "pg://db", datasetCount: 3, jobCount: 0 },
      { name: "pg://db/replica", datasetCount: 1, jobCount: 0 },
      { name: "s3://lake", datasetCount: 1, jobCount: 0 },
    ]);
    expect((await query(t, `{ namespaces(prefix: "pg://") { edges { node { name } } } }`)).namespaces.edges.map((e: any) => e.node.name)).toEqual(["pg://db", "pg://db/replica"]);
  });

  test("the datasets of a namespace, by name with case ignored; not another namespace's that share the start", async () => {
    expect(await pageAll(t, "datasets", `namespace: "pg://db"`, "namespace name version", 1)).toEqual([
      { namespace: "pg://db", name: "audit.log", version: null },
      { namespace: "pg://db", name: "shop.orders", version: null },
      { namespace: "pg://db", name: "Shop.Customers", version: null },
    ].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1)));
    expect((await query(t, `{ datasets(namespace: "pg://db", prefix: "SHOP.") { edges { node { name latestVersion { id } } } } }`)).datasets.edges.map((e: any) => e.node.name)).toEqual(["Shop.Customers", "shop.orders"]);
  });

  test("jobs: registered operations and OpenLineage jobs, by name, with their latest run, its status and their run count", async () => {
    const jobs = await pageAll(t, "jobs", "", "id kind namespace name version runCount lastStatus lastRun { runId }", 2);
    expect(jobs).toEqual([
      { id: "job:dbt/build_marts", kind: "OPENLINEAGE", namespace: "dbt", name: "build_marts", version: null, runCount: 1, lastStatus: "COMPLETED", lastRun: { runId: `run_${olRuns[2]}` } },
      { id: expect.stringMatching(/^op_/), kind: "OPERATION", namespace: null, name: "generate", version: "1", runCount: 2, lastStatus: "COMPLETED", lastRun: { runId: expect.stringMatching(/^run_/) } },
      { id: "job:airflow/load_orders", kind: "OPENLINEAGE", namespace: "airflow", name: "load_orders", version: null, runCount: 2, lastStatus: "FAILED", lastRun: { runId: `run_${olRuns[1]}` } },
      { id: expect.stringMatching(/^op_/), kind: "OPERATION", namespace: null, name: "transform", version: "1", runCount: 1, lastStatus: "COMPLETED", lastRun: { runId: expect.stringMatching(/^run_/) } },
    ]);
    expect((await query(t, `{ jobs(namespace: "airflow") { edges { node { name } } } }`)).jobs.edges).toEqual([{ node: { name: "load_orders" } }]);
    expect((await query(t, `{ jobs(prefix: "LOAD") { edges { node { name } } } }`)).jobs.edges).toEqual([{ node: { name: "load_orders" } }]);
  });

  test("pipelines, with their step count and latest run", async () => {
    const res = await query(t, `{ pipelines { edges { node { name stepCount lastStatus lastRun { step operation { name } } } } } }`);
    expect(res.pipelines.edges).toEqual([{ node: { name: "nightly", stepCount: 2, lastStatus: "COMPLETED", lastRun: { step: 2, operation: { name: "transform" } } } }]);
  });

  test("artifacts, newest first; by type and by name prefix; each once when paged", async () => {
    const names = (await pageAll(t, "artifacts", "", "originalName", 2)).map((a: any) => a.originalName);
    // One recording's outputs in the order they were stored (by id); recordings newest first.
    expect(names.slice(0, 2)).toEqual(["c_third_clean.csv", "c_third.csv"]);
    expect(names.slice(2).sort()).toEqual(["a_first.csv", "b_second.csv"]);
    expect((await query(t, `{ artifacts(namePrefix: "C_THIRD") { edges { node { originalName } } } }`)).artifacts.edges.map((e: any) => e.node.originalName)).toEqual(["c_third_clean.csv", "c_third.csv"]);
    expect((await query(t, `{ artifacts(artifactType: "csv", first: 1) { edges { node { originalName } } } }`)).artifacts.edges).toEqual([{ node: { originalName: "c_third_clean.csv" } }]);
    expect((await query(t, `{ artifacts(artifactType: "parquet") { edges { node { id } } } }`)).artifacts.edges).toEqual([]);
  });

  test("executions are ordered by when they were recorded, OpenLineage runs too (not by their UUIDs)", async () => {
    const runs = (await pageAll(t, "executions", `filter: { namespace: "airflow" }`, "runId", 1)) as { runId: string }[];
    expect(runs.map((r) => r.runId)).toEqual([`run_${olRuns[1]}`, `run_${olRuns[0]}`]);
    const all = ((await pageAll(t, "executions", "", "runId recordedAt", 3)) as { runId: string; recordedAt: string }[]).map((r) => r.recordedAt);
    expect(all).toEqual([...all].sort().reverse());
    expect(all).toHaveLength(6);
  });

  test("executions by when they started, not started last; filters by time range, status, job and namespace", async () => {
    const byStart = (await query(t, `{ executions(orderBy: STARTED_AT, filter: { namespace: "airflow" }) { edges { node { runId startedAt } } } }`)).executions.edges.map((e: any) => e.node);
    expect(byStart).toEqual([
      { runId: `run_${olRuns[0]}`, startedAt: "2026-03-03T10:00:00.000Z" },
      { runId: `run_${olRuns[1]}`, startedAt: null },
    ]);
    const ids = async (filter: string) => (await query(t, `{ executions(filter: { ${filter} }) { edges { node { runId } } } }`)).executions.edges.map((e: any) => e.node.runId);
    expect(await ids(`job: "load_orders", status: FAILED`)).toEqual([`run_${olRuns[1]}`]);
    expect(await ids(`startedAfter: "2026-03-02T00:00:00Z", startedBefore: "2026-03-04T00:00:00Z"`)).toEqual([`run_${olRuns[0]}`]);
    const recorded = (await query(t, `{ executions(filter: { namespace: "dbt" }) { edges { node { recordedAt } } } }`)).executions.edges[0].node.recordedAt;
    expect(await ids(`recordedAfter: "${recorded}", namespace: "dbt"`)).toEqual([`run_${olRuns[2]}`]);
    expect(await ids(`recordedBefore: "${recorded}", namespace: "dbt"`)).toEqual([]);
    // An empty name is a name (none holds it), as a live feed's filter reads it, not "any pipeline".
    expect((await ids(`pipeline: "nightly"`)).length).toBe(3);
    expect(await ids(`pipeline: ""`)).toEqual([]);
    expect(await ids(`job: ""`)).toEqual([]);
    expect(await ids(`namespace: ""`)).toEqual([]);
  });

  test("an executions cursor made before the order changed keeps its meaning: after that execution", async () => {
    const all = (await query(t, `{ executions(first: 10) { edges { node { runId } } } }`)).executions.edges.map((e: any) => e.node.runId);
    const older = encodeCursor("executions", all[2]);
    const res = await query(t, `query($after: String) { executions(first: 10, after: $after) { edges { node { runId } } } }`, { after: older });
    expect(res.executions.edges.map((e: any) => e.node.runId)).toEqual(all.slice(3));
    // A STARTED_AT cursor is a place in that order only.
    const started = (await query(t, `{ executions(first: 1, orderBy: STARTED_AT) { pageInfo { endCursor } } }`)).executions.pageInfo.endCursor;
    expect(errorCodes(await t.gql(`query($after: String) { executions(after: $after) { edges { cursor } } }`, { after: started }))).toEqual(["INVALID_CURSOR"]);
  });

  test("totalCount: how many a listing lists in all under its filter, whatever the page asked for", async () => {
    const listings: [string, string, string][] = [
      ["namespaces", "", "name"],
      ["namespaces", 'prefix: "pg://"', "name"],
      ["datasets", 'namespace: "pg://db"', "name"],
      ["datasets", 'namespace: "pg://db", prefix: "shop."', "name"],
      ["datasets", 'namespace: "nowhere"', "name"],
      ["jobs", "", "name"],
      ["jobs", 'namespace: "airflow"', "name"],
      ["pipelines", "", "name"],
      ["artifacts", "", "id"],
      ["artifacts", 'namePrefix: "c_"', "id"],
      ["artifacts", 'artifactType: "parquet"', "id"],
      ["executions", "", "runId"],
      ["executions", 'filter: { namespace: "airflow" }', "runId"],
      ["executions", 'orderBy: STARTED_AT, filter: { job: "load_orders", status: FAILED }', "runId"],
      ["executions", 'filter: { startedAfter: "2026-03-02T00:00:00Z", startedBefore: "2026-03-04T00:00:00Z" }', "runId"],
    ];
    for (const [field, args, selection] of listings) {
      const all = await pageAll(t, field, args, selection, 2);
      for (const page of ["first: 1", "last: 1", "first: 500"]) {
        const data: any = await query(t, `{ ${field}(${args}${args ? ", " : ""}${page}) { totalCount edges { cursor } } }`);
        expect([field, args, page, data[field].totalCount]).toEqual([field, args, page, all.length]);
      }
    }
    // Counted only when asked: a page without it runs no count.
    const before = t.app.database.statementCount();
    await query(t, `{ artifacts(first: 1) { edges { cursor } } }`);
    const without = t.app.database.statementCount() - before;
    const counted = t.app.database.statementCount();
    await query(t, `{ artifacts(first: 1) { totalCount edges { cursor } } }`);
    expect(t.app.database.statementCount() - counted).toBe(without + 1);
  });

  test("bad arguments are typed errors", async () => {
    expect(errorCodes(await t.gql(`{ jobs(first: 501) { edges { cursor } } }`))).toEqual(["PAGE_SIZE"]);
    expect(errorCodes(await t.gql(`{ datasets(namespace: "pg://db", after: "bm9wZQ") { edges { cursor } } }`))).toEqual(["INVALID_CURSOR"]);
    expect(errorCodes(await t.gql(`query($after: String) { executions(after: $after) { edges { cursor } } }`, { after: encodeCursor("executions", "run_00000000-0000-4000-8000-000000000000") }))).toEqual(["INVALID_CURSOR"]);
  });
});

describe("listings' totalCount past its cap", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    const names = Array.from({ length: 1_001 }, (_, i) => `many_${String(i).padStart(4, "0")}.csv`);
    await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: names.map(draft) }] });
    // 1,001 OpenLineage runs of one job, started a second apart, in one batch.
    const runs = Array.from({ length: 1_001 }, (_, i) => runEvent({ eventType: "START", eventTime: new Date(Date.UTC(2026, 3, 1, 0, 0, i)).toISOString(), job: { namespace: "many", name: "tick" } }));
    const response = await t.app.yoga.fetch("http://provgraph.test/api/v1/lineage/batch", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(runs) });
    expect([response.status, (await response.json()).stored]).toEqual([200, 1_001]);
  }, 60_000);
  afterAll(() => t.close());

  test("counted up to 1,000, null above", async () => {
    const count = async (namePrefix: string) => (await query(t, `query($p: String) { artifacts(namePrefix: $p, first: 1) { totalCount } }`, { p: namePrefix })).artifacts.totalCount;
    expect(await count("many_")).toBeNull(); // 1,001
    expect(await count("many_0")).toBe(1_000); // many_0000 … many_0999: at the cap, counted
    expect(await count("MANY_1")).toBe(1); // many_1000
    const executions = async (filter: string) => (await query(t, `{ executions(first: 1, filter: { ${filter} }) { totalCount } }`)).executions.totalCount;
    expect(await executions(`namespace: "many"`)).toBeNull();
    expect(await executions(`namespace: "many", startedBefore: "${new Date(Date.UTC(2026, 3, 1, 0, 0, 1_000)).toISOString()}"`)).toBe(1_000);
    expect(await executions(`namespace: "many", status: COMPLETED`)).toBe(0);
  });
});

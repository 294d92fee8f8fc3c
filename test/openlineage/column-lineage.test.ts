import { randomUUID } from "node:crypto";
import { datasetArtifactId } from "../../src/openlineage";
import { dataset, postEvent, PRODUCER, runEvent } from "../support/openlineage";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * The seed's example event ("The provenance model and column-level lineage"), verbatim except for
 * what the 2-0-2 schemas require and the excerpt leaves out: `producer`, the parent facet's
 * `run.runId` (a parent facet has a run and a job) and, below, each input field's `namespace`.
 */
const SEED_EVENT = {
  eventType: "COMPLETE",
  eventTime: "2026-03-11T02:14:07.318Z",
  producer: PRODUCER,
  run: {
    runId: "b1f0c2de-8a41-4f6b-9d55-0c9a7e2f4411",
    facets: {
      parent: { run: { runId: "0d6c5b2e-1a41-4f6b-9d55-0c9a7e2f4400" }, job: { namespace: "risk", name: "daily_exposure" } },
      codeVersion: { gitSha: "9f2c1ab", image: "sha256:4d7e0b31...9c1" },
    },
  },
  job: { namespace: "risk", name: "risk.build_exposure_daily" },
  inputs: [
    { namespace: "delta://lake", name: "core.positions", facets: { version: { datasetVersion: "4217" } } },
    { namespace: "delta://lake", name: "ref.fx_rates", facets: { version: { datasetVersion: "88" } } },
  ],
  outputs: [
    {
      namespace: "delta://lake",
      name: "risk.exposure_daily",
      facets: {
        columnLineage: {
          fields: {
            exposure_eur: {
              inputFields: [
                { name: "core.positions", field: "notional", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION", masking: false }] },
                { name: "ref.fx_rates", field: "rate", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION", masking: false }] },
                { name: "core.positions", field: "book_id", transformations: [{ type: "INDIRECT", subtype: "GROUP_BY", masking: false }] },
              ],
            },
          },
        },
      },
    },
  ],
};

const EDGE = `source { field artifact { dataset { namespace name version } } } target { field artifact { dataset { name version } } } type subtype masking description datasetWide runId`;
const COLUMN_LINEAGE = `query($namespace: String!, $name: String!, $field: String!, $direction: LineageDirection, $types: [ColumnEdgeType!], $maxDepth: Int, $version: String) {
  columnLineage(namespace: $namespace, name: $name, field: $field, direction: $direction, types: $types, maxDepth: $maxDepth, version: $version) {
    root { field artifact { dataset { name } } } truncated
    nodes { field depth artifact { dataset { name } } }
    edges { ${EDGE} } } }`;

describe("column lineage", () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const lineage = async (variables: Record<string, unknown>) => {
    const res = await t.gql(COLUMN_LINEAGE, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!.columnLineage;
  };
  const post = async (event: Record<string, unknown>) => {
    const answer = await postEvent(t, event);
    if (answer.status !== 201) throw new Error(`${answer.status} ${answer.text}`);
  };

  it("the seed's example round-trips: exposure_eur comes from notional and rate (DIRECT) and book_id (INDIRECT GROUP_BY), exactly", async () => {
    // The excerpt's input fields name no namespace; the facet schema requires one: the event's own datasets' namespace is filled in.
    const event = structuredClone(SEED_EVENT) as any;
    for (const input of event.outputs[0].facets.columnLineage.fields.exposure_eur.inputFields) input.namespace = "delta://lake";
    await post(event);
    const result = await lineage({ namespace: "delta://lake", name: "risk.exposure_daily", field: "exposure_eur" });
    const runId = "run_b1f0c2de-8a41-4f6b-9d55-0c9a7e2f4411";
    const source = (name: string, version: string, field: string) => ({ field, artifact: { dataset: { namespace: "delta://lake", name, version } } });
    const target = { field: "exposure_eur", artifact: { dataset: { name: "risk.exposure_daily", version: runId } } };
    expect(result).toEqual({
      root: { field: "exposure_eur", artifact: { dataset: { name: "risk.exposure_daily" } } },
      truncated: false,
      // By depth, then artifact id, then field.
      nodes: [
        [datasetArtifactId({ namespace: "delta://lake", name: "core.positions", version: "4217" }), "core.positions", "book_id"],
        [datasetArtifactId({ namespace: "delta://lake", name: "core.positions", version: "4217" }), "core.positions", "notional"],
        [datasetArtifactId({ namespace: "delta://lake", name: "ref.fx_rates", version: "88" }), "ref.fx_rates", "rate"],
      ]
        .sort(([a, , f], [b, , g]) => (a < b ? -1 : a > b ? 1 : f < g ? -1 : 1))
        .map(([, name, field]) => ({ field, depth: 1, artifact: { dataset: { name } } })),
      edges: [
        { source: source("core.positions", "4217", "notional"), target, type: "DIRECT", subtype: "TRANSFORMATION", masking: false, description: null, datasetWide: false, runId },
        { source: source("ref.fx_rates", "88", "rate"), target, type: "DIRECT", subtype: "TRANSFORMATION", masking: false, description: null, datasetWide: false, runId },
        { source: source("core.positions", "4217", "book_id"), target, type: "INDIRECT", subtype: "GROUP_BY", masking: false, description: null, datasetWide: false, runId },
      ],
    });
    // Only what reached the output: DIRECT.
    const direct = await lineage({ namespace: "delta://lake", name: "risk.exposure_daily", field: "exposure_eur", types: ["DIRECT"] });
    expect(direct.edges.map((e: any) => e.source.field)).toEqual(["notional", "rate"]);
    // And the other way: where book_id went.
    const downstream = await lineage({ namespace: "delta://lake", name: "core.positions", field: "book_id", direction: "DOWNSTREAM" });
    expect(downstream.nodes).toEqual([{ field: "exposure_eur", depth: 1, artifact: { dataset: { name: "risk.exposure_daily" } } }]);
    // The replay pins of the run, from the seed's codeVersion facet.
    const pins = await t.gql(`{ execution(runId: "b1f0c2de-8a41-4f6b-9d55-0c9a7e2f4411") { pins { codeVersion imageDigest } parent { runId } } }`);
    expect(pins.data!.execution).toEqual({ pins: { codeVersion: "9f2c1ab", imageDigest: "sha256:4d7e0b31...9c1" }, parent: { runId: "run_0d6c5b2e-1a41-4f6b-9d55-0c9a7e2f4400" } });
  });

  /** raw.events → (clean) staging.events → (aggregate) marts.daily, with a dataset-wide filter in between. */
  async function pipeline(ns: string) {
    const clean = runEvent({
      runId: randomUUID(),
      job: { namespace: ns, name: "clean" },
      inputs: [dataset(ns, "raw.events", { schema: { fields: [{ name: "id" }, { name: "amount" }, { name: "country" }, { name: "deleted" }] } })],
      outputs: [
        dataset(ns, "staging.events", {
          schema: { fields: [{ name: "id" }, { name: "amount_eur" }, { name: "country" }] },
          columnLineage: {
            fields: {
              id: { inputFields: [{ namespace: ns, name: "raw.events", field: "id", transformations: [{ type: "DIRECT", subtype: "IDENTITY" }] }] },
              amount_eur: { inputFields: [{ namespace: ns, name: "raw.events", field: "amount", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION", description: "amount * rate" }] }] },
              country: { inputFields: [{ namespace: ns, name: "raw.events", field: "country", transformations: [{ type: "DIRECT", subtype: "IDENTITY", masking: false }] }] },
            },
            dataset: [{ namespace: ns, name: "raw.events", field: "deleted", transformations: [{ type: "INDIRECT", subtype: "FILTER" }] }],
          },
        }),
      ],
    });
    await post(clean);
    const aggregate = runEvent({
      runId: randomUUID(),
      job: { namespace: ns, name: "aggregate" },
      inputs: [dataset(ns, "staging.events")],
      outputs: [
        dataset(ns, "marts.daily", {
          schema: { fields: [{ name: "country" }, { name: "total" }] },
          columnLineage: {
            fields: {
              country: { inputFields: [{ namespace: ns, name: "staging.events", field: "country", transformations: [{ type: "DIRECT", subtype: "IDENTITY" }] }] },
              total: {
                inputFields: [
                  { namespace: ns, name: "staging.events", field: "amount_eur", transformations: [{ type: "DIRECT", subtype: "AGGREGATION", masking: false }] },
                  { namespace: ns, name: "staging.events", field: "country", transformations: [{ type: "INDIRECT", subtype: "GROUP_BY" }] },
                ],
              },
            },
          },
        }),
      ],
    });
    await post(aggregate);
    return { clean: clean.run.runId, aggregate: aggregate.run.runId };
  }

  it("walks transitively across runs, through dataset-wide dependencies, by depth, and answers maxDepth", async () => {
    await pipeline("chain");
    const total = await lineage({ namespace: "chain", name: "marts.daily", field: "total" });
    expect(total.nodes.map((n: any) => [n.artifact.dataset.name, n.field, n.depth])).toEqual([
      ["staging.events", "amount_eur", 1],
      ["staging.events", "country", 1],
      ...[
        ["raw.events", "amount", 2],
        ["raw.events", "country", 2],
        ["raw.events", "deleted", 2],
      ],
    ]);
    const deleted = total.edges.find((e: any) => e.source.field === "deleted");
    expect(deleted).toEqual(expect.objectContaining({ type: "INDIRECT", subtype: "FILTER", datasetWide: true, target: { field: null, artifact: { dataset: expect.objectContaining({ name: "staging.events" }) } } }));
    const oneHop = await lineage({ namespace: "chain", name: "marts.daily", field: "total", maxDepth: 1 });
    expect(oneHop.nodes.map((n: any) => n.field)).toEqual(["amount_eur", "country"]);
    // Downstream from the filter column: the whole staging version (dataset-wide), then everything derived from it.
    const down = await lineage({ namespace: "chain", name: "raw.events", field: "deleted", direction: "DOWNSTREAM" });
    expect(down.nodes.map((n: any) => [n.artifact.dataset.name, n.field, n.depth])).toEqual([
      ["staging.events", null, 1],
      ["marts.daily", "country", 2],
      ["marts.daily", "total", 2],
    ]);
  });

  it("columns of a dataset version carry their one-hop upstream and downstream edges", async () => {
    await pipeline("hops");
    const res = await t.gql(`{ dataset(namespace: "hops", name: "staging.events") { latestVersion { columns { field position upstream { source { field } type datasetWide } downstream { target { field } type subtype } } } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data!.dataset.latestVersion.columns).toEqual([
      { field: "id", position: 0, upstream: [{ source: { field: "id" }, type: "DIRECT", datasetWide: false }, { source: { field: "deleted" }, type: "INDIRECT", datasetWide: true }], downstream: [] },
      {
        field: "amount_eur",
        position: 1,
        upstream: [{ source: { field: "amount" }, type: "DIRECT", datasetWide: false }, { source: { field: "deleted" }, type: "INDIRECT", datasetWide: true }],
        downstream: [{ target: { field: "total" }, type: "DIRECT", subtype: "AGGREGATION" }],
      },
      {
        field: "country",
        position: 2,
        upstream: [{ source: { field: "country" }, type: "DIRECT", datasetWide: false }, { source: { field: "deleted" }, type: "INDIRECT", datasetWide: true }],
        downstream: [
          { target: { field: "country" }, type: "DIRECT", subtype: "IDENTITY" },
          { target: { field: "total" }, type: "INDIRECT", subtype: "GROUP_BY" },
        ],
      },
    ]);
  });

  it("a cycle of column edges terminates (a table rewritten from itself)", async () => {
    // v1 → v2 (version facets), then v2 → v1 again: the same artifacts, a cycle in the column graph.
    const step = (from: string, to: string) =>
      runEvent({
        job: { namespace: "cycle", name: `rewrite_${from}_${to}` },
        inputs: [dataset("cycle", "t", { version: { datasetVersion: from } })],
        outputs: [dataset("cycle", "t", { version: { datasetVersion: to }, columnLineage: { fields: { x: { inputFields: [{ namespace: "cycle", name: "t", field: "x", transformations: [{ type: "DIRECT" }] }] } } } })],
      });
    await post(step("1", "2"));
    await post(step("2", "1"));
    const result = await lineage({ namespace: "cycle", name: "t", version: "2", field: "x" });
    expect(result.nodes.map((n: any) => [n.field, n.depth])).toEqual([["x", 1]]);
    expect(result.edges).toHaveLength(2);
  });

  it("unknown datasets, versions and fields are NOT_FOUND, naming the argument", async () => {
    await pipeline("errors");
    const codes = async (variables: Record<string, unknown>) => (await t.gql(COLUMN_LINEAGE, variables)).errors!.map((e) => [e.extensions?.code, e.extensions?.field]);
    expect(await codes({ namespace: "errors", name: "nope", field: "x" })).toEqual([["NOT_FOUND", "name"]]);
    expect(await codes({ namespace: "errors", name: "marts.daily", version: "nope", field: "total" })).toEqual([["NOT_FOUND", "version"]]);
    expect(await codes({ namespace: "errors", name: "marts.daily", field: "nope" })).toEqual([["NOT_FOUND", "field"]]);
    expect(await codes({ namespace: "errors", name: "marts.daily", field: "total", maxDepth: -1 })).toEqual([["INVALID_ARGUMENT", "maxDepth"]]);
    expect(await codes({ namespace: "errors", name: "marts.daily", field: "total", types: [] })).toEqual([["INVALID_ARGUMENT", "types"]]);
  });

  it("exports column lineage as PROV-JSON: columns as members of their version, edges as wasDerivedFrom with run and type", async () => {
    const runs = await pipeline("prov");
    const res = await t.gql(`{ columnLineage(namespace: "prov", name: "marts.daily", field: "total", maxDepth: 1) { provJson } }`);
    expect(res.errors).toBeUndefined();
    const doc = res.data!.columnLineage.provJson;
    const marts = datasetArtifactId({ namespace: "prov", name: "marts.daily", version: `run_${runs.aggregate}` });
    const staging = datasetArtifactId({ namespace: "prov", name: "staging.events", version: `run_${runs.clean}` });
    expect(Object.keys(doc.entity).sort()).toEqual(
      [`provgraph:${marts}`, `provgraph:${marts}/col_total`, `provgraph:${staging}`, `provgraph:${staging}/col_amount_eur`, `provgraph:${staging}/col_country`].sort(),
    );
    expect(doc.entity[`provgraph:${marts}/col_total`]).toEqual({ "prov:label": "marts.daily.total", "provgraph:field": "total", "provgraph:columnOf": `provgraph:${marts}`, "provgraph:depth": 0, "provgraph:closureRoot": true, "provgraph:closureDirection": "UPSTREAM" });
    expect(Object.values(doc.wasDerivedFrom)).toEqual([
      { "prov:generatedEntity": `provgraph:${marts}/col_total`, "prov:usedEntity": `provgraph:${staging}/col_amount_eur`, "prov:activity": `provgraph:run_${runs.aggregate}`, "provgraph:type": "DIRECT", "provgraph:subtype": "AGGREGATION", "provgraph:masking": false },
      { "prov:generatedEntity": `provgraph:${marts}/col_total`, "prov:usedEntity": `provgraph:${staging}/col_country`, "prov:activity": `provgraph:run_${runs.aggregate}`, "provgraph:type": "INDIRECT", "provgraph:subtype": "GROUP_BY", "provgraph:masking": false },
    ]);
    expect(Object.values(doc.hadMember)).toHaveLength(3);
    expect(doc.activity[`provgraph:run_${runs.aggregate}`]).toEqual(expect.objectContaining({ "prov:label": "aggregate@openlineage:prov", "provgraph:status": "COMPLETED" }));
  });
});

describe("column lineage around a wide fan-out", () => {
  const FAN = 20_000;
  let t: TestApp;
  // A budget far above what the walk takes (well under a second), far below what it took when a column's edges were gathered quadratically (26 s).
  beforeAll(async () => (t = await createTestApp({ env: { QUERY_BUDGET_MS: "8000" } })), 60_000);
  afterAll(() => t.close());

  it(`a column feeding ${FAN.toLocaleString("en-US")} columns is walked downstream within the budget, its first page answered`, async () => {
    const fields = Object.fromEntries(Array.from({ length: FAN }, (_, i) => [`c_${i}`, { inputFields: [{ namespace: "wide", name: "wide_in", field: "id" }] }]));
    const answer = await postEvent(t, runEvent({ inputs: [dataset("wide", "wide_in")], outputs: [dataset("wide", "wide_out", { columnLineage: { _producer: PRODUCER, _schemaURL: "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet", fields } })] }));
    expect(answer.status).toBe(201);
    // With the table's statistics, as autovacuum gathers them sooner or later: every edge has the same source, and
    // PostgreSQL planned each node's lookup as a scan of the whole table (20,000 of them) until its migration
    // 20261204150000_edge_lookup_statistics.
    await t.app.database.prisma.$executeRawUnsafe('ANALYZE "ColumnEdge"');
    const res = await t.gql(`{ columnLineage(namespace: "wide", name: "wide_in", field: "id", direction: DOWNSTREAM, first: 100) { truncated nodes { field depth } } }`);
    expect(res.errors).toBeUndefined();
    const { truncated, nodes } = res.data!.columnLineage;
    expect(truncated).toBe(true);
    expect(nodes).toHaveLength(100);
    expect(nodes.every((n: { depth: number }) => n.depth === 1)).toBe(true);
    // Sorted by field: c_0, c_1, c_10, c_100, …
    expect(nodes.slice(0, 4).map((n: { field: string }) => n.field)).toEqual(["c_0", "c_1", "c_10", "c_100"]);
  }, 120_000);
});

describe("lineage coverage", () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const COVERAGE = `query($namespace: String!) { lineageCoverage(namespace: $namespace) {
    outputColumns resolvedColumns share threshold fitForImpactAnalysis unresolvedCount truncated
    outputVersions { dataset { name } }
    unresolved { field reason artifact { dataset { name } } }
    opaqueNodes { columns run { operation { name } } artifact { dataset { name } } } } }`;
  const coverage = async (namespace: string) => {
    const res = await t.gql(COVERAGE, { namespace });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!.lineageCoverage;
  };
  const post = async (event: Record<string, unknown>) => expect((await postEvent(t, event)).status).toBe(201);
  const lineageOf = (ns: string, from: string, fields: Record<string, string>) => ({
    fields: Object.fromEntries(Object.entries(fields).map(([to, source]) => [to, { inputFields: [{ namespace: ns, name: from, field: source, transformations: [{ type: "DIRECT" }] }] }])),
  });

  it("every output column resolves to a source column: share 1, fit for impact analysis", async () => {
    await post(
      runEvent({
        job: { namespace: "full", name: "copy" },
        inputs: [dataset("full", "src", { schema: { fields: [{ name: "a" }, { name: "b" }] } })],
        outputs: [dataset("full", "dst", { schema: { fields: [{ name: "a" }, { name: "b" }] }, columnLineage: lineageOf("full", "src", { a: "a", b: "b" }) })],
      }),
    );
    expect(await coverage("full")).toEqual({
      outputColumns: 2,
      resolvedColumns: 2,
      share: 1,
      threshold: 0.9,
      fitForImpactAnalysis: true,
      unresolvedCount: 0,
      truncated: false,
      outputVersions: [{ dataset: { name: "dst" } }],
      unresolved: [],
      opaqueNodes: [],
    });
  });

  it("an opaque run (no column lineage) is marked, its columns and everything derived from them unresolved; below 90% is not fit", async () => {
    // src → (opaque udf) → mid → (copy with lineage) → mart, and src → (copy) → side: 2 of 6 output columns resolve.
    await post(runEvent({ job: { namespace: "gaps", name: "udf" }, inputs: [dataset("gaps", "src", { schema: { fields: [{ name: "a" }, { name: "b" }] } })], outputs: [dataset("gaps", "mid", { schema: { fields: [{ name: "a" }, { name: "b" }] } })] }));
    await post(runEvent({ job: { namespace: "gaps", name: "copy" }, inputs: [dataset("gaps", "mid")], outputs: [dataset("gaps", "mart", { schema: { fields: [{ name: "a" }, { name: "b" }] }, columnLineage: lineageOf("gaps", "mid", { a: "a", b: "b" }) })] }));
    await post(runEvent({ job: { namespace: "gaps", name: "side" }, inputs: [dataset("gaps", "src")], outputs: [dataset("gaps", "side", { schema: { fields: [{ name: "a" }, { name: "b" }] }, columnLineage: lineageOf("gaps", "src", { a: "a", b: "b" }) })] }));
    const result = await coverage("gaps");
    expect(result).toEqual(
      expect.objectContaining({ outputColumns: 6, resolvedColumns: 2, share: 2 / 6, fitForImpactAnalysis: false, unresolvedCount: 4, truncated: false }),
    );
    expect(result.outputVersions.map((v: any) => v.dataset.name).sort()).toEqual(["mart", "mid", "side"]);
    expect(result.unresolved.map((c: any) => [c.artifact.dataset.name, c.field, c.reason]).sort()).toEqual([
      ["mart", "a", "UPSTREAM_UNRESOLVED"],
      ["mart", "b", "UPSTREAM_UNRESOLVED"],
      ["mid", "a", "NO_COLUMN_LINEAGE"],
      ["mid", "b", "NO_COLUMN_LINEAGE"],
    ]);
    expect(result.opaqueNodes).toEqual([{ columns: 2, run: { operation: { name: "udf" } }, artifact: { dataset: { name: "mid" } } }]);
  });

  it("a namespace with no output columns has no share and is not fit", async () => {
    expect(await coverage("empty")).toEqual(expect.objectContaining({ outputColumns: 0, share: null, fitForImpactAnalysis: false, outputVersions: [] }));
  });
});

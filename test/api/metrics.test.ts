import fs from "node:fs";
import path from "node:path";
import { operationLabel } from "../../src/metrics";
import { parse } from "graphql";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { runEvent } from "../support/openlineage";
import { createTestApp } from "../support/test-app";

/**
 * GET /metrics (Prometheus text), scraped after known traffic: the counters say exactly what was
 * sent; the route is off unless METRICS says otherwise, and with METRICS=token only a token with the
 * metrics (or admin) scope reads it.
 */
const TOUR = fs.readFileSync(path.join(__dirname, "..", "..", "README.md"), "utf8").match(/```graphql\n(mutation Record[\s\S]*?)```/)![1];

/** The samples of the exposition: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

describe("GET /metrics with METRICS=token", () => {
  let t: TokenTestApp;
  beforeAll(async () => {
    t = await createTokenTestApp({ env: { METRICS: "token" } });
  });
  afterAll(() => t.close());

  test("after traffic, the counters match what was sent: requests by operation and outcome, recordings, OpenLineage events, latency", async () => {
    expect((await t.gql(TOUR)).errors).toBeUndefined();
    // refused recordings: an unknown input (NOT_FOUND) and an output with no lineage (LINEAGE_COMPLETENESS, a typed result)
    const unknownInput = await t.gql(`mutation { recordExecution(input: { operation: "clean", operationVersion: "1", inputs: [{ role: "table", artifactIds: ["art_${"0".repeat(40)}"] }], outputs: [] }) { __typename } }`);
    expect(unknownInput.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    const noLineage = await t.gql(`mutation { recordExecution(input: { operation: "clean", operationVersion: "1", inputs: [{ role: "table", artifactIds: ["art_93288de15f89bede8a558de658cc1f7f42d3c0e1"] }], outputs: [{ role: "table", artifacts: [{ originalName: "unrelated.parquet", contentHash: "sha256:${"e".repeat(64)}" }] }] }) { __typename } }`);
    expect(noLineage.data?.recordExecution.__typename).toBe("LineageCompletenessError");
    for (let i = 0; i < 3; i++) expect((await t.gql(`{ lineage(artifactId: "art_9c6ec26e20ae3bb0a61d8d5a0905f3d570532266") { nodes { depth } } }`)).errors).toBeUndefined();
    // OpenLineage: 4 stored, 1 duplicate, 1 refused, through the batch route
    const events = [runEvent(), runEvent(), runEvent(), runEvent()];
    const batch = await t.send({ method: "POST", path: "/api/v1/lineage/batch", token: t.adminToken, headers: { "content-type": "application/json" }, body: JSON.stringify([...events, events[0], { ...runEvent(), eventType: "DONE" }]) });
    expect([batch.status, batch.json.stored, batch.json.duplicates, batch.json.refused]).toEqual([207, 4, 1, 1]);

    const scraper = await t.issue(["metrics"]);
    const scraped = await t.send({ method: "GET", path: "/metrics", token: scraper });
    expect([scraped.status, scraped.headers.get("content-type")]).toEqual([200, "text/plain; version=0.0.4; charset=utf-8"]);
    const metrics = samples(scraped.text);
    const value = (sample: string) => metrics.get(sample);
    expect({
      toured: value('provgraph_graphql_requests_total{type="mutation",operation="recordExecution+registerOperation",outcome="OK"}'),
      notFound: value('provgraph_graphql_requests_total{type="mutation",operation="recordExecution",outcome="NOT_FOUND"}'),
      typedRefusal: value('provgraph_graphql_requests_total{type="mutation",operation="recordExecution",outcome="OK"}'),
      lineage: value('provgraph_graphql_requests_total{type="query",operation="lineage",outcome="OK"}'),
      lineageTimed: value('provgraph_graphql_request_duration_seconds_count{type="query",operation="lineage",outcome="OK"}'),
      recorded: value('provgraph_recordings_total{kind="execution",outcome="RECORDED"}'),
      refusedNotFound: value('provgraph_recordings_total{kind="execution",outcome="NOT_FOUND"}'),
      refusedLineage: value('provgraph_recordings_total{kind="execution",outcome="LINEAGE_COMPLETENESS"}'),
      stored: value('provgraph_openlineage_events_total{status="STORED",code=""}'),
      duplicates: value('provgraph_openlineage_events_total{status="DUPLICATE",code=""}'),
      refusedEvents: value('provgraph_openlineage_events_total{status="REFUSED",code="INVALID_EVENT"}'),
      subscribers: value("provgraph_feed_subscribers"),
      queued: value("provgraph_heavy_work_queued"),
    }).toEqual({
      // the fields, not their aliases (ingest:, cleaned:, …): labels stay as few as the schema's fields
      toured: 1,
      notFound: 1,
      // a typed lineage error is a result, not a GraphQL error: the request is OK, the recording refused
      typedRefusal: 1,
      lineage: 3,
      lineageTimed: 3,
      recorded: 2,
      refusedNotFound: 1,
      refusedLineage: 1,
      stored: 4,
      duplicates: 1,
      refusedEvents: 1,
      subscribers: 0,
      queued: 0,
    });
    expect(value('provgraph_graphql_request_duration_seconds_bucket{le="+Inf",type="query",operation="lineage",outcome="OK"}')).toBe(3);
    expect(value("provgraph_database_statements_total")).toBeGreaterThan(10);
    expect(value("process_cpu_seconds_total")).toBeGreaterThan(0);
  });

  test("without a token 401, with a token lacking the scope 403, with admin 200; only GET", async () => {
    expect((await t.send({ method: "GET", path: "/metrics", token: null })).status).toBe(401);
    const reader = await t.issue(["read"]);
    const forbidden = await t.send({ method: "GET", path: "/metrics", token: reader });
    expect([forbidden.status, forbidden.json.errors[0].extensions]).toEqual([403, expect.objectContaining({ code: "FORBIDDEN", scope: "metrics" })]);
    expect((await t.send({ method: "GET", path: "/metrics", token: t.adminToken })).status).toBe(200);
    expect((await t.send({ method: "POST", path: "/metrics", token: t.adminToken, body: "" })).status).toBe(405);
    // a metrics token reads nothing else
    const scraper = await t.issue(["metrics"]);
    expect((await t.gqlAs(scraper, "{ operations(first: 1) { edges { cursor } } }")).status).toBe(403);
  });
});

describe("METRICS", () => {
  test("off (the default): /metrics is not served; public: served without a token", async () => {
    const off = await createTestApp();
    try {
      expect((await off.app.yoga.fetch("http://provgraph.test/metrics")).status).toBe(404);
      expect(off.app.metrics).toBeUndefined();
    } finally {
      await off.close();
    }
    const open = await createTokenTestApp({ env: { METRICS: "public" } });
    try {
      const answer = await open.send({ method: "GET", path: "/metrics", token: null });
      expect([answer.status, answer.text]).toEqual([200, expect.stringContaining("# TYPE provgraph_graphql_requests_total counter")]);
    } finally {
      await open.close();
    }
  });

  test("operation labels are the root fields, bounded: never the client's operation name", () => {
    expect(operationLabel(parse("query Mine { lineage(artifactId: \"x\") { truncated } }"), undefined)).toEqual({ type: "query", operation: "lineage" });
    expect(operationLabel(parse("{ b: node(id: \"x\") { id } a: node(id: \"y\") { id } artifact(id: \"z\") { id } executions { edges { cursor } } operations { edges { cursor } } }"), undefined)).toEqual({
      type: "query",
      operation: "artifact+executions+node+1",
    });
  });
});

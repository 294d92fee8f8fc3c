import http from "node:http";
import zlib from "node:zlib";
import { type App, buildApp } from "../../src/app";
import { generateTokenSecret } from "../../src/auth";
import { loadConfig } from "../../src/config";
import { createTestDatabaseUrl } from "../support/test-database";

/**
 * What OpenLineage's clients send, replayed byte for byte over a real socket (the clients cannot be
 * installed here). The Python client's HttpTransport (openlineage-python, transport/http.py) posts
 * each event alone to urljoin(url, "api/v1/lineage") with `Content-Type: application/json`, an
 * `Authorization: Bearer <api_key>` header when an API key is configured, and — with
 * `compression: gzip` — the body gzip-compressed and `Content-Encoding: gzip`; requests adds
 * User-Agent, Accept, Accept-Encoding and Content-Length. The body is Serde.to_json: json.dumps with
 * sorted keys, Python's separators and \u-escaped non-ASCII; eventTime an isoformat() datetime, run
 * ids UUIDv7, every facet with _producer and _schemaURL. The Java client posts compact JSON with
 * `Accept: application/json` and nanosecond eventTimes.
 */

const PYTHON_PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/client/python";

/** Python's json.dumps(value, sort_keys=True): ", " and ": " separators, non-ASCII as \uXXXX. */
function pythonJsonDumps(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${pythonJsonDumps(key)}: ${pythonJsonDumps((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(", ")}}`;
  }
  if (typeof value === "string") return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return JSON.stringify(value);
}

const facet = (name: string, fields: Record<string, unknown>) => ({ _producer: PYTHON_PRODUCER, _schemaURL: `https://openlineage.io/spec/facets/1-0-0/${name}.json#/$defs/${name}`, ...fields });

function pythonEvent(eventType: string, runId: string, eventTime: string, outputs: unknown[] = []) {
  return {
    eventTime,
    eventType,
    inputs: [{ namespace: "postgres://db:5432", name: "shop.public.orders", facets: { schema: facet("SchemaDatasetFacet", { fields: [{ name: "id", type: "int" }, { name: "amount", type: "numeric" }] }) } }],
    job: { namespace: "airflow", name: "daily_sales.load", facets: { jobType: facet("JobTypeJobFacet", { processingType: "BATCH", integration: "AIRFLOW", jobType: "TASK" }) } },
    outputs,
    producer: PYTHON_PRODUCER,
    run: { facets: { nominalTime: facet("NominalTimeRunFacet", { nominalStartTime: "2026-03-11T00:00:00+00:00" }) }, runId },
    schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
  };
}

interface Reply {
  status: number;
  body: string;
}

/** One request exactly as given: method, path, headers (in this order) and body bytes. */
function send(url: URL, path: string, headers: [string, string][], body: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, method: "POST", path, headers: Object.fromEntries(headers) }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString("utf8") }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** What the client's `api_key` holds: a provgraph token with the write scope. */
const API_KEY = generateTokenSecret();

describe("OpenLineage clients speak to provgraph unchanged", () => {
  let app: App;
  let base: URL;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    // Token mode, as a deployment would run: the client is configured with a write token as its api_key.
    app = await buildApp(loadConfig({ DATABASE_URL: database.url, PORT: "0", LOG_LEVEL: "silent", PROVGRAPH_BOOTSTRAP_TOKEN: generateTokenSecret() }));
    await app.auth.tokens.createWithSecret(API_KEY, { name: "openlineage-client", scopes: ["write"], expiresAt: null, createdBy: "test" });
    base = new URL(await app.start());
  });
  afterAll(async () => {
    await app.stop();
    await drop();
  });

  const pythonHeaders = (body: Buffer, gzip: boolean): [string, string][] => [
    ["User-Agent", "python-requests/2.32.3"],
    ["Accept-Encoding", "gzip, deflate"],
    ["Accept", "*/*"],
    ["Connection", "keep-alive"],
    ["Content-Type", "application/json"],
    ["Authorization", `Bearer ${API_KEY}`],
    ...(gzip ? ([["Content-Encoding", "gzip"]] as [string, string][]) : []),
    ["Content-Length", String(body.length)],
  ];

  it("the Python client's HttpTransport (gzip, Bearer, one event per request): 201 each, one execution with both events", async () => {
    const runId = "0195b1f2-7c3d-7a10-9e21-4b5c6d7e8f90"; // uuid7, as generate_new_uuid() makes
    const output = { namespace: "postgres://db:5432", name: "shop.analytics.daily_sales", facets: { schema: facet("SchemaDatasetFacet", { fields: [{ name: "day", type: "date" }, { name: "total", type: "numeric" }] }) } };
    const events = [pythonEvent("START", runId, "2026-03-11T02:00:00.123456+00:00"), pythonEvent("COMPLETE", runId, "2026-03-11T02:05:30.654321+00:00", [output])];
    for (const [i, event] of events.entries()) {
      const json = Buffer.from(pythonJsonDumps(event), "utf8");
      const body = i === 0 ? zlib.gzipSync(json) : json; // one compressed, one not: both are what the transport sends
      const reply = await send(base, "/api/v1/lineage", pythonHeaders(body, i === 0), body);
      expect(reply.status).toBe(201);
    }
    const res = await app.yoga.fetch("http://provgraph.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({
        query: `query($runId: ID!) {
          execution(runId: $runId) { runId status startedAt endedAt operation { name version } inputs { artifact { dataset { name } } } outputs { artifact { dataset { name } columns { field } } } }
          openLineageEvents(runId: $runId) { edges { node { eventType event } } } }`,
        variables: { runId },
      }),
    });
    const { data, errors } = (await res.json()) as any;
    expect(errors).toBeUndefined();
    expect(data.execution).toEqual({
      runId: `run_${runId}`,
      status: "COMPLETED",
      startedAt: "2026-03-11T02:00:00.123Z",
      endedAt: "2026-03-11T02:05:30.654Z",
      operation: { name: "daily_sales.load", version: "openlineage:airflow" },
      inputs: [{ artifact: { dataset: { name: "shop.public.orders" } } }],
      outputs: [{ artifact: { dataset: { name: "shop.analytics.daily_sales" }, columns: [{ field: "day" }, { field: "total" }] } }],
    });
    expect(data.openLineageEvents.edges.map((e: any) => e.node)).toEqual(events.map((event) => ({ eventType: event.eventType, event })));
  });

  it("without the configured API key the transport gets 401 and nothing is stored", async () => {
    const event = pythonEvent("START", "0195b1f2-7c3d-7a10-9e21-000000000001", "2026-03-11T02:00:00+00:00");
    const body = Buffer.from(pythonJsonDumps(event));
    const headers = pythonHeaders(body, false).filter(([name]) => name !== "Authorization");
    expect((await send(base, "/api/v1/lineage", headers, body)).status).toBe(401);
    expect(await app.database.prisma.openLineageEvent.count({ where: { runId: "run_0195b1f2-7c3d-7a10-9e21-000000000001" } })).toBe(0);
  });

  it("the Java client's HttpTransport (compact JSON, nanosecond eventTime, non-ASCII as UTF-8): 201", async () => {
    const event = {
      eventType: "COMPLETE",
      eventTime: "2026-03-11T02:05:30.123456789Z",
      run: { runId: "0195b1f2-7c3d-7a10-9e21-00000000beef", facets: {} },
      job: { namespace: "spark", name: "étl_job", facets: {} },
      inputs: [],
      outputs: [],
      producer: "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/integration/spark",
      schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    };
    const body = Buffer.from(JSON.stringify(event), "utf8");
    const reply = await send(
      base,
      "/api/v1/lineage",
      [
        ["Content-Type", "application/json"],
        ["Accept", "application/json"],
        ["Authorization", `Bearer ${API_KEY}`],
        ["Content-Length", String(body.length)],
        ["User-Agent", "Apache-HttpClient/5.4 (Java/17.0.12)"],
      ],
      body,
    );
    expect(reply.status).toBe(201);
    expect(JSON.parse(reply.body)).toEqual(expect.objectContaining({ status: "STORED", runId: "run_0195b1f2-7c3d-7a10-9e21-00000000beef", executionStatus: "COMPLETED" }));
  });
});

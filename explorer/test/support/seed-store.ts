/**
 * The story the Explorer's browser tests (and its screenshots) are told on: a small reporting pipeline
 * recorded by a client (extract → clean → report, three profiling runs fanning out of the extract), an
 * OpenLineage shop (raw_orders → orders_clean → revenue_daily, with DIRECT and INDIRECT column lineage and
 * a PII column), PII on the extract's metadata, and — after `asOfBefore` — one more run publishing the report.
 * Recorded over HTTP like any client, so it seeds a server process as well as an in-process one.
 */
import { createHash, randomUUID } from "node:crypto";

export interface Seeded {
  extract: string;
  clean: string;
  report: string;
  profiles: string[];
  published: string;
  rawOrders: string;
  ordersClean: string;
  revenueDaily: string;
  /** An instant after everything but the publishing run was recorded. */
  asOfBefore: string;
  publishRunId: string;
}

export interface Target {
  /** The GraphQL URL (http://host:port/graphql). */
  url: string;
  token?: string;
}

export async function gql<T = any>(target: Target, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(target.url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(target.token ? { authorization: `Bearer ${target.token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors?.length) throw new Error(`${query.slice(0, 60)}…: ${JSON.stringify(body.errors)}`);
  return body.data as T;
}

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

const REGISTER = `mutation($input: RegisterOperationInput!) { registerOperation(input: $input) { __typename ... on Error { message } } }`;
const RECORD = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename ... on Error { code message } ... on RecordExecutionPayload { execution { runId outputs { artifact { id } } } } } }`;

export async function registerOperations(target: Target): Promise<void> {
  const ops = [
    { name: "extract", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] },
    { name: "clean", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "clean", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] },
    { name: "report", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "report", artifactType: "pdf", inferLineageFrom: { inputs: ["data"] } }] },
    { name: "profile", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "profile", artifactType: "json", inferLineageFrom: { inputs: ["data"] } }] },
    { name: "publish", inputs: [{ role: "data", artifactType: "pdf" }], outputs: [{ role: "page", artifactType: "html", inferLineageFrom: { inputs: ["data"] } }] },
  ];
  for (const op of ops) {
    const data = await gql(target, REGISTER, { input: { name: op.name, version: "1", kind: "CREATOR", inputs: op.inputs, outputs: op.outputs } });
    if (data.registerOperation.__typename !== "Operation") throw new Error(JSON.stringify(data.registerOperation));
  }
}

/** Records one run; returns its runId and its outputs' ids. */
export async function recordRun(
  target: Target,
  operation: string,
  inputs: Record<string, string[]>,
  outputs: Record<string, { name: string; metadata?: unknown }[]>,
  extra: Record<string, unknown> = {},
): Promise<{ runId: string; outputs: string[] }> {
  const input = {
    operation,
    operationVersion: "1",
    inputs: Object.entries(inputs).map(([role, artifactIds]) => ({ role, artifactIds })),
    outputs: Object.entries(outputs).map(([role, artifacts]) => ({ role, artifacts: artifacts.map((a) => ({ originalName: a.name, contentHash: sha256(`${a.name}/${randomUUID()}`), metadata: a.metadata })) })),
    ...extra,
  };
  const data = await gql(target, RECORD, { input });
  const result = data.recordExecution;
  if (result.__typename !== "RecordExecutionPayload") throw new Error(JSON.stringify(result));
  return { runId: result.execution.runId, outputs: result.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id) };
}

type Edge = [target: string, source: string, field: string, type: "DIRECT" | "INDIRECT", subtype: string];

function hop(namespace: string, job: string, input: { name: string; fields: string[] }, output: { name: string; fields: string[] }, edges: Edge[]) {
  const fields: Record<string, { inputFields: unknown[] }> = {};
  for (const [target, source, field, type, subtype] of edges) {
    fields[target] ??= { inputFields: [] };
    fields[target].inputFields.push({ namespace, name: source, field, transformations: [{ type, subtype }] });
  }
  const schema = (names: string[]) => ({ schema: { _producer: "https://example.com/seed", _schemaURL: "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json", fields: names.map((name) => ({ name, type: name === "amount" || name === "revenue" ? "decimal" : "string" })) } });
  return {
    eventType: "COMPLETE",
    eventTime: new Date().toISOString(),
    producer: "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/client/python",
    schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    run: { runId: randomUUID(), facets: {} },
    job: { namespace, name: job },
    inputs: [{ namespace, name: input.name, facets: schema(input.fields) }],
    outputs: [{ namespace, name: output.name, facets: { ...schema(output.fields), columnLineage: { _producer: "https://example.com/seed", _schemaURL: "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json", fields } } }],
  };
}

async function ingest(target: Target, event: unknown): Promise<void> {
  const response = await fetch(new URL("/api/v1/lineage", target.url), {
    method: "POST",
    headers: { "content-type": "application/json", ...(target.token ? { authorization: `Bearer ${target.token}` } : {}) },
    body: JSON.stringify(event),
  });
  if (response.status !== 201) throw new Error(`lineage: ${response.status} ${await response.text()}`);
}

/** One OpenLineage run from `input` to `output` with these column edges; answers the output's version id. */
export async function ingestHop(target: Target, namespace: string, job: string, input: { name: string; fields: string[] }, output: { name: string; fields: string[] }, edges: Edge[]): Promise<string> {
  await ingest(target, hop(namespace, job, input, output, edges));
  return latest(target, namespace, output.name);
}

const latest = async (target: Target, namespace: string, name: string): Promise<string> =>
  (await gql(target, `query($n: String!, $m: String!) { dataset(namespace: $n, name: $m) { latestVersion { id } } }`, { n: namespace, m: name })).dataset.latestVersion.id;

export async function seedStore(target: Target): Promise<Seeded> {
  await registerOperations(target);
  const pins = (image: boolean) => ({ codeVersion: "9f2c1e7", imageDigest: image ? "sha256:4b1d5e0c9a7f3b2e" : undefined, deterministic: true, inputVersions: {} });
  const extract = await recordRun(target, "extract", {}, { raw: [{ name: "sales_2026.csv", metadata: { source: "point-of-sale export", owner: "ana@example.com" } }] }, { pipeline: "reporting", step: 1, pins: pins(true), params: { region: "EU" } });
  const clean = await recordRun(target, "clean", { data: extract.outputs }, { clean: [{ name: "sales_2026_clean.csv" }] }, { pipeline: "reporting", step: 2, pins: pins(true), params: { dropNulls: true } });
  const report = await recordRun(target, "report", { data: clean.outputs }, { report: [{ name: "sales_2026_clean_report.pdf" }] }, { pipeline: "reporting", step: 3, pins: pins(false) });
  const profiles: string[] = [];
  for (const part of ["a", "b", "c"]) profiles.push(...(await recordRun(target, "profile", { data: extract.outputs }, { profile: [{ name: `sales_2026_profile_${part}.json` }] })).outputs);
  await gql(target, `mutation($input: TagArtifactInput!) { tagArtifact(input: $input) { __typename } }`, { input: { artifactId: extract.outputs[0], tag: "PII", reason: "holds customer e-mail addresses" } });

  await ingest(target, hop("shop", "clean_orders", { name: "raw_orders", fields: ["id", "customer_email", "amount", "status"] }, { name: "orders_clean", fields: ["id", "customer_email", "amount"] }, [
    ["id", "raw_orders", "id", "DIRECT", "IDENTITY"],
    ["customer_email", "raw_orders", "customer_email", "DIRECT", "IDENTITY"],
    ["amount", "raw_orders", "amount", "DIRECT", "TRANSFORMATION"],
    ["amount", "raw_orders", "status", "INDIRECT", "FILTER"],
  ]));
  await ingest(target, hop("shop", "daily_revenue", { name: "orders_clean", fields: ["id", "customer_email", "amount"] }, { name: "revenue_daily", fields: ["day", "revenue"] }, [
    ["revenue", "orders_clean", "amount", "DIRECT", "AGGREGATION"],
    ["day", "orders_clean", "id", "INDIRECT", "GROUP_BY"],
  ]));
  const rawOrders = await latest(target, "shop", "raw_orders");
  await gql(target, `mutation($input: TagColumnInput!) { tagColumn(input: $input) { __typename } }`, { input: { column: { artifactId: rawOrders, field: "customer_email" }, tag: "PII", reason: "customer contact" } });

  // The as-of boundary: everything above is before it, the publishing run after it.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const asOfBefore = new Date(Date.now() - 500).toISOString();
  const publish = await recordRun(target, "publish", { data: report.outputs }, { page: [{ name: "sales_2026_clean_report_web.html" }] });
  return {
    extract: extract.outputs[0],
    clean: clean.outputs[0],
    report: report.outputs[0],
    profiles,
    published: publish.outputs[0],
    rawOrders,
    ordersClean: await latest(target, "shop", "orders_clean"),
    revenueDaily: await latest(target, "shop", "revenue_daily"),
    asOfBefore,
    publishRunId: publish.runId,
  };
}

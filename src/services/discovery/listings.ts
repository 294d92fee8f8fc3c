import type { ArtifactId, OperationId, RunId } from "../ids";
import type { KeysetPage } from "../pagination";
import type { ExecutionStatus } from "../records";
import { comparedText } from "./search-documents";
import { idRangeOf, parseDatasetKey } from "./search-kinds";
import type { SearchReader } from "./search";
import { prefixUpperBound } from "./search-text";
import { Params } from "./sql-runner";

/**
 * What a user interface pages through (docs: "Listings"): namespaces, the datasets of one, jobs,
 * pipelines and artifacts — read from the search index, which keeps one entry per dataset, job and
 * pipeline and knows each namespace's counts, so a page is one index range whatever the store's size.
 * Names are listed in the order of their fold (case of A–Z ignored), artifacts newest first; a prefix
 * filter ignores case the same way. Pure functions over a read connection.
 */

export interface NamespaceListing {
  name: string;
  datasetCount: number;
  jobCount: number;
}

/** Namespaces of datasets and OpenLineage jobs, by name (as stored: byte order); `prefix` as given. */
export async function listNamespaces(reader: SearchReader, filter: { prefix?: string | null }, page: KeysetPage<string>): Promise<NamespaceListing[]> {
  const params = new Params(reader.provider);
  const where = namespacesWhere(params, filter);
  if (page.after !== undefined) where.push(`"name" > ${params.bind(page.after)}`);
  if (page.before !== undefined) where.push(`"name" < ${params.bind(page.before)}`);
  const sql = `SELECT "name", "datasets", "jobs" FROM "SearchNamespace"${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY "name" ${page.inverted ? "DESC" : "ASC"} LIMIT ${params.bind(page.limit)}`;
  const { rows } = await reader.readRows(sql, params.values);
  return rows.map(([name, datasets, jobs]) => ({ name: String(name), datasetCount: Number(datasets), jobCount: Number(jobs) }));
}

function namespacesWhere(params: Params, filter: { prefix?: string | null }): string[] {
  return filter.prefix ? [`"name" >= ${params.bind(filter.prefix)} AND "name" < ${params.bind(prefixUpperBound(filter.prefix))}`] : [];
}

/** How many namespaces `listNamespaces` lists with this filter, counted up to `cap` (null above). */
export async function countNamespaces(reader: SearchReader, filter: { prefix?: string | null }, cap: number): Promise<number | null> {
  const params = new Params(reader.provider);
  const where = namespacesWhere(params, filter);
  return cappedCount(reader, params, `SELECT 1 FROM "SearchNamespace"${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`, cap);
}

/**
 * How many rows a listing's statement (its filter, no page) gives, counted up to `cap`: it stops at
 * the (cap + 1)th row whatever the store's size, as a page that long would; null above the cap.
 */
async function cappedCount(reader: SearchReader, params: Params, listed: string, cap: number): Promise<number | null> {
  const sql = `SELECT COUNT(*) FROM (${listed} LIMIT ${params.bind(cap + 1)}) listed`;
  const count = Number((await reader.readRows(sql, params.values)).rows[0][0]);
  return count > cap ? null : count;
}

export interface DatasetListing {
  /** Its place in the listing (a cursor's key). */
  entryId: number;
  namespace: string;
  name: string;
}

export interface JobListing {
  entryId: number;
  operationId: OperationId;
  /** What search opens for it: op_… for a registered operation, `job:<namespace>/<name>` for an OpenLineage job. */
  id: string;
  kind: "OPERATION" | "OPENLINEAGE";
  name: string;
  /** An OpenLineage job's namespace (null for a registered operation). */
  namespace: string | null;
}

export interface PipelineListing {
  entryId: number;
  name: string;
}

export interface ArtifactListing {
  entryId: number;
  artifactId: ArtifactId;
}

/** Which entries a listing by label takes: of one kind, the folded label starting with `labelPrefix` (folded), with a further condition. */
interface LabelFilter {
  kind: string;
  labelPrefix: string;
  extra: (params: Params) => string;
}

function labelWhere(params: Params, { kind, labelPrefix, extra }: LabelFilter): string {
  const folded = comparedText(labelPrefix);
  let where = `e."kind" = ${params.bind(kind)}`;
  if (folded.length > 0) where += ` AND e."labelFolded" >= ${params.bind(folded)} AND e."labelFolded" < ${params.bind(prefixUpperBound(folded))}`;
  return where + extra(params);
}

/** How many entries a listing by label takes, counted up to `cap` (null above). */
async function countByLabel(reader: SearchReader, filter: LabelFilter, cap: number): Promise<number | null> {
  const params = new Params(reader.provider);
  return cappedCount(reader, params, `SELECT 1 FROM "SearchEntry" e WHERE ${labelWhere(params, filter)}`, cap);
}

/** Entries of one kind by their folded label (LabelFilter), after/before an entry (its id). */
async function entriesByLabel(reader: SearchReader, filter: LabelFilter, page: KeysetPage<number>): Promise<unknown[][]> {
  const params = new Params(reader.provider);
  let where = labelWhere(params, filter);
  const keyset = (id: number, op: string) => ` AND (e."labelFolded", e."id") ${op} (SELECT s."labelFolded", s."id" FROM "SearchEntry" s WHERE s."id" = ${params.bind(id)})`;
  if (page.after !== undefined) where += keyset(page.after, ">");
  if (page.before !== undefined) where += keyset(page.before, "<");
  const direction = page.inverted ? "DESC" : "ASC";
  const sql = `SELECT e."id", e."key", e."label", e."target", e."namespace" FROM "SearchEntry" e WHERE ${where} ORDER BY e."labelFolded" ${direction}, e."id" ${direction} LIMIT ${params.bind(page.limit)}`;
  return (await reader.readRows(sql, params.values)).rows;
}

/** The datasets of a namespace, by name; `prefix` filters names (case of A–Z ignored). */
export async function listDatasets(reader: SearchReader, filter: DatasetFilter, page: KeysetPage<number>): Promise<DatasetListing[]> {
  const rows = await entriesByLabel(reader, datasetsByLabel(filter), page);
  return rows.flatMap(([id, key]) => {
    const dataset = parseDatasetKey(String(key));
    return dataset ? [{ entryId: Number(id), namespace: dataset.namespace, name: dataset.name }] : [];
  });
}

export type DatasetFilter = { namespace: string; prefix?: string | null };
export type JobFilter = { namespace?: string | null; prefix?: string | null };
export type PipelineFilter = { prefix?: string | null };
export type ArtifactFilter = { artifactType?: string | null; namePrefix?: string | null };

// A dataset's label is `namespace/name`: the datasets of a namespace are one range of labels.
const datasetsByLabel = (filter: DatasetFilter): LabelFilter => ({ kind: "DATASET", labelPrefix: `${filter.namespace}/${filter.prefix ?? ""}`, extra: (params) => ` AND e."namespace" = ${params.bind(filter.namespace)}` });
const jobsByLabel = (filter: JobFilter): LabelFilter => ({ kind: "JOB", labelPrefix: filter.prefix ?? "", extra: (params) => (filter.namespace != null ? ` AND e."namespace" = ${params.bind(filter.namespace)}` : "") });
const pipelinesByLabel = (filter: PipelineFilter): LabelFilter => ({ kind: "PIPELINE", labelPrefix: filter.prefix ?? "", extra: () => "" });

/** How many datasets, jobs, pipelines their listings take with this filter, counted up to `cap` (null above). */
export const countDatasets = (reader: SearchReader, filter: DatasetFilter, cap: number) => countByLabel(reader, datasetsByLabel(filter), cap);
export const countJobs = (reader: SearchReader, filter: JobFilter, cap: number) => countByLabel(reader, jobsByLabel(filter), cap);
export const countPipelines = (reader: SearchReader, filter: PipelineFilter, cap: number) => countByLabel(reader, pipelinesByLabel(filter), cap);

/** Registered operations and OpenLineage jobs, by name; `namespace` keeps the jobs of one OpenLineage namespace. */
export async function listJobs(reader: SearchReader, filter: JobFilter, page: KeysetPage<number>): Promise<JobListing[]> {
  const rows = await entriesByLabel(reader, jobsByLabel(filter), page);
  return rows.map(([id, key, label, target, namespace]) => ({
    entryId: Number(id),
    operationId: String(key) as OperationId,
    id: String(target),
    kind: namespace === null ? "OPERATION" : "OPENLINEAGE",
    name: String(label),
    namespace: namespace === null ? null : String(namespace),
  }));
}

/** Pipelines, by name. */
export async function listPipelines(reader: SearchReader, filter: PipelineFilter, page: KeysetPage<number>): Promise<PipelineListing[]> {
  const rows = await entriesByLabel(reader, pipelinesByLabel(filter), page);
  return rows.map(([id, key]) => ({ entryId: Number(id), name: String(key) }));
}

/**
 * Artifacts newest first (by when provgraph recorded them), of a type (as given) and with a name
 * starting with `namePrefix` (case of A–Z ignored). Dataset versions are listed by their dataset.
 */
export async function listArtifacts(reader: SearchReader, filter: ArtifactFilter, page: KeysetPage<number>): Promise<ArtifactListing[]> {
  const params = new Params(reader.provider);
  let where = artifactsWhere(params, filter);
  // A newer entry has a lower id: newest first is ascending ids.
  if (page.after !== undefined) where += ` AND e."id" > ${params.bind(page.after)}`;
  if (page.before !== undefined) where += ` AND e."id" < ${params.bind(page.before)}`;
  const sql = `SELECT e."id", e."key" FROM "SearchEntry" e WHERE ${where} ORDER BY e."id" ${page.inverted ? "DESC" : "ASC"} LIMIT ${params.bind(page.limit)}`;
  return (await reader.readRows(sql, params.values)).rows.map(([id, key]) => ({ entryId: Number(id), artifactId: String(key) as ArtifactId }));
}

function artifactsWhere(params: Params, filter: ArtifactFilter): string {
  const { low, high } = idRangeOf("ARTIFACT");
  let where = `e."id" >= ${params.bind(low)} AND e."id" < ${params.bind(high)} AND e."kind" = 'ARTIFACT'`;
  if (filter.artifactType != null) where += ` AND e."keywordsFolded" = ${params.bind(comparedText(filter.artifactType))} AND e."keywords" = ${params.bind(filter.artifactType)}`;
  const folded = comparedText(filter.namePrefix ?? "");
  if (folded.length > 0) where += ` AND e."labelFolded" >= ${params.bind(folded)} AND e."labelFolded" < ${params.bind(prefixUpperBound(folded))}`;
  return where;
}

/** How many artifacts `listArtifacts` lists with this filter, counted up to `cap` (null above). */
export async function countArtifacts(reader: SearchReader, filter: ArtifactFilter, cap: number): Promise<number | null> {
  const params = new Params(reader.provider);
  return cappedCount(reader, params, `SELECT 1 FROM "SearchEntry" e WHERE ${artifactsWhere(params, filter)}`, cap);
}

/** A run as a listing shows it: its id and status. */
export interface LastRun {
  runId: RunId;
  status: ExecutionStatus;
}

/** For each operation, its latest run (by when recorded) — one statement, one index probe each. */
export async function lastRunsOfOperations(reader: SearchReader, operationIds: readonly string[]): Promise<(LastRun | null)[]> {
  return lastRunsBy(reader, "operationId", operationIds);
}

/** For each pipeline, its latest run. */
export async function lastRunsOfPipelines(reader: SearchReader, pipelines: readonly string[]): Promise<(LastRun | null)[]> {
  return lastRunsBy(reader, "pipeline", pipelines);
}

async function lastRunsBy(reader: SearchReader, column: "operationId" | "pipeline", keys: readonly string[]): Promise<(LastRun | null)[]> {
  if (keys.length === 0) return [];
  const params = new Params(reader.provider);
  const sql = keys
    .map((key, i) => `SELECT * FROM (SELECT ${i} AS "i", x."runId", x."status" FROM "Execution" x WHERE x."${column}" = ${params.bind(key)} ORDER BY x."recordedAt" DESC, x."runId" DESC LIMIT 1) r${i}`)
    .join(" UNION ALL ");
  const runs: (LastRun | null)[] = keys.map(() => null);
  for (const [i, runId, status] of (await reader.readRows(sql, params.values)).rows) runs[Number(i)] = { runId: String(runId) as RunId, status: String(status) as ExecutionStatus };
  return runs;
}

/** For each operation, how many runs it has. */
export async function runCounts(reader: SearchReader, operationIds: readonly string[]): Promise<number[]> {
  return countsBy(reader, `SELECT "operationId", COUNT(*) FROM "Execution" WHERE "operationId" IN`, operationIds, `GROUP BY "operationId"`);
}

/** For each pipeline, how many steps it has. */
export async function stepCounts(reader: SearchReader, pipelines: readonly string[]): Promise<number[]> {
  return countsBy(reader, `SELECT "pipeline", COUNT(*) FROM "PipelineStep" WHERE "pipeline" IN`, pipelines, `GROUP BY "pipeline"`);
}

async function countsBy(reader: SearchReader, head: string, keys: readonly string[], tail: string): Promise<number[]> {
  if (keys.length === 0) return [];
  const params = new Params(reader.provider);
  const sql = `${head} (${keys.map((key) => params.bind(key)).join(", ")}) ${tail}`;
  const counts = new Map((await reader.readRows(sql, params.values)).rows.map(([key, n]) => [String(key), Number(n)]));
  return keys.map((key) => counts.get(key) ?? 0);
}

import crypto from "node:crypto";
import { canonicalJson } from "../services/canonical-json";
import { type RunId, runIdForUuid } from "../services/ids";
import { unsafeTextReason } from "../services/safe-text";
import { InvalidEventError } from "./errors";
import { parseEventTime } from "./event-time";
import { isRecord } from "./tolerances";

/**
 * A schema-valid OpenLineage event, read into what provgraph records: the run, job and datasets it
 * names, its column lineage and schemas, and the small set of facts the fold of a run reads
 * (RunFacts, stored with the event). Names that cannot become safe identifiers (control characters,
 * lone surrogates, empty job or dataset names) are refused here with their JSON pointer.
 */

export const RUN_EVENT_TYPES = ["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

export interface DatasetName {
  namespace: string;
  name: string;
}

/** A dataset as an event names it; version null when no `version` facet gives one. */
export interface DatasetMention extends DatasetName {
  version: string | null;
}

export interface SchemaField {
  field: string;
  type: string | null;
  description: string | null;
}

export interface Transformation {
  type: "DIRECT" | "INDIRECT";
  subtype: string | null;
  description: string | null;
  masking: boolean;
}

/** One input field a column (or, in `dataset`, the whole output) depends on, with how. */
export interface ColumnDependency extends DatasetName {
  field: string;
  transformations: Transformation[];
}

export interface OutputColumnLineage {
  fields: { field: string; inputs: ColumnDependency[] }[];
  /** Dataset-wide dependencies: they shape every column of the output (filters, joins, grouping, sorting). */
  dataset: ColumnDependency[];
}

export interface InputReport extends DatasetMention {
  fields: SchemaField[] | null;
}

export interface OutputReport extends DatasetMention {
  fields: SchemaField[] | null;
  columnLineage: OutputColumnLineage | null;
}

/** What the fold of a run reads from one of its events (stored as canonical JSON beside the event). */
export interface RunFacts {
  eventType: RunEventType;
  /** ISO instant (UTC, milliseconds). */
  eventTime: string;
  job: DatasetName;
  parent: { runId: RunId; job: DatasetName } | null;
  error: { message: string; programmingLanguage: string | null; stackTrace: string | null } | null;
  /** Facets that become the execution's params (README "OpenLineage → provgraph"). */
  params: Record<string, unknown>;
  codeVersion: string | null;
  imageDigest: string | null;
  agent: string | null;
  /** Inputs, and the datasets column lineage reads that the inputs do not list. */
  inputs: DatasetMention[];
  /** Outputs; `columnSources`: the datasets its column lineage names, null without column lineage. */
  outputs: (DatasetMention & { columnSources: DatasetName[] | null })[];
}

interface EventBase {
  /** sha256 of the canonical JSON of the event as sent: its identity for de-duplication. */
  eventKey: string;
  eventTime: Date;
  producer: string;
  /** The event as sent: its JSON text (the request body, or its NDJSON line; an array's element re-serialised). */
  body: string;
}

export type ParsedEvent =
  | (EventBase & {
      kind: "RUN";
      runId: RunId;
      /** The eventType as sent (null: none, read as OTHER); `facts.eventType` is what the fold uses. */
      reportedType: RunEventType | null;
      job: DatasetName;
      facts: RunFacts;
      inputs: InputReport[];
      outputs: OutputReport[];
    })
  | (EventBase & { kind: "JOB"; job: DatasetName })
  | (EventBase & { kind: "DATASET"; dataset: DatasetName });

/**
 * Reads a schema-valid event (see OpenLineageSchema); `sent` is the event as sent (its JSON text).
 * Throws InvalidEventError for names provgraph cannot keep apart.
 */
export function parseEvent(event: Record<string, unknown>, sent: string = JSON.stringify(event)): ParsedEvent {
  const time = parseEventTime(String(event.eventTime));
  if (!time) throw new InvalidEventError("/eventTime", "is not a date-time");
  const base: EventBase = {
    eventKey: crypto.createHash("sha256").update(canonicalJson(event)).digest("hex"),
    eventTime: time.date,
    producer: text(event.producer, "/producer"),
    body: sent,
  };
  if (isRecord(event.run)) return parseRunEvent(event, base);
  if (isRecord(event.dataset)) return { ...base, kind: "DATASET", dataset: datasetName(event.dataset, "/dataset") };
  return { ...base, kind: "JOB", job: jobName(event.job, "/job") };
}

function parseRunEvent(event: Record<string, unknown>, base: EventBase): ParsedEvent {
  const run = event.run as Record<string, unknown>;
  const runId = runIdForUuid(String(run.runId));
  if (!runId) throw new InvalidEventError("/run/runId", "is not a UUID");
  // A RunEvent without an eventType is allowed by the schema; it reports no transition.
  const eventType = (event.eventType ?? "OTHER") as RunEventType;
  const job = jobName(event.job, "/job");
  const runFacets = record(run.facets);
  const jobFacets = record((event.job as Record<string, unknown>).facets);
  const inputs = list(event.inputs).map((d, i) => inputReport(d, `/inputs/${i}`));
  const outputs = list(event.outputs).map((d, i) => outputReport(d, `/outputs/${i}`));

  const parentFacet = record(runFacets.parent);
  let parent: RunFacts["parent"] = null;
  if (isRecord(parentFacet.run) && isRecord(parentFacet.job)) {
    const parentRunId = runIdForUuid(String(parentFacet.run.runId));
    if (!parentRunId) throw new InvalidEventError("/run/facets/parent/run/runId", "is not a UUID");
    if (parentRunId === runId) throw new InvalidEventError("/run/facets/parent/run/runId", "names the run itself: a run cannot be its own parent");
    parent = { runId: parentRunId, job: jobName(parentFacet.job, "/run/facets/parent/job") };
  }
  const errorFacet = record(runFacets.errorMessage);
  const error =
    typeof errorFacet.message === "string"
      ? { message: errorFacet.message, programmingLanguage: optionalText(errorFacet.programmingLanguage), stackTrace: optionalText(errorFacet.stackTrace) }
      : null;
  const codeFacet = record(runFacets.codeVersion);
  const location = record(jobFacets.sourceCodeLocation);
  const owners = list(record(jobFacets.ownership).owners);

  // Datasets the column lineage reads but the inputs do not list are inputs too (Spark reports some reads only there).
  const inputMentions = new Map(inputs.map((d) => [datasetKey(d), { namespace: d.namespace, name: d.name, version: d.version }]));
  for (const output of outputs) {
    for (const source of columnSourcesOf(output.columnLineage) ?? []) {
      if (![...inputMentions.values()].some((d) => d.namespace === source.namespace && d.name === source.name)) {
        inputMentions.set(datasetKey({ ...source, version: null }), { ...source, version: null });
      }
    }
  }
  const facts: RunFacts = {
    eventType,
    eventTime: base.eventTime.toISOString(),
    job,
    parent,
    error,
    params: paramsOf(runFacets, jobFacets),
    codeVersion: optionalText(location.version) ?? optionalText(codeFacet.gitSha) ?? optionalText(codeFacet.version),
    imageDigest: optionalText(codeFacet.image) ?? optionalText(codeFacet.imageDigest),
    agent: isRecord(owners[0]) && typeof owners[0].name === "string" ? safe(owners[0].name, "/job/facets/ownership/owners/0/name") : null,
    inputs: [...inputMentions.values()],
    outputs: outputs.map((o) => ({ namespace: o.namespace, name: o.name, version: o.version, columnSources: columnSourcesOf(o.columnLineage) })),
  };
  return { ...base, kind: "RUN", runId, reportedType: (event.eventType as RunEventType | undefined) ?? null, job, facts, inputs, outputs };
}

/** Facets that say what ran and how it was asked to run: the execution's params (base fields `_…` dropped). */
const RUN_PARAM_FACETS: Record<string, string> = { nominalTime: "nominalTime", processing_engine: "processingEngine", executionParameters: "executionParameters" };
const JOB_PARAM_FACETS: Record<string, string> = { sql: "sql", sourceCode: "sourceCode", sourceCodeLocation: "sourceCodeLocation", jobType: "jobType" };

function paramsOf(runFacets: Record<string, unknown>, jobFacets: Record<string, unknown>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [facets, names] of [
    [runFacets, RUN_PARAM_FACETS],
    [jobFacets, JOB_PARAM_FACETS],
  ] as const) {
    for (const [facet, key] of Object.entries(names)) {
      if (isRecord(facets[facet])) params[key] = withoutBaseFields(facets[facet] as Record<string, unknown>);
    }
  }
  return params;
}

function withoutBaseFields(facet: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(facet).filter(([key]) => !key.startsWith("_")));
}

function inputReport(value: unknown, pointer: string): InputReport {
  const dataset = record(value);
  const facets = record(dataset.facets);
  return { ...datasetName(dataset, pointer), version: versionOf(facets, pointer), fields: schemaFieldsOf(facets, `${pointer}/facets/schema`) };
}

function outputReport(value: unknown, pointer: string): OutputReport {
  const dataset = record(value);
  const facets = record(dataset.facets);
  return {
    ...datasetName(dataset, pointer),
    version: versionOf(facets, pointer),
    fields: schemaFieldsOf(facets, `${pointer}/facets/schema`),
    columnLineage: isRecord(facets.columnLineage) ? columnLineageOf(facets.columnLineage, `${pointer}/facets/columnLineage`) : null,
  };
}

function versionOf(facets: Record<string, unknown>, pointer: string): string | null {
  const version = record(facets.version).datasetVersion;
  return typeof version === "string" ? safe(version, `${pointer}/facets/version/datasetVersion`) : null;
}

/** Schema facet fields, nested struct fields as dotted paths ("address.city"), in order. */
function schemaFieldsOf(facets: Record<string, unknown>, pointer: string): SchemaField[] | null {
  const schema = record(facets.schema);
  if (!Array.isArray(schema.fields)) return null;
  const fields: SchemaField[] = [];
  const visit = (items: unknown[], prefix: string, at: string) =>
    items.forEach((item, i) => {
      const field = record(item);
      const name = `${prefix}${safe(String(field.name), `${at}/${i}/name`)}`;
      fields.push({ field: name, type: optionalText(field.type), description: optionalText(field.description) });
      if (Array.isArray(field.fields)) visit(field.fields, `${name}.`, `${at}/${i}/fields`);
    });
  visit(schema.fields, "", `${pointer}/fields`);
  return fields;
}

function columnLineageOf(facet: Record<string, unknown>, pointer: string): OutputColumnLineage {
  const fields = Object.entries(record(facet.fields)).map(([field, value]) => {
    const entry = record(value);
    const at = `${pointer}/fields/${escapePointer(field)}`;
    safe(field, at);
    // Column lineage 1-0-x put one transformationType (IDENTITY | MASKED) on the output field.
    const legacy = typeof entry.transformationType === "string" ? entry.transformationType : null;
    const legacyDescription = typeof entry.transformationDescription === "string" ? entry.transformationDescription : null;
    return { field, inputs: list(entry.inputFields).map((d, i) => dependencyOf(d, `${at}/inputFields/${i}`, legacy, legacyDescription)) };
  });
  return { fields, dataset: list(facet.dataset).map((d, i) => dependencyOf(d, `${pointer}/dataset/${i}`, null, null)) };
}

function dependencyOf(value: unknown, pointer: string, legacyType: string | null, legacyDescription: string | null): ColumnDependency {
  const dependency = record(value);
  const reported = list(dependency.transformations);
  const transformations: Transformation[] =
    reported.length > 0
      ? reported.map((t, i) => transformationOf(record(t), `${pointer}/transformations/${i}`))
      : // No transformations (column lineage 1-0-x): the field's value reaches the output.
        [{ type: "DIRECT", subtype: legacyType, description: legacyDescription, masking: legacyType === "MASKED" }];
  return { ...datasetName(dependency, pointer), field: safe(String(dependency.field), `${pointer}/field`), transformations };
}

function transformationOf(t: Record<string, unknown>, pointer: string): Transformation {
  if (t.type !== "DIRECT" && t.type !== "INDIRECT") throw new InvalidEventError(`${pointer}/type`, `must be DIRECT or INDIRECT, got ${JSON.stringify(t.type)}`);
  return { type: t.type, subtype: optionalText(t.subtype), description: optionalText(t.description), masking: t.masking === true };
}

/** The datasets an output's column lineage names (its dataset-level sources), in order; null without column lineage. */
export function columnSourcesOf(lineage: OutputColumnLineage | null): DatasetName[] | null {
  if (!lineage) return null;
  const seen = new Map<string, DatasetName>();
  for (const dependency of [...lineage.fields.flatMap((f) => f.inputs), ...lineage.dataset]) {
    const key = datasetKey({ ...dependency, version: null });
    if (!seen.has(key)) seen.set(key, { namespace: dependency.namespace, name: dependency.name });
  }
  return [...seen.values()];
}

export const datasetKey = (d: DatasetMention) => JSON.stringify([d.namespace, d.name, d.version]);

function jobName(value: unknown, pointer: string): DatasetName {
  const job = record(value);
  const name = safe(String(job.name), `${pointer}/name`);
  if (!name.trim()) throw new InvalidEventError(`${pointer}/name`, "must not be empty");
  return { namespace: safe(String(job.namespace), `${pointer}/namespace`), name };
}

function datasetName(value: Record<string, unknown>, pointer: string): DatasetName {
  const name = safe(String(value.name), `${pointer}/name`);
  if (!name.trim()) throw new InvalidEventError(`${pointer}/name`, "must not be empty");
  return { namespace: safe(String(value.namespace), `${pointer}/namespace`), name };
}

function safe(value: string, pointer: string): string {
  const reason = unsafeTextReason(value);
  if (reason) throw new InvalidEventError(pointer, reason);
  return value;
}

function text(value: unknown, pointer: string): string {
  return safe(String(value), pointer);
}

const optionalText = (value: unknown): string | null => (typeof value === "string" ? value : null);
const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const escapePointer = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1");

import crypto from "node:crypto";
import { canonicalJson, canonicalJsonInTurns } from "../services/canonical-json";
import { type RunId, runIdForUuid } from "../services/ids";
import { checkPrivacyCost, type PrivacyCost, PURPOSE_NAME, PURPOSE_SYNTAX } from "../services/recording";
import { nameLengthReason, unsafeNameReason, unsafeTextReason } from "../services/safe-text";
import { InvalidEventError } from "./errors";
import { parseEventTimeValue } from "./event-time";
import type { EventWarning } from "./schema-validator";
import { eventKindOf, isRecord } from "./tolerances";
import { appendTo } from "../services/grouping";

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

/** A tag of the dataset's `tags` facet (TagsDatasetFacet): of the dataset, or of one column (`field`). */
export interface ReportedDatasetTag {
  key: string;
  value: string;
  source: string | null;
  field: string | null;
}

/**
 * What a dataset's facets say about one column, kept per facet (docs/openlineage.md "From OpenLineage to provgraph"):
 * `schema` (its schema field, without name and nested fields), `tags` (its tags), `dataQualityMetrics`
 * (its columnMetrics, an input facet) and `provgraph_columnSamples` (its sample values).
 */
export interface ColumnFacetReport {
  field: string;
  facet: string;
  value: unknown;
}

/** What a dataset mention reports besides its name: its schema, tags, column facets and declared data subjects (keyed hashes). */
interface DatasetDetails {
  fields: SchemaField[] | null;
  tags: ReportedDatasetTag[];
  columnFacets: ColumnFacetReport[];
  /** The provgraph_dataSubjects facet's keys, as keyed hashes, each with its place in the event (and the hash it had before keys were normalised, when that differs). */
  subjects: { keyHash: string; pointer: string; legacy: string[] }[];
}

export interface InputReport extends DatasetMention, DatasetDetails {}

export interface OutputReport extends DatasetMention, DatasetDetails {
  columnLineage: OutputColumnLineage | null;
}

/** The provgraph facets (custom facets, as the spec allows): where a dataset's subjects and columns' samples are reported, and a run's determinism. */
export const DATA_SUBJECTS_FACET = "provgraph_dataSubjects";
export const COLUMN_SAMPLES_FACET = "provgraph_columnSamples";
export const DETERMINISM_FACET = "provgraph_determinism";
/** A release's privacy cost: `{ "epsilon": 0.4, "delta": 1e-6, "mechanism": "laplace" }` (a run facet). */
export const PRIVACY_COST_FACET = "provgraph_privacyCost";
/** The purpose a run acts under: `{ "purpose": "fraud-investigation" }` (a job facet: every run of the job serves it). */
export const PURPOSE_FACET = "provgraph_purpose";

/**
 * Hashes a data-subject key found at `pointer` (the erasure room's keyed hash of its normal form,
 * and `legacy`: the hash it had before keys were normalised, when that differs); throws the typed
 * refusal when the server cannot (no PROVGRAPH_ERASURE_SECRET).
 */
export type SubjectKeyHashing = (key: string, pointer: string) => { hash: string; legacy: string[] };

/** What the fold of a run reads from one of its events (stored as canonical JSON beside the event). */
export interface RunFacts {
  eventType: RunEventType;
  /** ISO instant (UTC, milliseconds). */
  eventTime: string;
  job: DatasetName;
  parent: { runId: RunId; job: DatasetName } | null;
  error: { message: string; programmingLanguage: string | null; stackTrace: string | null } | null;
  /** Facets that become the execution's params (docs/openlineage.md "From OpenLineage to provgraph"). */
  params: Record<string, unknown>;
  codeVersion: string | null;
  imageDigest: string | null;
  /** The provgraph_determinism run facet's `deterministic` (null: not reported; absent in events stored before it was read). */
  deterministic?: boolean | null;
  /** The provgraph_privacyCost run facet: the run is a differentially private release of this cost (absent: it declares none). */
  privacyCost?: { epsilon: number; delta: number; mechanism: string };
  /** The provgraph_purpose job facet's purpose (absent: the run declares none). */
  purpose?: string;
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
  /** What the schema's letter refuses and provgraph accepts (format violations), stored with the event. */
  warnings: EventWarning[];
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

/** An event with its data-subject keys hashed, and its identity: identifyEvent's answer. */
export interface IdentifiedEvent {
  event: Record<string, unknown>;
  sent: string;
  eventKey: string;
  /** The hashes data-subject keys had before keys were normalised, by hash (see SubjectKeyHashing). */
  legacy: Map<string, string[]>;
}

/**
 * Reads a schema-valid event (see OpenLineageSchema) in two steps, this one and
 * parseIdentifiedEvent, apart so that a wide event (20,000 column-lineage fields) can take a turn
 * of the event loop between them: each is a whole walk of the event. `sent` is the event as sent
 * (its JSON text). Data-subject keys (the provgraph_dataSubjects facet) never go further than
 * here: they are replaced by their keyed hashes (`hashSubjectKey`) in the event, which is then what
 * is stored and what identifies it (sha256 of its canonical JSON).
 */
export function identifyEvent(event: Record<string, unknown>, sent: string = JSON.stringify(event), hashSubjectKey?: SubjectKeyHashing): IdentifiedEvent {
  const scrubbed = scrubbedEvent(event, sent, hashSubjectKey);
  return { ...scrubbed, eventKey: eventKeyOf(canonicalJson(scrubbed.event)) };
}

/**
 * identifyEvent for a big event: the subject keys hashed in one turn, its canonical JSON (a whole
 * sorted copy of the event) built in slices between turns of the event loop (`turn`: turnSlicer).
 */
export async function identifyEventInTurns(event: Record<string, unknown>, sent: string, hashSubjectKey: SubjectKeyHashing | undefined, turn: () => Promise<void> | undefined): Promise<IdentifiedEvent> {
  const scrubbed = scrubbedEvent(event, sent, hashSubjectKey);
  await turn();
  return { ...scrubbed, eventKey: eventKeyOf(await canonicalJsonInTurns(scrubbed.event, turn)) };
}

function scrubbedEvent(event: Record<string, unknown>, sent: string, hashSubjectKey: SubjectKeyHashing | undefined): Omit<IdentifiedEvent, "eventKey"> {
  const legacy = new Map<string, string[]>();
  const scrubbed = withHashedSubjects(event, hashSubjectKey, legacy);
  return scrubbed === event ? { event, sent, legacy } : { event: scrubbed, sent: JSON.stringify(scrubbed), legacy };
}

/** An event's identity: sha256 of its canonical JSON. */
const eventKeyOf = (canonical: string) => crypto.createHash("sha256").update(canonical).digest("hex");

/** The second step: the facts of an identified event. Throws InvalidEventError for names provgraph cannot keep apart. */
export function parseIdentifiedEvent(identified: IdentifiedEvent, warnings: EventWarning[] = []): ParsedEvent {
  const { event, sent, eventKey, legacy } = identified;
  const time = parseEventTimeValue(event.eventTime);
  if (!time) throw new InvalidEventError("/eventTime", "is not a date-time");
  const base: EventBase = {
    eventKey,
    eventTime: time.date,
    producer: text(event.producer, "/producer"),
    body: sent,
    warnings,
  };
  // The kind the schema check took it for (its schemaURL, else its shape).
  const kind = eventKindOf(event);
  if (kind === "RunEvent") return parseRunEvent(event, base, legacy);
  if (kind === "DatasetEvent") return { ...base, kind: "DATASET", dataset: datasetName(record(event.dataset), "/dataset") };
  return { ...base, kind: "JOB", job: jobName(event.job, "/job") };
}

function parseRunEvent(event: Record<string, unknown>, base: EventBase, legacy: ReadonlyMap<string, string[]>): ParsedEvent {
  const run = event.run as Record<string, unknown>;
  const runId = runIdForUuid(String(run.runId));
  if (!runId) throw new InvalidEventError("/run/runId", "is not a UUID");
  // A RunEvent without an eventType is allowed by the schema; it reports no transition.
  const eventType = (event.eventType ?? "OTHER") as RunEventType;
  const job = jobName(event.job, "/job");
  const runFacets = record(run.facets);
  const jobFacets = record((event.job as Record<string, unknown>).facets);
  const inputs = list(event.inputs).map((d, i) => inputReport(d, `/inputs/${i}`, legacy));
  const outputs = list(event.outputs).map((d, i) => outputReport(d, `/outputs/${i}`, legacy));

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
  const columnSources = outputs.map((output) => columnSourcesOf(output.columnLineage));
  for (const sources of columnSources) {
    for (const source of sources ?? []) {
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
    deterministic: determinismOf(runFacets),
    ...privacyCostOf(runFacets),
    ...purposeOf(jobFacets),
    agent: isRecord(owners[0]) && typeof owners[0].name === "string" ? safe(owners[0].name, "/job/facets/ownership/owners/0/name") : null,
    inputs: [...inputMentions.values()],
    outputs: outputs.map((o, i) => ({ namespace: o.namespace, name: o.name, version: o.version, columnSources: columnSources[i] })),
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

function inputReport(value: unknown, pointer: string, legacy: ReadonlyMap<string, string[]>): InputReport {
  const dataset = record(value);
  const facets = record(dataset.facets);
  const details = datasetDetails(dataset, pointer, legacy);
  // Column metrics are an input facet: what the run measured of what it read.
  const metrics = record(record(record(dataset.inputFacets).dataQualityMetrics).columnMetrics);
  for (const [field, value] of Object.entries(metrics)) details.columnFacets.push({ field: safeName(field, `${pointer}/inputFacets/dataQualityMetrics/columnMetrics/${escapePointer(field)}`), facet: "dataQualityMetrics", value: withoutBaseFields(record(value)) });
  return { ...datasetName(dataset, pointer), version: versionOf(facets, pointer), ...details };
}

function outputReport(value: unknown, pointer: string, legacy: ReadonlyMap<string, string[]>): OutputReport {
  const dataset = record(value);
  const facets = record(dataset.facets);
  return {
    ...datasetName(dataset, pointer),
    version: versionOf(facets, pointer),
    ...datasetDetails(dataset, pointer, legacy),
    columnLineage: isRecord(facets.columnLineage) ? columnLineageOf(facets.columnLineage, `${pointer}/facets/columnLineage`) : null,
  };
}

/** A dataset's schema, tags, per-column facets and (hashed) data subjects. */
function datasetDetails(dataset: Record<string, unknown>, pointer: string, legacy: ReadonlyMap<string, string[]>): DatasetDetails {
  const facets = record(dataset.facets);
  const columnFacets: ColumnFacetReport[] = [];
  const fields = schemaFieldsOf(facets, `${pointer}/facets/schema`, columnFacets);
  const tags: ReportedDatasetTag[] = list(record(facets.tags).tags).map((item, i) => {
    const tag = record(item);
    const at = `${pointer}/facets/tags/tags/${i}`;
    return { key: text(tag.key, `${at}/key`), value: text(tag.value, `${at}/value`), source: typeof tag.source === "string" ? safe(tag.source, `${at}/source`) : null, field: typeof tag.field === "string" ? safeName(tag.field, `${at}/field`) : null };
  });
  const byField = new Map<string, { key: string; value: string; source: string | null }[]>();
  for (const t of tags) if (t.field !== null) appendTo(byField, t.field, { key: t.key, value: t.value, source: t.source });
  for (const [field, value] of byField) columnFacets.push({ field, facet: "tags", value });
  const samples = record(record(facets[COLUMN_SAMPLES_FACET]).fields);
  for (const [field, values] of Object.entries(samples)) {
    const at = `${pointer}/facets/${COLUMN_SAMPLES_FACET}/fields/${escapePointer(field)}`;
    if (!Array.isArray(values)) throw new InvalidEventError(at, "must be an array of sample values");
    columnFacets.push({ field: safeName(field, at), facet: COLUMN_SAMPLES_FACET, value: values });
  }
  const subjects = list(record(facets[DATA_SUBJECTS_FACET]).keys).map((keyHash, i) => {
    const at = `${pointer}/facets/${DATA_SUBJECTS_FACET}/keys/${i}`;
    return { keyHash: String(keyHash), pointer: at, legacy: legacy.get(at) ?? [] };
  });
  return { fields, tags, columnFacets, subjects };
}

/** The provgraph_privacyCost run facet, checked as recordExecution's privacyCost is (a refusal names the facet's member). */
function privacyCostOf(runFacets: Record<string, unknown>): { privacyCost?: { epsilon: number; delta: number; mechanism: string } } {
  if (!(PRIVACY_COST_FACET in runFacets)) return {};
  const facet = record(runFacets[PRIVACY_COST_FACET]);
  const at = `/run/facets/${PRIVACY_COST_FACET}`;
  const cost = checkPrivacyCost(facet as unknown as PrivacyCost, at, (field, reason) => new InvalidEventError(field.replace(`${at}.`, `${at}/`), reason));
  return { privacyCost: cost };
}

/** The provgraph_purpose job facet: `purpose`, a purpose name (a refusal names the member). */
function purposeOf(jobFacets: Record<string, unknown>): { purpose?: string } {
  if (!(PURPOSE_FACET in jobFacets)) return {};
  const purpose = record(jobFacets[PURPOSE_FACET]).purpose;
  if (typeof purpose !== "string" || !PURPOSE_NAME.test(purpose)) throw new InvalidEventError(`/job/facets/${PURPOSE_FACET}/purpose`, `is not a purpose: ${PURPOSE_SYNTAX}`);
  return { purpose };
}

/** The provgraph_determinism run facet: `deterministic` true or false; anything else is not reported. */
function determinismOf(runFacets: Record<string, unknown>): boolean | null {
  const facet = record(runFacets[DETERMINISM_FACET]);
  if (facet.deterministic === undefined) return null;
  if (typeof facet.deterministic !== "boolean") throw new InvalidEventError(`/run/facets/${DETERMINISM_FACET}/deterministic`, "must be true or false");
  return facet.deterministic;
}

/**
 * The event with every key of every dataset's provgraph_dataSubjects facet replaced by its keyed
 * hash (the same object when it has none). A key that is not a non-empty string is refused, and
 * without a way to hash keys the facet is refused: a key is never kept as sent.
 */
function withHashedSubjects(event: Record<string, unknown>, hash: SubjectKeyHashing | undefined, legacy: Map<string, string[]>): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const side of ["inputs", "outputs"] as const) {
    list(event[side]).forEach((dataset, i) => {
      const facet = record(record(record(dataset).facets)[DATA_SUBJECTS_FACET]);
      if (!(DATA_SUBJECTS_FACET in record(record(dataset).facets))) return;
      const at = `/${side}/${i}/facets/${DATA_SUBJECTS_FACET}/keys`;
      if (!Array.isArray(facet.keys)) throw new InvalidEventError(at, "must be an array of data-subject keys (strings)");
      const hashed = facet.keys.map((key, k) => {
        if (typeof key !== "string" || key.trim() === "") throw new InvalidEventError(`${at}/${k}`, "must be a non-empty string (a data-subject key)");
        if (key.length > 1_024) throw new InvalidEventError(`${at}/${k}`, "is longer than 1024 characters");
        if (!hash) throw new InvalidEventError(`${at}/${k}`, "cannot be recorded: this server hashes no data-subject keys");
        const hashed = hash(key, `${at}/${k}`);
        if (hashed.legacy.length > 0) legacy.set(`${at}/${k}`, hashed.legacy);
        return hashed.hash;
      });
      copy ??= structuredClone(event);
      const target = record(record((copy[side] as unknown[])[i]).facets);
      target[DATA_SUBJECTS_FACET] = { ...record(target[DATA_SUBJECTS_FACET]), keys: hashed };
    });
  }
  return copy ?? event;
}

function versionOf(facets: Record<string, unknown>, pointer: string): string | null {
  const version = record(facets.version).datasetVersion;
  return typeof version === "string" ? safeName(version, `${pointer}/facets/version/datasetVersion`) : null;
}

/** Schema facet fields, nested struct fields as dotted paths ("address.city"), in order; each field's own entry is a column facet. */
function schemaFieldsOf(facets: Record<string, unknown>, pointer: string, columnFacets: ColumnFacetReport[] = []): SchemaField[] | null {
  const schema = record(facets.schema);
  if (!Array.isArray(schema.fields)) return null;
  const fields: SchemaField[] = [];
  const visit = (items: unknown[], prefix: string, at: string) =>
    items.forEach((item, i) => {
      const field = record(item);
      const name = `${prefix}${safe(String(field.name), `${at}/${i}/name`)}`;
      const tooLong = nameLengthReason(name);
      // A nested field's name is its dotted path, which is what is stored, so the path is what is bounded.
      if (tooLong) throw new InvalidEventError(`${at}/${i}/name`, prefix ? `as a path (with its parents' names) ${tooLong}` : tooLong);
      fields.push({ field: name, type: optionalText(field.type), description: optionalText(field.description) });
      const { name: _name, fields: _nested, ...entry } = field;
      columnFacets.push({ field: name, facet: "schema", value: entry });
      if (Array.isArray(field.fields)) visit(field.fields, `${name}.`, `${at}/${i}/fields`);
    });
  visit(schema.fields, "", `${pointer}/fields`);
  return fields;
}

/**
 * A column-lineage facet's fields and dataset dependencies. A wide facet has tens of thousands of
 * fields: the JSON pointers a refusal would name are only made when one is refused (LazyPointer).
 */
function columnLineageOf(facet: Record<string, unknown>, pointer: string): OutputColumnLineage {
  const entries = record(facet.fields);
  const fields: OutputColumnLineage["fields"] = [];
  for (const field of Object.keys(entries)) {
    const entry = record(entries[field]);
    const at = () => `${pointer}/fields/${escapePointer(field)}`;
    safeNameAt(field, at, "");
    // Column lineage 1-0-x put one transformationType (IDENTITY | MASKED) on the output field.
    const legacy = typeof entry.transformationType === "string" ? entry.transformationType : null;
    const legacyDescription = typeof entry.transformationDescription === "string" ? entry.transformationDescription : null;
    const reported = list(entry.inputFields);
    const inputs: ColumnDependency[] = new Array(reported.length);
    for (let i = 0; i < reported.length; i++) inputs[i] = dependencyOf(reported[i], () => `${at()}/inputFields/${i}`, legacy, legacyDescription);
    fields.push({ field, inputs });
  }
  return { fields, dataset: list(facet.dataset).map((d, i) => dependencyOf(d, () => `${pointer}/dataset/${i}`, null, null)) };
}

/** A JSON pointer made when it is needed (a refusal names it). */
type LazyPointer = () => string;

function dependencyOf(value: unknown, pointer: LazyPointer, legacyType: string | null, legacyDescription: string | null): ColumnDependency {
  const dependency = record(value);
  const reported = list(dependency.transformations);
  const transformations: Transformation[] =
    reported.length > 0
      ? reported.map((t, i) => transformationOf(record(t), () => `${pointer()}/transformations/${i}`))
      : // No transformations (column lineage 1-0-x): the field's value reaches the output.
        [{ type: "DIRECT", subtype: legacyType, description: legacyDescription, masking: legacyType === "MASKED" }];
  const name = safeNameAt(String(dependency.name), pointer, "/name");
  if (!name.trim()) throw new InvalidEventError(`${pointer()}/name`, "must not be empty");
  return { namespace: safeNameAt(String(dependency.namespace), pointer, "/namespace"), name, field: safeNameAt(String(dependency.field), pointer, "/field"), transformations };
}

function transformationOf(t: Record<string, unknown>, pointer: LazyPointer): Transformation {
  if (t.type !== "DIRECT" && t.type !== "INDIRECT") throw new InvalidEventError(`${pointer()}/type`, `must be DIRECT or INDIRECT, got ${JSON.stringify(t.type)}`);
  return { type: t.type, subtype: optionalText(t.subtype), description: optionalText(t.description), masking: t.masking === true };
}

/** The datasets an output's column lineage names (its dataset-level sources), in order; null without column lineage. */
export function columnSourcesOf(lineage: OutputColumnLineage | null): DatasetName[] | null {
  if (!lineage) return null;
  // Keyed by namespace and name (a NUL apart: neither holds one): tens of thousands of fields may name a handful of datasets.
  const seen = new Map<string, DatasetName>();
  const note = (dependency: ColumnDependency) => {
    const key = `${dependency.namespace}\u0000${dependency.name}`;
    if (!seen.has(key)) seen.set(key, { namespace: dependency.namespace, name: dependency.name });
  };
  for (const field of lineage.fields) for (const dependency of field.inputs) note(dependency);
  for (const dependency of lineage.dataset) note(dependency);
  return [...seen.values()];
}

export const datasetKey = (d: DatasetMention) => JSON.stringify([d.namespace, d.name, d.version]);

function jobName(value: unknown, pointer: string): DatasetName {
  const job = record(value);
  const name = safeName(String(job.name), `${pointer}/name`);
  if (!name.trim()) throw new InvalidEventError(`${pointer}/name`, "must not be empty");
  return { namespace: safeName(String(job.namespace), `${pointer}/namespace`), name };
}

function datasetName(value: Record<string, unknown>, pointer: string): DatasetName {
  const name = safeName(String(value.name), `${pointer}/name`);
  if (!name.trim()) throw new InvalidEventError(`${pointer}/name`, "must not be empty");
  return { namespace: safeName(String(value.namespace), `${pointer}/namespace`), name };
}

function safe(value: string, pointer: string): string {
  const reason = unsafeTextReason(value);
  if (reason) throw new InvalidEventError(pointer, reason);
  return value;
}

/** A name (of a job, a dataset, a column…): safe, and no longer than a name may be (MAX_NAME_BYTES). */
function safeName(value: string, pointer: string): string {
  const reason = unsafeNameReason(value);
  if (reason) throw new InvalidEventError(pointer, reason);
  return value;
}

/** safeName, naming `pointer()` + `suffix` when it refuses. */
function safeNameAt(value: string, pointer: LazyPointer, suffix: string): string {
  const reason = unsafeNameReason(value);
  if (reason) throw new InvalidEventError(`${pointer()}${suffix}`, reason);
  return value;
}

function text(value: unknown, pointer: string): string {
  return safe(String(value), pointer);
}

const optionalText = (value: unknown): string | null => (typeof value === "string" ? value : null);
const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const escapePointer = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1");

import fs from "node:fs";
import path from "node:path";
import type Ajv2020 from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020";
import { type EventKind, eventKindOf, tolerantCopy } from "./tolerances";

/** Where an event breaks the schema: the JSON pointer into the event and the reason. */
export interface SchemaViolation {
  pointer: string;
  reason: string;
}

/**
 * Something an accepted event holds that the schema's letter refuses, stored with the event and
 * shown on it (docs/openlineage.md, "Warnings"): a value that does not match its `format` (Spark's
 * `dataSource.uri: "file"`, dbt's `"bigquery"`, a `sourceCodeLocation.url` that is no URI).
 */
export interface EventWarning {
  code: "FORMAT";
  pointer: string;
  reason: string;
}

/** What checking an event found: the violation that refuses it (null: it is accepted), and its warnings. */
export interface SchemaCheck {
  violation: SchemaViolation | null;
  warnings: EventWarning[];
}

/**
 * Formats provgraph itself reads, which stay strict: the event's time, its runId and its parent's
 * (an execution's id and parent are made from them). Any other `format` is a warning.
 */
const STRICT_FORMATS = new Set(["/eventTime", "/run/runId", "/run/facets/parent/run/runId", "/run/facets/parent/root/run/runId"]);

/** The core schema's facet kinds, and where in an event facets of each kind sit. */
const FACET_KINDS = ["RunFacet", "JobFacet", "DatasetFacet", "InputDatasetFacet", "OutputDatasetFacet"] as const;
type FacetKind = (typeof FACET_KINDS)[number];

/** One validator per event kind (ajv's compiled functions, from this process or from the build). */
export type EventKindValidators = Record<EventKind, ValidateFunction>;

/**
 * The module `npm run build` writes beside the compiled validator (scripts/build-openlineage-validators.mjs):
 * the same validators as ajv standalone code, so a started server loads them instead of spending a
 * second compiling the schemas. Absent when running from the sources (tsx, jest).
 */
const PRECOMPILED_MODULE = "openlineage-validators.generated.js";

/** The ids the kind validators are compiled under (the precompiled module exports them by kind). */
const KIND_SCHEMA_ID = (kind: EventKind) => `urn:provgraph:openlineage:${kind}`;
const EVENT_KINDS: readonly EventKind[] = ["RunEvent", "JobEvent", "DatasetEvent"];

/**
 * The official OpenLineage schemas, compiled once (ajv's draft 2020-12 build + ajv-formats). The
 * event schema checks the envelope and the base facet fields; it does not apply the facet schemas,
 * which OpenLineage publishes separately, keyed by facet name. provgraph applies them too: each
 * facet schema's properties (e.g. `columnLineage`) are checked wherever a facet of that name can
 * sit, found from the facet kind its definition extends (RunFacet, DatasetFacet, …). Before the
 * check, the tolerated gaps are filled in a copy (./tolerances.ts).
 */
export class OpenLineageSchema {
  private readonly kinds: EventKindValidators;

  constructor(kinds: EventKindValidators = precompiledValidators() ?? compileValidators().kinds) {
    this.kinds = kinds;
  }

  /** null when the event is valid (with the documented tolerances), else the first violation found. */
  validate(event: unknown): SchemaViolation | null {
    return this.check(event).violation;
  }

  /** The violation that refuses the event (null: accepted, with the documented tolerances), and its warnings. */
  check(event: unknown): SchemaCheck {
    if (typeof event !== "object" || event === null || Array.isArray(event)) {
      return { violation: { pointer: "", reason: `must be an object (a RunEvent, JobEvent or DatasetEvent), got ${Array.isArray(event) ? "an array" : event === null ? "null" : typeof event}` }, warnings: [] };
    }
    const copy = tolerantCopy(event as Record<string, unknown>);
    const kind = eventKindOf(copy);
    const checked = this.checkAs(kind, copy);
    if (checked.violation) return checked;
    const other = (Object.keys(this.kinds) as EventKind[]).find((k) => k !== kind && this.checkAs(k, copy).violation === null);
    if (other === undefined) return checked;
    // oneOf: valid as two kinds is no event (a job and a dataset, no run, is a JobEvent and a DatasetEvent).
    return { violation: { pointer: "", reason: `is both a ${kind} and a ${other}; an event has a run (RunEvent), a job without a run (JobEvent) or a dataset without a job or run (DatasetEvent)` }, warnings: [] };
  }

  /** The validators report every error (allErrors): a `format` one outside STRICT_FORMATS is a warning (and so is an anyOf it alone failed), any other refuses. */
  private checkAs(kind: EventKind, copy: Record<string, unknown>): SchemaCheck {
    const validateKind = this.kinds[kind];
    if (validateKind(copy)) return { violation: null, warnings: [] };
    const errors = validateKind.errors ?? [];
    const refusing = refusingErrors(errors);
    if (refusing.length > 0) return { violation: violationOf(refusing), warnings: [] };
    // Each place once, in the order found (a facet checked under two kinds of container reports once).
    const seen = new Set<string>();
    const warnings = errors.filter(isFormatWarning).flatMap((e) => (seen.has(e.instancePath) || !seen.add(e.instancePath) ? [] : [{ code: "FORMAT" as const, pointer: e.instancePath, reason: `must match format "${(e.params as { format: string }).format}"` }]));
    return { violation: null, warnings };
  }
}

const isFormatWarning = (e: ErrorObject) => e.keyword === "format" && !STRICT_FORMATS.has(e.instancePath);

/**
 * The errors that refuse an event: every error but the format warnings and the `anyOf`s that failed
 * only by them. The core schema checks every facet through an anyOf (`run.facets` is anyOf a map of
 * RunFacets), so a facet's `_producer` or `_schemaURL` that is no URI fails that anyOf as well as its
 * format; ajv reports both. An anyOf whose instance holds no error but format warnings (and anyOfs
 * excused the same way) would pass without them: a branch fails only by a keyword ajv reports, and
 * reports under the anyOf's own instance path.
 */
function refusingErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const under = (e: ErrorObject, path: string) => e.instancePath === path || e.instancePath.startsWith(`${path}/`);
  const excused = new Set<ErrorObject>();
  // Nested anyOfs (a facet's own anyOf inside the facets' one) are excused innermost first. anyOfs on
  // the same value do not hold each other back: what fails in any of their branches is reported under
  // that value, so where only formats fail there, each of them would pass without them.
  const sameValueAnyOf = (e: ErrorObject, anyOf: ErrorObject) => e.keyword === "anyOf" && e.instancePath === anyOf.instancePath;
  const blocks = (e: ErrorObject, anyOf: ErrorObject) => under(e, anyOf.instancePath) && !isFormatWarning(e) && !excused.has(e) && !sameValueAnyOf(e, anyOf);
  for (let changed = true; changed; ) {
    changed = false;
    for (const anyOf of errors) {
      if (anyOf.keyword !== "anyOf" || excused.has(anyOf)) continue;
      if (!errors.some((e) => blocks(e, anyOf))) {
        excused.add(anyOf);
        changed = true;
      }
    }
  }
  return errors.filter((e) => !isFormatWarning(e) && !excused.has(e));
}

/** The validators the build wrote, if this is a build that has them. */
function precompiledValidators(): EventKindValidators | undefined {
  const file = path.join(__dirname, PRECOMPILED_MODULE);
  if (!fs.existsSync(file)) return undefined;
  const loaded = require(file) as Partial<EventKindValidators>;
  return EVENT_KINDS.every((kind) => typeof loaded[kind] === "function") ? (loaded as EventKindValidators) : undefined;
}

/**
 * Compiles the kind validators. `source: true` keeps the generated code, so the build can write it
 * out as a standalone module (ajv/dist/standalone) that needs neither the schemas nor the compiler.
 */
export function compileValidators(options: { source?: boolean } = {}): { ajv: Ajv2020; kinds: EventKindValidators; schemaIds: Record<EventKind, string> } {
  // Required here, not at the top: a build that loads the precompiled validators never needs the compiler or the schemas.
  const { default: Ajv } = require("ajv/dist/2020") as typeof import("ajv/dist/2020");
  const { default: addFormats } = require("ajv-formats") as typeof import("ajv-formats");
  const { EVENT_SCHEMA, FACET_SCHEMAS } = require("./spec") as typeof import("./spec");
  // allErrors: a value that breaks only its format must not hide (or stand for) an error that refuses the event.
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, code: { source: options.source ?? false } });
  addFormats(ajv);
  ajv.addSchema(EVENT_SCHEMA);
  for (const schema of FACET_SCHEMAS) ajv.addSchema(schema);
  const facetProperties = facetPropertiesByKind(FACET_SCHEMAS);
  const containers = (kind: FacetKind) => ({ type: "object", properties: facetProperties[kind] });
  const dataset = { facets: containers("DatasetFacet") };
  const facets = {
    properties: {
      run: { properties: { facets: containers("RunFacet") } },
      job: { properties: { facets: containers("JobFacet") } },
      inputs: { items: { properties: { ...dataset, inputFacets: containers("InputDatasetFacet") } } },
      outputs: { items: { properties: { ...dataset, outputFacets: containers("OutputDatasetFacet") } } },
      dataset: { properties: dataset },
    },
  };
  const core = EVENT_SCHEMA.$id;
  // The event schema is oneOf RunEvent, DatasetEvent, JobEvent: one validator per kind gives the
  // reason of the kind the event claims to be (oneOf would report every branch's failure).
  const kind = (name: EventKind) => ajv.compile({ $id: KIND_SCHEMA_ID(name), allOf: [{ $ref: `${core}#/$defs/${name}` }, facets] });
  const kinds = { RunEvent: kind("RunEvent"), JobEvent: kind("JobEvent"), DatasetEvent: kind("DatasetEvent") };
  const schemaIds = Object.fromEntries(EVENT_KINDS.map((name) => [name, KIND_SCHEMA_ID(name)])) as Record<EventKind, string>;
  return { ajv, kinds, schemaIds };
}

/** The most specific error: ajv lists a failing branch's own error before the combinator that wraps it. */
function violationOf(errors: readonly ErrorObject[]): SchemaViolation {
  const specific = errors.find((e) => !["anyOf", "oneOf", "allOf", "not", "if"].includes(e.keyword)) ?? errors[0];
  if (!specific) return { pointer: "", reason: "does not match the OpenLineage schema" };
  const params = specific.params as Record<string, unknown>;
  switch (specific.keyword) {
    case "required":
      return { pointer: `${specific.instancePath}/${escapePointer(String(params.missingProperty))}`, reason: "is required and missing" };
    case "enum":
      return { pointer: specific.instancePath, reason: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "additionalProperties":
      return { pointer: `${specific.instancePath}/${escapePointer(String(params.additionalProperty))}`, reason: "is not allowed here" };
    case "not":
      return { pointer: specific.instancePath, reason: "must not match the schema it excludes (a JobEvent has no run; a DatasetEvent has no job and run)" };
    default:
      return { pointer: specific.instancePath, reason: specific.message ?? "does not match the OpenLineage schema" };
  }
}

const escapePointer = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * For each facet kind, the facet names OpenLineage defines for it, each as a $ref to its definition:
 * a facet schema's top-level property (e.g. `schema`) refers to a definition that extends a core
 * facet kind (`…/OpenLineage.json#/$defs/DatasetFacet`), directly or through an anyOf of definitions.
 */
function facetPropertiesByKind(facetSchemas: readonly Record<string, unknown>[]): Record<FacetKind, Record<string, { $ref: string }>> {
  const byKind = Object.fromEntries(FACET_KINDS.map((kind) => [kind, {}])) as Record<FacetKind, Record<string, { $ref: string }>>;
  for (const schema of facetSchemas as { $id: string; $defs?: unknown; properties?: unknown }[]) {
    const defs = (schema.$defs ?? {}) as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    for (const [name, property] of Object.entries(properties)) {
      for (const kind of kindsOf(property, defs, new Set())) byKind[kind][name] = { $ref: `${schema.$id}#/properties/${name}` };
    }
  }
  return byKind;
}

function kindsOf(node: unknown, defs: Record<string, unknown>, seen: Set<string>): Set<FacetKind> {
  const kinds = new Set<FacetKind>();
  if (typeof node !== "object" || node === null) return kinds;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string") {
    const core = /OpenLineage\.json#\/\$defs\/(\w+)$/.exec(ref);
    if (core && (FACET_KINDS as readonly string[]).includes(core[1])) kinds.add(core[1] as FacetKind);
    const local = /^#\/\$defs\/(\w+)$/.exec(ref);
    if (local && !seen.has(local[1])) {
      seen.add(local[1]);
      for (const kind of kindsOf(defs[local[1]], defs, seen)) kinds.add(kind);
    }
  }
  for (const combinator of ["allOf", "anyOf", "oneOf"]) {
    const list = (node as Record<string, unknown>)[combinator];
    if (Array.isArray(list)) for (const item of list) for (const kind of kindsOf(item, defs, seen)) kinds.add(kind);
  }
  return kinds;
}

import { epochMillisOf, withZone } from "./event-time";

/**
 * What real producers send that the 2-0-x schema, read literally, refuses — and provgraph accepts.
 * Each is filled in a copy used only for the schema check (the event is stored exactly as sent, and
 * nothing is derived from the filled values):
 *  - eventTime without a zone: read as UTC (a "Z" is added for the check); eventTime as epoch
 *    milliseconds (an integer, or a string of one): that instant (its ISO form for the check);
 *  - a missing schemaURL: the 2-0-2 URL of the event's kind;
 *  - a facet without `_producer` / `_schemaURL` (hand-written and test events omit them): the
 *    event's producer and provgraph's marker URN.
 * Nothing else is relaxed: a present `_producer` that is not a URI, `_deleted` that is not a boolean,
 * a runId that is not a UUID, … are refused with the schema's reason. Unknown (custom) facets pass
 * the base facet check and are kept.
 */
export const SCHEMA_URLS = {
  RunEvent: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
  JobEvent: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
  DatasetEvent: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
} as const;

export type EventKind = keyof typeof SCHEMA_URLS;

/** The facet `_schemaURL` used for the check when a facet carries none. */
export const UNSPECIFIED_FACET_SCHEMA = "urn:provgraph:openlineage:facet-schema-unspecified";
const UNKNOWN_PRODUCER = "urn:provgraph:openlineage:producer-unspecified";

const FACET_CONTAINERS = new Set(["facets", "inputFacets", "outputFacets"]);

/**
 * The kind an event claims to be: the one its schemaURL names (…#/definitions/JobEvent,
 * …#/$defs/DatasetEvent: the last segment of its path, as Marquez decides), else by its shape: a run
 * (or an eventType) makes a RunEvent, a dataset without a job a DatasetEvent, else a JobEvent.
 */
export function eventKindOf(event: Record<string, unknown>): EventKind {
  if (typeof event.schemaURL === "string") {
    const named = event.schemaURL.slice(event.schemaURL.lastIndexOf("/") + 1);
    if (named in SCHEMA_URLS) return named as EventKind;
  }
  if ("run" in event || "eventType" in event) return "RunEvent";
  if ("dataset" in event && !("job" in event)) return "DatasetEvent";
  return "JobEvent";
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What the schema check sees (see above): the event itself when nothing needs filling (the common
 * case: no copy), else a copy with the gaps filled. `event` is not modified.
 */
export function tolerantCopy(event: Record<string, unknown>): Record<string, unknown> {
  const millis = epochMillisOf(event.eventTime);
  const zoned = millis === undefined && (typeof event.eventTime !== "string" || withZone(event.eventTime) === event.eventTime);
  if (zoned && event.schemaURL !== undefined && !hasFacetGaps(event)) return event;
  const copy = structuredClone(event);
  if (millis !== undefined) copy.eventTime = new Date(millis).toISOString();
  else if (typeof copy.eventTime === "string") copy.eventTime = withZone(copy.eventTime);
  if (copy.schemaURL === undefined) copy.schemaURL = SCHEMA_URLS[eventKindOf(copy)];
  const producer = typeof copy.producer === "string" ? copy.producer : UNKNOWN_PRODUCER;
  forEachFacet(copy, (facet) => {
    if (!("_producer" in facet)) facet._producer = producer;
    if (!("_schemaURL" in facet)) facet._schemaURL = UNSPECIFIED_FACET_SCHEMA;
  });
  return copy;
}

function hasFacetGaps(event: Record<string, unknown>): boolean {
  let gaps = false;
  forEachFacet(event, (facet) => {
    if (!("_producer" in facet) || !("_schemaURL" in facet)) gaps = true;
  });
  return gaps;
}

/** Every facet in every facet container, however deep (a parent facet carries run and job facets of its own). */
function forEachFacet(event: Record<string, unknown>, visit: (facet: Record<string, unknown>) => void): void {
  const pending: unknown[] = [event];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === "object" && item !== null) pending.push(item);
      continue;
    }
    if (!isRecord(node)) continue;
    for (const key in node) {
      const value = node[key];
      if (typeof value !== "object" || value === null) continue;
      if (FACET_CONTAINERS.has(key) && isRecord(value)) for (const facetName in value) if (isRecord(value[facetName])) visit(value[facetName] as Record<string, unknown>);
      pending.push(value);
    }
  }
}

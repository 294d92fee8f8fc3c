/**
 * What one OpenLineage request may carry (docs/openlineage.md "Limits"). A body over a
 * limit is refused whole (413) before it is parsed; an event over the per-event limit inside a batch
 * is refused alone.
 */
export const OPENLINEAGE_LIMITS = {
  /** Bytes of one event (its JSON text, after gzip is undone). */
  maxEventBytes: 5 * 1024 * 1024,
  /** Bytes of one batch request (a JSON array or NDJSON, after gzip is undone), and of any body as sent. */
  maxBatchBytes: 50 * 1024 * 1024,
  /** Events in one batch request or one ingestOpenLineageEvents mutation. */
  maxBatchEvents: 10_000,
  /** Events in one ingestOpenLineageEvents mutation. */
  maxMutationEvents: 1_000,
  /** Datasets (inputs and outputs) one event names: each is a dataset version, a link and an edge to write in the event's unit. */
  maxEventDatasets: 100_000,
  /** Objects and arrays nested in one event (as for JSON arguments of the GraphQL API). */
  maxJsonDepth: 64,
} as const;

import { ProvenanceError } from "../../plugins/errors";
import type { ProvgraphPlugin } from "../../plugins/types";
import type { DatabaseProvider } from "../db/database-url";
import { jsonDepthExceeds } from "../limits/json-depth";
import { cappedText, cappedValue, ECHO_LIMITS } from "../services/echo-limits";
import { databaseOutageOf } from "../services/errors";
import type { RunId } from "../services/ids";
import { type CommitPath, type OperationRegistry, type RecordingActor, turnSlicer, yieldToEventLoop } from "../services/recording";
import type { ExecutionStatus } from "../services/records";
import { EventTooDeepError, EventTooLargeError, InvalidEventError, TooManyDatasetsError } from "./errors";
import { nulIn } from "./nul-text";
import { identifyEvent, identifyEventInTurns, parseIdentifiedEvent, type ParsedEvent, type SubjectKeyHashing } from "./event-facts";
import { OPENLINEAGE_LIMITS } from "./limits";
import { type EventOutcome, EventRefusal, recordEvents } from "./record-events";
import { nextRecordingInstant } from "./recording-clock";
import { type EventWarning, OpenLineageSchema } from "./schema-validator";
import type { Logger } from "../logger";
import type { SubjectKeys } from "../services/compliance";

export type EventResultStatus = "STORED" | "DUPLICATE" | "REFUSED";

/** What became of one event: stored, already stored (a duplicate), or refused with why. */
export interface EventResult {
  /** Its position in the request (0 for a single event). */
  index: number;
  status: EventResultStatus;
  kind: ParsedEvent["kind"] | null;
  runId: RunId | null;
  /** The run's execution status once this event is recorded (RunEvents). */
  executionStatus: ExecutionStatus | null;
  error: EventError | null;
  /** What the event holds that the schema's letter refuses and provgraph accepts (stored with it); empty when refused. */
  warnings: EventWarning[];
}

export interface EventError {
  code: string;
  message: string;
  /** JSON pointer into the event (RFC 6901), "" for the event as a whole, null when no one place is at fault. */
  pointer: string | null;
  reason: string | null;
  details: Record<string, unknown>;
  /** Our fault behind an INTERNAL_SERVER_ERROR: logged with its stack by the caller, never sent. */
  fault?: unknown;
}

/** One event as a transport received it: the parsed JSON and, when the transport has it, its text as sent. */
export interface ReceivedEvent {
  event: unknown;
  text?: string;
}

export interface OpenLineageIngestorDeps {
  commits: CommitPath;
  registry: OperationRegistry;
  plugins: readonly ProvgraphPlugin[];
  provider: DatabaseProvider;
  /** Where our faults are logged (with their stack and the request id); the caller only sees INTERNAL_SERVER_ERROR. */
  logger: Pick<Logger, "error">;
  /** Hashes the data-subject keys of the provgraph_dataSubjects facet as events arrive (absent: such events are refused). */
  subjectKeys?: SubjectKeys;
  /** Told every ingestion's results, whatever the transport (the server's metrics); it only counts. */
  observeResults?: (results: readonly EventResult[]) => void;
}

/** An event this large (its JSON text, bytes) is checked in several turns of the event loop. */
const BIG_EVENT_BYTES = 256 * 1024;

/** Events one recording unit holds at most: its write lock is held for a few hundred milliseconds at worst. */
export const CHUNK_EVENTS = 250;

let sharedSchema: OpenLineageSchema | undefined;

/** The compiled schemas, once per process (compiling them takes a few hundred milliseconds). */
export function openLineageSchema(): OpenLineageSchema {
  return (sharedSchema ??= new OpenLineageSchema());
}

/**
 * OpenLineage ingestion, for every transport (POST /api/v1/lineage, its batch form, the
 * ingestOpenLineageEvents mutation): each event is checked (size, depth, the official schema,
 * names), then recorded on the commit path, atomically and independently of the others — one bad
 * event in a batch refuses that event alone.
 */
export class OpenLineageIngestor {
  private readonly schema = openLineageSchema();

  constructor(private readonly deps: OpenLineageIngestorDeps) {}

  /**
   * Events are recorded in the order given, in chunks of up to CHUNK_EVENTS: each chunk is one
   * recording unit with a fixed number of statements, so a batch costs a few statements per chunk
   * rather than per event. Each event stays atomic: a chunk with an event the store refuses is rolled
   * back whole and its events recorded one by one, each in a unit of its own. The results are in
   * the order given. `requestId` labels the log lines of our faults.
   */
  async ingest(events: readonly ReceivedEvent[], requestId?: string, actor?: RecordingActor): Promise<EventResult[]> {
    const results: EventResult[] = new Array(events.length);
    const checked: { index: number; event: ParsedEvent }[] = [];
    // Checking is CPU work (schema, parse): a batch of events is checked a slice at a time between other requests' turns.
    const slice = turnSlicer();
    for (const [index, received] of events.entries()) {
      await slice();
      try {
        checked.push({ index, event: await this.check(received.event, received.text) });
      } catch (error) {
        results[index] = refusal(index, eventErrorOf(error));
      }
    }
    let outage: EventError | undefined;
    for (let start = 0; start < checked.length; start += CHUNK_EVENTS) {
      const chunk = checked.slice(start, start + CHUNK_EVENTS);
      // Once the database is found unavailable, the events after are not tried: each would wait to fail the same way.
      const recorded = outage === undefined ? await this.record(chunk, actor) : chunk.map(({ index, event }) => unrecorded(index, event, outage!));
      for (const result of recorded) {
        results[result.index] = result;
        if (result.error?.code === "DATABASE_UNAVAILABLE") outage ??= result.error;
      }
    }
    for (const result of results) {
      if (result.error?.fault !== undefined) this.deps.logger.error({ requestId, index: result.index, runId: result.runId, err: result.error.fault }, "unexpected error while ingesting an OpenLineage event");
    }
    try {
      this.deps.observeResults?.(results);
    } catch {
      // counting never costs an ingestion its answer
    }
    return results;
  }

  /** One chunk as one unit; if it fails, its events one by one (only the culprit is refused). */
  private async record(chunk: readonly { index: number; event: ParsedEvent }[], actor: RecordingActor | undefined): Promise<EventResult[]> {
    const deps = { ...this.deps, actor };
    const run = (items: readonly { index: number; event: ParsedEvent }[]) =>
      this.deps.commits.run((tx, scope) => recordEvents(tx, scope, deps, items.map((i) => i.event), items.map(() => nextRecordingInstant())));
    const stored = (index: number, event: ParsedEvent, outcome: EventOutcome): EventResult => ({
      index,
      status: outcome.status,
      kind: event.kind,
      runId: outcome.runId,
      executionStatus: outcome.executionStatus,
      error: null,
      warnings: event.warnings,
    });
    const failed = (index: number, event: ParsedEvent, error: unknown): EventResult => ({
      ...refusal(index, eventErrorOf(error instanceof EventRefusal ? error.error : error)),
      kind: event.kind,
      runId: event.kind === "RUN" ? event.runId : null,
    });
    if (chunk.length > 1) {
      try {
        const outcomes = await run(chunk);
        return chunk.map(({ index, event }, i) => stored(index, event, outcomes[i]));
      } catch (error) {
        // An outage takes every event of the chunk alike; otherwise each event alone, so one refusal (or fault) cannot take the others with it.
        if (databaseOutageOf(error)) return chunk.map(({ index, event }) => failed(index, event, error));
      }
    }
    const results: EventResult[] = [];
    for (const item of chunk) {
      try {
        const [outcome] = await run([item]);
        results.push(stored(item.index, item.event, outcome));
      } catch (error) {
        results.push(failed(item.index, item.event, error));
      }
    }
    return results;
  }

  /**
   * Everything that can be checked without the database. A big event (a wide column-lineage facet)
   * takes a turn of the event loop between its phases, so its checks never hold it all at once.
   */
  private async check(event: unknown, sent: string | undefined): Promise<ParsedEvent> {
    if (jsonDepthExceeds(event, OPENLINEAGE_LIMITS.maxJsonDepth)) throw new EventTooDeepError(OPENLINEAGE_LIMITS.maxJsonDepth);
    const text = sent ?? JSON.stringify(event) ?? "";
    const size = Buffer.byteLength(text);
    if (size > OPENLINEAGE_LIMITS.maxEventBytes) throw new EventTooLargeError(size, OPENLINEAGE_LIMITS.maxEventBytes);
    const datasets = datasetCount(event);
    if (datasets > OPENLINEAGE_LIMITS.maxEventDatasets) throw new TooManyDatasetsError(datasets, OPENLINEAGE_LIMITS.maxEventDatasets);
    const between = size > BIG_EVENT_BYTES ? yieldToEventLoop : () => undefined;
    await between();
    const { violation, warnings } = this.schema.check(event);
    if (violation) throw new InvalidEventError(violation.pointer, violation.reason);
    await between();
    const subjectKeys = this.deps.subjectKeys;
    const hashing: SubjectKeyHashing | undefined = subjectKeys ? (key, pointer) => ({ hash: subjectKeys.hash(key, { pointer }), legacy: subjectKeys.legacyHashes(key, { pointer }) }) : undefined;
    // A big event's identity (a sorted copy of all of it, ~100 ms for 20,000 column-lineage fields) is built in slices.
    const identified = size > BIG_EVENT_BYTES ? await identifyEventInTurns(event as Record<string, unknown>, text, hashing, turnSlicer()) : identifyEvent(event as Record<string, unknown>, text, hashing);
    await between();
    const parsed = parseIdentifiedEvent(identified, listedWarnings(warnings));
    await between();
    // Names were checked by the parse, with their rules; any other string may still hold a NUL.
    // A NUL in JSON text is always the escape \u0000 (raw control characters are not JSON): without one, there is none to find.
    const nul = text.includes("\\u0000") ? nulIn(event) : undefined;
    if (nul) throw new InvalidEventError(nul.pointer, `contains the control character U+0000 at index ${nul.index}, which provgraph does not store`);
    return parsed;
  }
}

/** At most ECHO_LIMITS.items warnings are kept (each pointer cut to ECHO_LIMITS); the rest are counted in a last one. */
function listedWarnings(warnings: readonly EventWarning[]): EventWarning[] {
  const listed = warnings.slice(0, ECHO_LIMITS.items).map((w) => ({ ...w, pointer: cappedText(w.pointer) }));
  if (warnings.length > ECHO_LIMITS.items) listed.push({ code: "FORMAT", pointer: "", reason: `${warnings.length - ECHO_LIMITS.items} more values do not match their format (not listed)` });
  return listed;
}

function datasetCount(event: unknown): number {
  const length = (list: unknown) => (Array.isArray(list) ? list.length : 0);
  return event !== null && typeof event === "object" ? length((event as { inputs?: unknown }).inputs) + length((event as { outputs?: unknown }).outputs) : 0;
}

/** An event not tried because the database was found unavailable before its turn. */
function unrecorded(index: number, event: ParsedEvent, outage: EventError): EventResult {
  return { ...refusal(index, outage), kind: event.kind, runId: event.kind === "RUN" ? event.runId : null };
}

function refusal(index: number, error: EventError): EventResult {
  return { index, status: "REFUSED", kind: null, runId: null, executionStatus: null, error, warnings: [] };
}

function eventErrorOf(error: unknown): EventError {
  const outage = databaseOutageOf(error);
  if (outage) return { code: outage.code, message: outage.message, pointer: null, reason: null, details: outage.details };
  if (error instanceof ProvenanceError) {
    // Messages and details may quote the event: cut to ECHO_LIMITS.
    const details = cappedValue(error.details);
    return {
      code: error.code,
      message: cappedText(error.message),
      pointer: typeof details.pointer === "string" ? details.pointer : null,
      reason: typeof details.reason === "string" ? details.reason : null,
      details,
    };
  }
  return { code: "INTERNAL_SERVER_ERROR", message: "Unexpected error.", pointer: null, reason: null, details: {}, fault: error };
}


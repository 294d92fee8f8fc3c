import { ProvenanceError } from "../../plugins/errors";
import type { ProvgraphPlugin } from "../../plugins/types";
import type { DatabaseProvider } from "../db/database-url";
import { jsonDepthExceeds } from "../limits/json-depth";
import type { RunId } from "../services/ids";
import type { CommitPath, OperationRegistry } from "../services/recording";
import type { ExecutionStatus } from "../services/records";
import { EventTooDeepError, EventTooLargeError, InvalidEventError } from "./errors";
import { parseEvent, type ParsedEvent } from "./event-facts";
import { OPENLINEAGE_LIMITS } from "./limits";
import { recordEvent } from "./record-event";
import { OpenLineageSchema } from "./schema-validator";
import type { Logger } from "../logger";

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

/** One event as a transport received it: the parsed JSON and, when known, the bytes of its text. */
export interface ReceivedEvent {
  event: unknown;
  bytes?: number;
}

export interface OpenLineageIngestorDeps {
  commits: CommitPath;
  registry: OperationRegistry;
  plugins: readonly ProvgraphPlugin[];
  provider: DatabaseProvider;
  /** Where our faults are logged (with their stack and the request id); the caller only sees INTERNAL_SERVER_ERROR. */
  logger: Pick<Logger, "error">;
}

let sharedSchema: OpenLineageSchema | undefined;

/** The compiled schemas, once per process (compiling them takes a few hundred milliseconds). */
export function openLineageSchema(): OpenLineageSchema {
  return (sharedSchema ??= new OpenLineageSchema());
}

/**
 * OpenLineage ingestion, for every transport (POST /api/v1/lineage, its batch form, the
 * ingestOpenLineageEvents mutation): each event is checked (size, depth, the official schema,
 * names) and recorded as one atomic unit on the commit path, independently of the others — one
 * bad event in a batch refuses that event alone.
 */
export class OpenLineageIngestor {
  private readonly schema = openLineageSchema();

  constructor(private readonly deps: OpenLineageIngestorDeps) {}

  /** Events are recorded in the order given; the results are in that order too. `requestId` labels the log lines of our faults. */
  async ingest(events: readonly ReceivedEvent[], requestId?: string): Promise<EventResult[]> {
    const results: EventResult[] = [];
    for (const [index, received] of events.entries()) {
      const result = await this.ingestOne(index, received);
      if (result.error?.fault !== undefined) this.deps.logger.error({ requestId, index, runId: result.runId, err: result.error.fault }, "unexpected error while ingesting an OpenLineage event");
      results.push(result);
    }
    return results;
  }

  private async ingestOne(index: number, { event, bytes }: ReceivedEvent): Promise<EventResult> {
    const refused = (error: EventError): EventResult => ({ index, status: "REFUSED", kind: null, runId: null, executionStatus: null, error });
    let parsed: ParsedEvent;
    try {
      parsed = this.check(event, bytes);
    } catch (error) {
      return refused(eventErrorOf(error));
    }
    try {
      const outcome = await this.deps.commits.run((tx, scope) => recordEvent(tx, scope, this.deps, parsed, new Date()));
      return { index, status: outcome.status, kind: parsed.kind, runId: outcome.runId, executionStatus: outcome.executionStatus, error: null };
    } catch (error) {
      return { ...refused(eventErrorOf(error)), kind: parsed.kind, runId: parsed.kind === "RUN" ? parsed.runId : null };
    }
  }

  /** Everything that can be checked without the database. */
  private check(event: unknown, bytes: number | undefined): ParsedEvent {
    if (jsonDepthExceeds(event, OPENLINEAGE_LIMITS.maxJsonDepth)) throw new EventTooDeepError(OPENLINEAGE_LIMITS.maxJsonDepth);
    const size = bytes ?? Buffer.byteLength(JSON.stringify(event) ?? "");
    if (size > OPENLINEAGE_LIMITS.maxEventBytes) throw new EventTooLargeError(size, OPENLINEAGE_LIMITS.maxEventBytes);
    const violation = this.schema.validate(event);
    if (violation) throw new InvalidEventError(violation.pointer, violation.reason);
    return parseEvent(event as Record<string, unknown>);
  }
}

function eventErrorOf(error: unknown): EventError {
  if (error instanceof ProvenanceError) {
    const details = error.details;
    return {
      code: error.code,
      message: error.message,
      pointer: typeof details.pointer === "string" ? details.pointer : null,
      reason: typeof details.reason === "string" ? details.reason : null,
      details,
    };
  }
  return { code: "INTERNAL_SERVER_ERROR", message: "Unexpected error.", pointer: null, reason: null, details: {}, fault: error };
}

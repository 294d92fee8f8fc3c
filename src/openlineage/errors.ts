import { DomainError } from "../services/errors";

/**
 * Why an OpenLineage event was refused. `pointer` is the JSON pointer (RFC 6901) of the offending
 * place in the event as sent ("" = the event itself), `reason` what is wrong there.
 */
export class InvalidEventError extends DomainError {
  readonly code = "INVALID_EVENT";
  constructor(
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(`${pointer === "" ? "the event" : pointer}: ${reason}`, { pointer, reason });
  }
}

/** An event over the per-event size limit (inside a batch; a single-event body over it is a 413 before parsing). */
export class EventTooLargeError extends DomainError {
  readonly code = "EVENT_TOO_LARGE";
  constructor(bytes: number, limit: number) {
    super(`the event is ${bytes} bytes; at most ${limit} bytes are accepted per event`, { limit, found: bytes, pointer: "", reason: `larger than ${limit} bytes` });
  }
}

/** An event naming more datasets (inputs and outputs) than one event may. */
export class TooManyDatasetsError extends DomainError {
  readonly code = "EVENT_TOO_LARGE";
  constructor(found: number, limit: number) {
    super(`the event names ${found} datasets (inputs and outputs); at most ${limit} are accepted per event`, { limit, found, pointer: "/inputs", reason: `more than ${limit} datasets (inputs and outputs)` });
  }
}

/** An event nesting objects and arrays deeper than the limit (refused before anything walks it). */
export class EventTooDeepError extends DomainError {
  readonly code = "JSON_TOO_DEEP";
  constructor(limit: number) {
    super(`the event nests objects and arrays more than ${limit} levels deep`, { limit, pointer: "", reason: `nested more than ${limit} levels deep` });
  }
}

/**
 * A request body the route cannot read as events: not JSON, not gzip, too large, an unknown
 * encoding. `status` is the HTTP status it answers.
 */
export class LineageBodyError extends DomainError {
  constructor(
    readonly code: "INVALID_JSON" | "INVALID_GZIP" | "PAYLOAD_TOO_LARGE" | "JSON_TOO_DEEP" | "UNSUPPORTED_ENCODING" | "EMPTY_BODY" | "TOO_MANY_EVENTS" | "NOT_AN_EVENT_LIST" | "BODY_TOO_SLOW" | "BODY_INCOMPLETE",
    readonly status: 400 | 408 | 413 | 415,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message, details);
  }
}

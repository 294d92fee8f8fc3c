import { ProvenanceError } from "../../plugins/errors";
import { isDatabaseUnavailable } from "../db/unavailable";

/**
 * Expected failures of the core, each with a stable code. The GraphQL layer turns them into
 * errors with `extensions.code` (and the details); anything else is masked. They share their
 * base with the lineage errors plugins throw (plugins/errors.ts).
 */
export abstract class DomainError extends ProvenanceError {}

/** A well-formed id of the right kind names nothing stored. */
export class NotFoundError extends DomainError {
  readonly code = "NOT_FOUND";
  constructor(kind: string, id: string, field?: string) {
    super(`${kind} ${id} does not exist`, { kind, id, ...(field ? { field } : {}) });
  }
}

/** An argument is not a well-formed id of the kind it must be. */
export class InvalidIdError extends DomainError {
  readonly code = "INVALID_ID";
  constructor(field: string, id: string, expected: string) {
    super(`${field}: '${id}' is not a valid ${expected} id`, { field, id, expected });
  }
}

/** A pagination cursor this server did not hand out. */
export class InvalidCursorError extends DomainError {
  readonly code = "INVALID_CURSOR";
  constructor(field: string, cursor: string) {
    super(`${field}: '${cursor}' is not a cursor returned by this connection`, { field, cursor });
  }
}

/** `first`/`last` outside 0…cap. */
export class PageSizeError extends DomainError {
  readonly code = "PAGE_SIZE";
  constructor(field: string, value: number, max: number) {
    super(`${field} must be between 0 and ${max}, got ${value}`, { field, value, max });
  }
}

/** Any other argument that is out of its allowed range or shape. */
export class InvalidArgumentError extends DomainError {
  readonly code = "INVALID_ARGUMENT";
  constructor(field: string, reason: string) {
    super(`${field}: ${reason}`, { field, reason });
  }
}

/** A pipeline step already runs a different operation: steps, like all provenance, are immutable. */
export class StepConflictError extends DomainError {
  readonly code = "STEP_CONFLICT";
  constructor(pipeline: string, step: number, existing: string, attempted: string) {
    super(`step ${step} of pipeline '${pipeline}' runs ${existing}; it cannot also run ${attempted}`, { field: "step", pipeline, step, existing, attempted });
  }
}

/**
 * A read whose answer would be too big to serve in one piece (docs: "Limits and budgets"): the
 * caller narrows it (`argument`, when one narrows it) or fetches it another way (`alternative`).
 * Refused before the answer is built, so it costs the server little.
 */
export class ResultTooLargeError extends DomainError {
  readonly code = "RESULT_TOO_LARGE";
  constructor(what: string, found: number, limit: number, counted: string, how: { field?: string; argument?: string; alternative?: string }) {
    const advice = [how.argument ? `lower ${how.argument}` : null, how.alternative ?? null].filter((a) => a !== null).join(", or ");
    super(`${what} has ${found.toLocaleString("en-US")} ${counted}; at most ${limit.toLocaleString("en-US")} are served in one answer${advice ? `: ${advice}` : ""}`, {
      limit,
      found,
      ...(how.field ? { field: how.field } : {}),
      ...(how.argument ? { argument: how.argument } : {}),
      ...(how.alternative ? { alternative: how.alternative } : {}),
    });
  }
}

/** A content hash that is not `<algorithm>:<digest>` in one of the supported forms. */
export class InvalidContentHashError extends DomainError {
  readonly code = "INVALID_CONTENT_HASH";
  constructor(field: string, value: string, reason: string, expected: string) {
    super(`${field}: ${quoted(value)} is not a content hash: ${reason}. Expected ${expected}`, { field, reason, expected });
  }
}

/** A caller's value as error messages quote it: enough to recognise it, never a huge echo. */
export function quoted(value: string, max = 80): string {
  return value.length <= max ? `'${value}'` : `'${value.slice(0, max)}…' (${value.length} characters)`;
}

/** Seconds a client is asked to wait before retrying when the database is unavailable (Retry-After). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The database cannot be reached or used right now (down, restarting, out of connections): a
 * retryable condition, not a fault of the request, answered with HTTP 503 and Retry-After. Says
 * nothing about where the database is (no host, port or driver text). A write it interrupted may or
 * may not have committed (a connection cut during COMMIT): a retry with the same idempotencyKey is
 * answered with the first result, never recorded twice.
 */
export class DatabaseOutageError extends DomainError {
  readonly code = "DATABASE_UNAVAILABLE";
  readonly http = { status: 503, headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) } };
  constructor() {
    super(`the database is unavailable; retry in ${DATABASE_RETRY_AFTER_SECONDS} s`, { retryable: true, retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS });
  }
}

/**
 * A write kept meeting deadlocks or serialization failures (or, on SQLite, a busy database) and the
 * commit path ran out of attempts (it runs the whole transaction again a few times first):
 * retryable, HTTP 503 with Retry-After. Nothing of it was committed.
 */
export class TransactionConflictError extends DomainError {
  readonly code = "TRANSACTION_CONFLICT";
  readonly http = { status: 503, headers: { "Retry-After": "1" } };
  constructor(attempts: number, cause: unknown) {
    super(`the write met concurrent writes ${attempts} times in a row and was not recorded; retry in 1 s`, { attempts, retryable: true, retryAfterSeconds: 1 });
    this.cause = cause;
  }
}

/**
 * A recording's transaction ran past the commit path's time limit (`timeoutMs`) and was rolled back
 * while this recording ran in it: nothing of it was committed (the other recordings it shared the
 * transaction with are written in another). A write that big on a database that busy: retryable,
 * HTTP 503 with Retry-After, or split the recording.
 */
export class TransactionTimeoutError extends DomainError {
  readonly code = "TRANSACTION_TIMEOUT";
  readonly http = { status: 503, headers: { "Retry-After": "1" } };
  constructor(timeoutMs: number, cause: unknown) {
    super(`the write's transaction ran past its time limit of ${timeoutMs.toLocaleString("en-US")} ms and was rolled back; nothing of it was recorded`, { timeoutMs, retryable: true, retryAfterSeconds: 1 });
    this.cause = cause;
  }
}

/**
 * The client closed the connection before its answer: the request's remaining work stops (a search
 * between its statements, heavy reads waiting for a thread or at their next check) and nothing is
 * answered. Only the request log sees it.
 */
export class RequestAbortedError extends DomainError {
  readonly code = "REQUEST_ABORTED";
  constructor() {
    super("the client closed the request before its answer; its remaining work was stopped", {});
  }
}

/** Throws RequestAbortedError once `signal` (the request's) has aborted. */
export function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RequestAbortedError();
}

/** The typed outage an error stands for (undefined when it is something else). */
export function databaseOutageOf(error: unknown): DatabaseOutageError | undefined {
  if (error instanceof DatabaseOutageError) return error;
  return error instanceof ProvenanceError || !isDatabaseUnavailable(error) ? undefined : new DatabaseOutageError();
}

/** An idempotency key already recorded another request: a retry must send the same input with its key. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = "IDEMPOTENCY_KEY_REUSED";
  constructor(key: string, runId: string) {
    super(`idempotencyKey ${quoted(key)} was first used for a different request (recorded as ${runId}); a retry must send the same input, a new recording a new key`, {
      field: "idempotencyKey",
      runId,
    });
  }
}

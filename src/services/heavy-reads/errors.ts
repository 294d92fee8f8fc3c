import { DomainError } from "../errors";

/**
 * A request's heavy reads ran past its time budget (QUERY_BUDGET_MS): the work was ended (its
 * thread stopped if it was still running, its connection freed) and nothing of it is answered.
 */
export class QueryTimeoutError extends DomainError {
  readonly code = "QUERY_TIMEOUT";
  constructor(budgetMs: number) {
    super(`the request's reads did not finish within its time budget of ${budgetMs.toLocaleString("en-US")} ms and were stopped; narrow the request (a smaller first, maxDepth or upToStep)`, {
      budgetMs,
    });
  }
}

/** An expected failure as it crosses from a heavy-read thread: its code, message, details and HTTP hint. */
export interface ReportedDomainError {
  kind: "domain";
  code: string;
  message: string;
  details: Record<string, unknown>;
  http?: { status: number; headers: Record<string, string> };
}

/** One of our faults as it crosses from a heavy-read thread: logged with its stack, never sent. */
export interface ReportedFault {
  kind: "fault";
  name: string;
  message: string;
  stack?: string;
}

export type ReportedError = ReportedDomainError | ReportedFault;

/** An expected failure raised in a heavy-read thread, as the GraphQL layer and the routes present it. */
export class HeavyReadDomainError extends DomainError {
  readonly code: string;
  readonly http?: ReportedDomainError["http"];
  constructor(reported: ReportedDomainError) {
    super(reported.message, reported.details);
    this.code = reported.code;
    if (reported.http) this.http = reported.http;
  }
}

/** The error a report stands for, on this side of the thread boundary. */
export function revive(reported: ReportedError): Error {
  if (reported.kind === "domain") return new HeavyReadDomainError(reported);
  const fault = new Error(reported.message);
  fault.name = reported.name;
  if (reported.stack) fault.stack = reported.stack;
  return fault;
}

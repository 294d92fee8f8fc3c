/**
 * A failed request, as the page explains it: the server's typed error (its `extensions.code`, the field
 * it names, its message) or a transport failure. `hint` says what a user can do about the well-known codes.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly field?: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  get hint(): string | undefined {
    return HINTS[this.code];
  }
}

/** Any failure as an ApiError: a typed one as it is, anything else (a fault of the page) as INTERNAL_SERVER_ERROR. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(String((error as Error | undefined)?.message ?? error), "INTERNAL_SERVER_ERROR");
}

const HINTS: Record<string, string> = {
  QUERY_TIMEOUT: "The server stopped this query at its time budget. Ask for less: a smaller depth, one direction, or fewer nodes.",
  OVERLOADED: "The server is busy with other heavy work and refused this one rather than queue it. Try again in a moment.",
  UNAUTHENTICATED: "This server needs an API token. Paste one with the Token button (it is kept for this tab only).",
  FORBIDDEN: "Your token lacks the scope this needs (read, or a clearance for a tagged value).",
  NOT_FOUND: "Nothing with that id is recorded here. It may have been typed wrong, or recorded after the as-of time.",
  PAGE_SIZE: "The page asked for is larger than the server allows.",
  COST_LIMIT_EXCEEDED: "The query would cost more than the server allows: lower the depth or the number of nodes.",
  NETWORK: "The server could not be reached. Is provgraph still running?",
};

interface GraphQLErrorJson {
  message: string;
  extensions?: Record<string, unknown>;
}

/** The first error of a GraphQL response, typed. */
export function apiErrorOf(errors: readonly GraphQLErrorJson[], status: number): ApiError {
  const first = errors[0] ?? { message: `HTTP ${status}` };
  const extensions = first.extensions ?? {};
  const code = typeof extensions.code === "string" ? extensions.code : status === 401 ? "UNAUTHENTICATED" : status === 403 ? "FORBIDDEN" : "INTERNAL_SERVER_ERROR";
  const field = typeof extensions.field === "string" ? extensions.field : undefined;
  return new ApiError(first.message, code, field, extensions);
}

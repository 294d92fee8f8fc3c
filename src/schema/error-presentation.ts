import { PothosValidationError } from "@pothos/core";
import { GraphQLError } from "graphql";
import { createGraphQLError } from "graphql-yoga";
import { ProvenanceError } from "../../plugins/errors";
import { cappedText, cappedValue } from "../services/echo-limits";
import { databaseOutageOf } from "../services/errors";

/**
 * How errors leave the API. A caller's mistake keeps its message and carries a stable
 * `extensions.code` (plus the offending field and values for our own errors); anything else is
 * one of our faults: masked as INTERNAL_SERVER_ERROR, its original kept for the request log
 * (faultBehind), never sent.
 *
 * The caller's mistakes, by where they are found:
 * - before execution: a malformed body (BAD_REQUEST), syntax (GRAPHQL_PARSE_FAILED), validation
 *   (GRAPHQL_VALIDATION_FAILED), request limits (src/limits), variables that do not fit their
 *   types (BAD_USER_INPUT, graphql-js's own message);
 * - while executing: ProvenanceError (NOT_FOUND, INVALID_ID, …) and Pothos argument validation.
 * Not a mistake and not a fault: the database being unavailable (DATABASE_UNAVAILABLE, HTTP 503 +
 * Retry-After, however the driver said it).
 */
export function presentError(error: unknown): GraphQLError {
  presented.add(error as object);
  const graphqlError = error instanceof GraphQLError ? error : undefined;
  const original = databaseOutageOf(graphqlError?.originalError ?? error) ?? graphqlError?.originalError ?? error;
  const location = graphqlError ? { nodes: graphqlError.nodes, source: graphqlError.source, positions: graphqlError.positions, path: graphqlError.path } : {};
  if (original instanceof ProvenanceError) {
    // An error may say how the HTTP response should answer it (auth: 401/403 and WWW-Authenticate);
    // Yoga applies `extensions.http` and never sends it.
    const http = (original as { http?: unknown }).http;
    return keep(createGraphQLError(cappedText(original.message), { ...location, extensions: { code: original.code, ...cappedValue(original.details), ...(http ? { http } : {}) } }));
  }
  if (original instanceof PothosValidationError) {
    return keep(createGraphQLError(cappedText(original.message), { ...location, extensions: { code: "INVALID_ARGUMENT" } }));
  }
  if (graphqlError && isRequestError(graphqlError)) return keep(presentRequestError(graphqlError));
  const masked = createGraphQLError("Unexpected error.", { ...location, extensions: { code: "INTERNAL_SERVER_ERROR" } });
  faults.set(masked, original);
  return keep(masked);
}

/** The error a masked INTERNAL_SERVER_ERROR stands for (undefined for a caller's mistake). */
export function faultBehind(error: unknown): unknown {
  return error instanceof GraphQLError ? faults.get(error) : undefined;
}

/** Whether presentError has handled this error (so whoever logs it can leave that to the request log). */
export function wasPresented(error: unknown): boolean {
  return typeof error === "object" && error !== null && presented.has(error);
}

const faults = new WeakMap<GraphQLError, unknown>();
const presented = new WeakSet<object>();

function keep(error: GraphQLError): GraphQLError {
  presented.add(error);
  return error;
}

/**
 * An error about the request rather than a field: raised by the parser, a validation rule or a
 * request limit (a GraphQLError of its own), by variable coercion (a GraphQLError wrapping the
 * scalar's or input type's GraphQLError), or by argument coercion during execution (a GraphQLError
 * naming the argument node). A GraphQLError a resolver or a serializer raised from our own data
 * is not one: it has a path and no argument node.
 */
function isRequestError(error: GraphQLError): boolean {
  const cause = error.originalError;
  if (cause === undefined || cause === null) return true;
  if (!(cause instanceof GraphQLError)) return false;
  if (error.path === undefined) return true;
  return cause.originalError === undefined && (cause.nodes?.length ?? 0) > 0 && /^Argument "/.test(cause.message);
}

function presentRequestError(error: GraphQLError): GraphQLError {
  const extensions: Record<string, unknown> = { ...error.extensions };
  let code = typeof extensions.code === "string" ? extensions.code : undefined;
  const causeCode = error.originalError instanceof GraphQLError ? error.originalError.extensions?.code : undefined;
  if (code === "BAD_REQUEST") {
    // Yoga attaches the JSON parser's message, which quotes the body: a 10 MB bad body would come back whole.
    delete extensions.originalError;
    // GraphQL over HTTP: a body that is not JSON is a 400 whatever the Accept header. A method the
    // endpoint does not take keeps Yoga's 405 and its Allow header (a mutation by GET: the spec's MUST).
    const http = extensions.http as { status?: unknown } | undefined;
    const status = typeof http?.status === "number" && http.status > 400 ? http.status : 400;
    extensions.http = { ...http, spec: false, status };
  } else if (code === undefined) {
    // Variables (and operation names) that do not fit the document, found before execution; a scalar
    // that refuses a value with a code of its own (JSON_TOO_DEEP) keeps it.
    code = typeof causeCode === "string" ? causeCode : "BAD_USER_INPUT";
    // GraphQL over HTTP: 400 with application/graphql-response+json, 200 with application/json.
    extensions.http = { ...(extensions.http as object), spec: true, status: 400 };
  }
  // Messages quote what the caller sent (graphql-js prints an invalid value), as may extensions: cut to ECHO_LIMITS.
  const message = cappedText(error.message);
  const capped = cappedValue(extensions);
  if (code === extensions.code && code !== "BAD_REQUEST" && message === error.message && capped === extensions) return error;
  return createGraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...capped, code },
  });
}

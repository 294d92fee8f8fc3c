import { randomUUID } from "node:crypto";
import type { GraphQLError, GraphQLSchema } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { Logger } from "../logger";
import { faultBehind } from "../schema/error-presentation";
import { loggableMessage } from "./log-safe-message";

/**
 * What a request's errors leave in the log. Our faults: one error-level line each, with the
 * original error (stack included) and the request id. A caller's mistakes: one info line for the
 * whole request, however many there are (1,000 bad ids are one line), with counts by code and the
 * first message; never a stack, never at error level.
 */
export function logRequestOutcome(logger: Logger, requestId: string, transport: "http" | "ws", errors: readonly GraphQLError[] | undefined, schema?: GraphQLSchema): void {
  if (!errors?.length) return;
  const clientErrors: GraphQLError[] = [];
  for (const error of errors) {
    const fault = faultBehind(error);
    if (fault === undefined) clientErrors.push(error);
    else logger.error({ requestId, transport, err: fault, path: error.path }, "unexpected error while executing a request");
  }
  if (clientErrors.length === 0) return;
  const codes: Record<string, number> = {};
  for (const error of clientErrors) {
    const code = String(error.extensions?.code ?? "UNCODED");
    codes[code] = (codes[code] ?? 0) + 1;
  }
  const [first] = clientErrors;
  // Not the caller's doing: the operator should hear of it (the cause was logged where it was met, if anywhere).
  if (codes.DATABASE_UNAVAILABLE) logger.warn({ requestId, transport, errors: codes.DATABASE_UNAVAILABLE }, "request answered DATABASE_UNAVAILABLE: the database cannot be reached");
  logger.info(
    { requestId, transport, errors: clientErrors.length, codes, first: { code: first.extensions?.code, message: loggableMessage(first, schema).slice(0, 200), path: first.path } },
    "request answered with client errors",
  );
}

/** One id per HTTP request, shared by the GraphQL context (resolvers) and the request log. */
export function requestIdOf(request: Request | undefined): string {
  if (!request) return randomUUID();
  let id = requestIds.get(request);
  if (!id) requestIds.set(request, (id = randomUUID()));
  return id;
}

const requestIds = new WeakMap<Request, string>();

/** Logs each HTTP request's errors once its result is known (parse, validation and execution alike). */
export function useRequestLog(logger: Logger, schema: GraphQLSchema): Plugin {
  return {
    onResultProcess({ request, result }) {
      if (isAsyncIterable(result)) return;
      for (const single of Array.isArray(result) ? result : [result]) {
        logRequestOutcome(logger, requestIdOf(request), "http", single.errors as readonly GraphQLError[] | undefined, schema);
      }
    },
  };
}

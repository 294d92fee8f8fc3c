import { PothosValidationError } from "@pothos/core";
import { createGraphQLError } from "graphql-yoga";
import { GraphQLError } from "graphql";
import { ProvenanceError } from "../../plugins/errors";
import type { Logger } from "../logger";

/**
 * How errors leave the API. Expected failures (ProvenanceError: DomainError and the lineage errors) keep their message and carry a
 * stable `extensions.code` plus the offending field and values; errors graphql-js raises for
 * a malformed request keep theirs; anything else is masked and logged with the request id.
 */
export function presentError(error: unknown, logger: Logger): Error {
  const graphqlError = error instanceof GraphQLError ? error : undefined;
  const original = graphqlError?.originalError ?? error;
  const location = graphqlError ? { nodes: graphqlError.nodes, source: graphqlError.source, positions: graphqlError.positions, path: graphqlError.path } : {};
  if (original instanceof ProvenanceError) {
    return createGraphQLError(original.message, { ...location, extensions: { code: original.code, ...original.details } });
  }
  if (original instanceof PothosValidationError) {
    return createGraphQLError(original.message, { ...location, extensions: { code: "INVALID_ARGUMENT" } });
  }
  if (graphqlError && !graphqlError.originalError) return graphqlError;
  logger.error({ err: original, path: graphqlError?.path }, "unexpected error while executing a request");
  return createGraphQLError("Unexpected error.", { ...location, extensions: { code: "INTERNAL_SERVER_ERROR" } });
}

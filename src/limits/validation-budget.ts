import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * DOCUMENT_TOO_COMPLEX instead of graphql-js's bare "Validation aborted.". Since 16.15, graphql-js
 * stops validating a document once a fixed amount of work is spent on it: comparing the fields of
 * one name in a selection (a field repeated a thousand times costs half a million comparisons) or
 * following fragments spread in fragments. It reports that as an error with no code, no location
 * and no reason, which Yoga then calls GRAPHQL_VALIDATION_FAILED like a misspelt field. The
 * document is refused either way; this says why and what to change.
 */
export function useValidationBudget(): Plugin {
  return {
    onValidate:
      () =>
      ({ result, setResult }) => {
        if (result.some(isValidationAbort)) setResult(result.map((error: Error) => (isValidationAbort(error) ? tooComplex() : error)));
      },
  };
}

/** graphql-js's abort: one shared error object, message only (graphql/validation/validationAbortedError). */
function isValidationAbort(error: Error): boolean {
  return error instanceof GraphQLError && error.message === "Validation aborted." && !error.nodes?.length && error.extensions?.code === undefined;
}

function tooComplex(): GraphQLError {
  return new GraphQLError(
    "The document is too complex to validate: GraphQL's validator gives up after a fixed amount of work, spent here on fields of the same name repeated in one selection or on fragments spread within fragments. Ask for each field once per selection, and spread each fragment once.",
    { extensions: { code: "DOCUMENT_TOO_COMPLEX", http: { spec: true, status: 400 } } },
  );
}

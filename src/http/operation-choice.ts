import { type DocumentNode, type GraphQLError, Kind, type OperationDefinitionNode } from "graphql";
import { createGraphQLError, type Plugin } from "graphql-yoga";
import { cappedText } from "../services/echo-limits";

/**
 * Which operation of the document to run, checked as soon as it is parsed, with a message that says
 * what is wrong. Yoga answers every such mistake "Could not determine what operation to execute."
 * (OPERATION_RESOLUTION_FAILURE): a document saved with several operations and no operationName, a
 * misspelt operationName, a document of fragments only. The code stays Yoga's, answered as the other
 * request errors are (GraphQL over HTTP: 400 to application/graphql-response+json, 200 to
 * application/json); an operationName that is not a string (the spec: a string or null) is
 * BAD_REQUEST, as the other parameters' types are. graphql-ws asks operationChoiceError itself.
 */
export function useOperationChoice(): Plugin {
  return {
    onParse() {
      return ({ result, context }) => {
        const { request, params } = context as { request?: Request; params?: { operationName?: unknown } };
        if (!request || !isDocument(result)) return;
        const refusal = operationChoiceError(result, params?.operationName);
        if (refusal) throw refusal;
      };
    },
  };
}

/**
 * The error for a document none of whose operations can be run under `operationName` (graphql-js's
 * getOperationAST rule), or undefined when one can. graphql-ws's own answer to the same mistake,
 * "Unable to identify operation", carries no code: src/http/graphql-ws.ts asks this first.
 */
export function operationChoiceError(document: DocumentNode, operationName: unknown): GraphQLError | undefined {
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") {
    return createGraphQLError(`Expected "operationName" param to be a string or null, but given ${Array.isArray(operationName) ? "array" : typeof operationName}.`, {
      // Not a well-formed GraphQL-over-HTTP request: 400 whatever the Accept header, as Yoga answers the other parameters.
      extensions: { code: "BAD_REQUEST", http: { status: 400 } },
    });
  }
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const problem = choiceProblem(operations, operationName || undefined);
  return problem ? createGraphQLError(problem, { extensions: { code: "OPERATION_RESOLUTION_FAILURE", http: { spec: true, status: 400 } } }) : undefined;
}

function isDocument(value: unknown): value is DocumentNode {
  return typeof value === "object" && value !== null && (value as DocumentNode).kind === Kind.DOCUMENT;
}

/** Why no single operation can be chosen, or undefined when one can (graphql-js's getOperationAST rule). */
function choiceProblem(operations: readonly OperationDefinitionNode[], name: string | undefined): string | undefined {
  const names = listOfNames(operations);
  if (operations.length === 0) return "The document holds no operation to run, only fragments: add a query, mutation or subscription.";
  if (operations.length > 1 && operations.some((operation) => !operation.name)) {
    return `The document holds ${operations.length} operations (${names}), and an unnamed operation must be a document's only one: name each, and the one to run in "operationName".`;
  }
  if (name === undefined) {
    return operations.length > 1 ? `The document holds ${operations.length} operations (${names}): name the one to run in "operationName".` : undefined;
  }
  if (operations.some((operation) => operation.name?.value === name)) return undefined;
  return `The document holds no operation named ${JSON.stringify(cappedText(name))}; it holds ${names}.`;
}

function listOfNames(operations: readonly OperationDefinitionNode[]): string {
  const shown = operations.slice(0, 10).map((operation) => (operation.name ? operation.name.value : `an unnamed ${operation.operation}`));
  return operations.length > shown.length ? `${shown.join(", ")} and ${operations.length - shown.length} more` : shown.join(", ");
}

import { useGraphQlJit } from "@envelop/graphql-jit";
import { getOperationAST, getVariableValues, Kind, type OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * Closures answered by compiled queries (graphql-jit): a `lineage` closure is tens of thousands of
 * objects, and graphql-js resolves each of their fields one by one (with a resolve info each);
 * a compiled query resolves the same fields in a fraction of the time (docs/performance.md).
 * Only for operations made of `lineage` fields alone, and only once graphql-js has found their
 * variables valid: graphql-jit words variable errors differently and has been seen to drop the
 * null items of a list whose items may fail (nodes(ids)), so everything else keeps the standard
 * executor, and so do the errors every client sees.
 */
const COMPILED_ROOT_FIELDS = new Set(["lineage", "__typename"]);

/** Whether an operation runs compiled: a query whose root selections are all `lineage` fields (or __typename). */
export function isCompiledOperation(operation: OperationDefinitionNode): boolean {
  return operation.operation === "query" && operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && COMPILED_ROOT_FIELDS.has(selection.name.value));
}

export function useCompiledLineage(): Plugin {
  return useGraphQlJit(
    {},
    {
      enableIf: ({ document, operationName, schema, variableValues }) => {
        const operation = getOperationAST(document, operationName);
        if (!operation || !isCompiledOperation(operation)) return false;
        return !getVariableValues(schema, operation.variableDefinitions ?? [], (variableValues as Record<string, unknown>) ?? {}).errors;
      },
    },
  ) as Plugin;
}

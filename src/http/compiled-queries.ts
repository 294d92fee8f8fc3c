import type { useGraphQlJit as UseGraphQlJit } from "@envelop/graphql-jit";
import { type DocumentNode, getOperationAST, getVariableValues, type GraphQLSchema, Kind, type OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * Closures answered by compiled queries (graphql-jit): a `lineage` closure is tens of thousands of
 * objects, and graphql-js resolves each of their fields one by one (with a resolve info each);
 * a compiled query resolves the same fields in a fraction of the time (docs/performance.md). The
 * lineage graphs (`lineageGraph`, `expand`) are thousands of nodes and edges, and gain the same way;
 * `search` and `autocomplete`, a search box's requests sent at every keystroke, are small answers
 * whose executor's share is large (a page of hits resolved compiled: 0.05–0.3 ms less server CPU a request).
 * Only for operations made of those fields alone, and only once graphql-js has found their
 * variables valid: graphql-jit words variable errors differently and has been seen to drop the
 * null items of a list whose items may fail (nodes(ids)), so everything else keeps the standard
 * executor, and so do the errors every client sees.
 */
const COMPILED_ROOT_FIELDS = new Set(["lineage", "lineageGraph", "expand", "search", "autocomplete", "__typename"]);

/** Whether an operation runs compiled: a query whose root selections are all such fields (or __typename). */
export function isCompiledOperation(operation: OperationDefinitionNode): boolean {
  return operation.operation === "query" && operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && COMPILED_ROOT_FIELDS.has(selection.name.value));
}

export function useCompiledQueries(): Plugin {
  // graphql-jit (and the fast-json-stringify and ajv it brings) is loaded by the first operation that
  // runs compiled, not at start-up: most servers start long before anyone asks for a closure.
  let jit: Plugin | undefined;
  const compiled = () => {
    const { useGraphQlJit } = require("@envelop/graphql-jit") as { useGraphQlJit: typeof UseGraphQlJit };
    return (jit ??= useGraphQlJit() as Plugin);
  };
  const runsCompiled = ({ document, operationName, schema, variableValues }: { document: unknown; operationName?: string | null; schema: GraphQLSchema; variableValues?: unknown }) => {
    const operation = getOperationAST(document as DocumentNode, operationName);
    if (!operation || !isCompiledOperation(operation)) return false;
    return !getVariableValues(schema, operation.variableDefinitions ?? [], (variableValues as Record<string, unknown>) ?? {}).errors;
  };
  return {
    onExecute(payload) {
      if (runsCompiled(payload.args)) return compiled().onExecute?.(payload);
    },
    onSubscribe(payload) {
      if (runsCompiled(payload.args)) return compiled().onSubscribe?.(payload);
    },
  };
}

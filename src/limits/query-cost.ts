import { type DocumentNode, getNamedType, getOperationAST, GraphQLError, type GraphQLSchema, isInputObjectType, type OperationDefinitionNode, typeFromAST, validate } from "graphql";
import { createComplexityRule } from "graphql-query-complexity";
import type { Plugin } from "graphql-yoga";
import { costEstimators } from "./cost-estimators";
import { formatCount, limitError } from "./limit-error";
import { REQUEST_LIMITS } from "./request-limits";

/**
 * The estimated cost of an operation (graphql-query-complexity with costEstimators): every field
 * selected costs 1, each aliased copy and each spread fragment again, and a list multiplies what is
 * selected inside it by the items it can hold; of fragments on an interface or union, the costliest
 * type counts. So `lineage(first: 50000) { nodes { artifactId depth } }` costs 1 + 50,000 × 3.
 * Infinity when the operation has more than maxCostedSelections selections once its fragments are
 * spread: the library stops counting there, and spreading is what makes counting slow.
 */
export function estimateCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Readonly<Record<string, unknown>> | null): number {
  // No such operation, or a name is needed: execution refuses it.
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  let cost = 0;
  const rule = createComplexityRule({
    maximumComplexity: Infinity,
    estimators: costEstimators(),
    // The library reads the name of every operation when given one: an anonymous one is estimated alone.
    operationName: operation.name?.value,
    variables: variables ? variablesForCost(schema, operation, variables) : undefined,
    maxQueryNodes: REQUEST_LIMITS.maxCostedSelections + 1,
    onComplete: (complexity) => {
      cost = complexity;
    },
  });
  try {
    // A variable or an argument that does not fit is reported here and left for execution to refuse
    // (BAD_USER_INPUT): the field it belongs to does not run, and costs nothing. Every report, or
    // graphql-js stops at 100 and the count is never completed.
    validate(schema, document, [rule], { maxErrors: Infinity });
  } catch (error) {
    // The only GraphQLError the library throws: more selections than maxQueryNodes.
    if (error instanceof GraphQLError) return Infinity;
    throw error;
  }
  return cost;
}

/**
 * The variables as the estimate needs them. The library coerces every variable again (execution does
 * too), which for a recording's input — tens of thousands of output drafts — costs tens of ms. No
 * cost depends on what is inside an input object, so the lists inside input-object variables (and a
 * list of input objects itself) are cut to their first item: the value still fits its type, so the
 * operation is still estimated (a variable that does not fit would leave it uncosted).
 */
function variablesForCost(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const shrunk: Record<string, unknown> = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (type && isInputObjectType(getNamedType(type)) && name in shrunk) shrunk[name] = firstItems(shrunk[name]);
  }
  return shrunk;
}

function firstItems(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 1).map(firstItems);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, firstItems(item)]));
  return value;
}

/**
 * QUERY_TOO_COSTLY when an operation's estimate is above `maxCost`, or it cannot be estimated
 * (more than maxCostedSelections selections), checked as it is about to run, when its variables are
 * known (validation, and Yoga's cache of it, sees only the document).
 */
export function useQueryCostLimit(maxCost: number): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const cost = estimateCost(args.schema, args.document, args.operationName, args.variableValues as Record<string, unknown> | null | undefined);
      if (typeof args.contextValue === "object" && args.contextValue !== null) costs.set(args.contextValue, cost);
      if (cost <= maxCost) return;
      const { maxCostedSelections } = REQUEST_LIMITS;
      const refusal = Number.isFinite(cost)
        ? limitError(
            "QUERY_TOO_COSTLY",
            `The operation's estimated cost is ${formatCount(cost)}; at most ${formatCount(maxCost)} is accepted. ` +
              "Ask for fewer items (first, last, ids), fewer aliased copies or less nesting.",
            { limit: maxCost, found: Math.round(cost) },
          )
        : limitError(
            "QUERY_TOO_COSTLY",
            `The operation has more than ${formatCount(maxCostedSelections)} selections once its fragments are spread; at most ${formatCount(maxCostedSelections)} are accepted. Spread fewer fragments.`,
            { limit: maxCostedSelections },
          );
      setResultAndStopExecution({ errors: [refusal] });
    },
  };
}

const costs = new WeakMap<object, number>();

/** The estimate useQueryCostLimit made for the operation running with this context (admission control reads it). */
export function estimatedCostOf(context: unknown): number | undefined {
  return typeof context === "object" && context !== null ? costs.get(context) : undefined;
}

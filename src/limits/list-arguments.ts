import { type FieldNode, getOperationAST, GraphQLError, Kind, type OperationDefinitionNode, type ValueNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { presentError } from "../schema/error-presentation";
import { rootFieldsOf } from "../schema/root-fields";
import { InvalidArgumentError } from "../services/errors";
import { tooManyGraphRoots } from "../services/lineage-graph";
import { REQUEST_LIMITS } from "./request-limits";

/** INVALID_ARGUMENT (field `ids`) for a nodes(ids) call over maxNodeIds ids; undefined within it. */
export function tooManyNodeIds(count: number): InvalidArgumentError | undefined {
  const { maxNodeIds } = REQUEST_LIMITS;
  return count > maxNodeIds ? new InvalidArgumentError("ids", `at most ${maxNodeIds} ids in one call, got ${count}`) : undefined;
}

/** A filter list (kinds, types, artifactTypes) over maxFilterItems items. */
function tooManyFilterItems(argument: string) {
  return (count: number): InvalidArgumentError | undefined => {
    const { maxFilterItems } = REQUEST_LIMITS;
    return count > maxFilterItems ? new InvalidArgumentError(argument, `at most ${maxFilterItems} items, got ${count}`) : undefined;
  };
}

/** A list argument of a query field, and what refuses it for its length (undefined: within bounds). */
export interface BoundedList {
  argument: string;
  refusal(count: number): InvalidArgumentError | undefined;
}

/** Every list argument of a query field, by field (test/api/bad-input.test.ts holds the schema to it). */
export const BOUNDED_LISTS: Readonly<Record<string, BoundedList>> = {
  nodes: { argument: "ids", refusal: tooManyNodeIds },
  lineageGraph: { argument: "roots", refusal: tooManyGraphRoots },
  search: { argument: "kinds", refusal: tooManyFilterItems("kinds") },
  autocomplete: { argument: "kinds", refusal: tooManyFilterItems("kinds") },
  columnLineage: { argument: "types", refusal: tooManyFilterItems("types") },
  lineage: { argument: "artifactTypes", refusal: tooManyFilterItems("artifactTypes") },
  provJson: { argument: "artifactTypes", refusal: tooManyFilterItems("artifactTypes") },
};

/**
 * The list arguments of a query's root fields, refused for their length as the operation is about
 * to run: the whole operation (`data: null`), with the error the field's resolver gives where it has
 * one, at the field's response key. The executor would first coerce every item, one by one: a
 * million ids or kinds (11–47 MB, within the body limit) held the event loop for 100–250 ms, and
 * 100,000 ids for hundreds of ms under a development build of graphql-js. The length is read from
 * the variables as sent (or the list as written), so nothing is coerced before it is refused.
 */
export function useListArgumentLimits(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== "query") return;
      const variables = (args.variableValues ?? {}) as Record<string, unknown>;
      const errors: GraphQLError[] = [];
      for (const [responseKey, nodes] of rootFieldsOf(args.schema, args.document, operation, args.schema.getQueryType()!, variables)) {
        const bounded = BOUNDED_LISTS[nodes[0].name.value];
        const refusal = bounded?.refusal(itemsSent(nodes[0], bounded.argument, operation, variables));
        if (refusal) errors.push(presentError(new GraphQLError(refusal.message, { nodes, path: [responseKey], originalError: refusal })));
      }
      if (errors.length > 0) setResultAndStopExecution({ data: null, errors });
    },
  };
}

/** How many items a field's list argument was sent: 0 when that is no list (the executor answers for it). */
function itemsSent(field: FieldNode, argument: string, operation: OperationDefinitionNode, variables: Record<string, unknown>): number {
  const value = field.arguments?.find((candidate) => candidate.name.value === argument)?.value;
  if (value?.kind !== Kind.VARIABLE) return listLength(value);
  const name = value.name.value;
  if (name in variables) return Array.isArray(variables[name]) ? (variables[name] as unknown[]).length : 0;
  return listLength(operation.variableDefinitions?.find((definition) => definition.variable.name.value === name)?.defaultValue);
}

function listLength(value: ValueNode | undefined): number {
  return value?.kind === Kind.LIST ? value.values.length : 0;
}

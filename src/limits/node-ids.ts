import { type FieldNode, getOperationAST, GraphQLError, Kind } from "graphql";
import type { Plugin } from "graphql-yoga";
import { presentError } from "../schema/error-presentation";
import { rootFieldsOf } from "../schema/root-fields";
import { InvalidArgumentError } from "../services/errors";
import { REQUEST_LIMITS } from "./request-limits";

/** INVALID_ARGUMENT (field `ids`) for a nodes(ids) call over maxNodeIds ids; undefined within it. */
export function tooManyNodeIds(count: number): InvalidArgumentError | undefined {
  const { maxNodeIds } = REQUEST_LIMITS;
  return count > maxNodeIds ? new InvalidArgumentError("ids", `at most ${maxNodeIds} ids in one call, got ${count}`) : undefined;
}

/**
 * nodes(ids) over maxNodeIds ids refused as the operation is about to run, with the error its
 * resolver would give (at the field's response key, `data: null`: the field is non-null). The
 * executor would first coerce every id, one by one: 100,000 of them hold the event loop for tens of
 * ms in production and for hundreds under a development build of graphql-js. The length is read
 * from the variables as sent (or the list as written), before anything coerces them.
 */
export function useNodeIdsLimit(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== "query") return;
      const variables = (args.variableValues ?? {}) as Record<string, unknown>;
      const errors: GraphQLError[] = [];
      for (const [responseKey, nodes] of rootFieldsOf(args.schema, args.document, operation, args.schema.getQueryType()!, variables)) {
        if (nodes[0].name.value !== "nodes") continue;
        const refusal = tooManyNodeIds(idsCount(nodes[0], variables));
        if (!refusal) continue;
        errors.push(presentError(new GraphQLError(refusal.message, { nodes, path: [responseKey], originalError: refusal })));
      }
      if (errors.length > 0) setResultAndStopExecution({ data: null, errors });
    },
  };
}

/** How many ids a nodes field was sent: 0 when that is not a list (the executor answers for it). */
function idsCount(field: FieldNode, variables: Record<string, unknown>): number {
  const value = field.arguments?.find((argument) => argument.name.value === "ids")?.value;
  if (value?.kind === Kind.LIST) return value.values.length;
  if (value?.kind !== Kind.VARIABLE) return 0;
  const sent = variables[value.name.value];
  return Array.isArray(sent) ? sent.length : 0;
}

import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import type { GraphQLError, ValidationContext } from "graphql";
import type { Plugin } from "graphql-yoga";
import { useDocumentShapeLimits } from "./document-shape";
import { formatCount, limitError } from "./limit-error";
import { mutationCountRule } from "./mutation-count";
import { useListArgumentLimits } from "./list-arguments";
import { useQueryCostLimit } from "./query-cost";
import { REQUEST_LIMITS } from "./request-limits";
import { useValidationBudget } from "./validation-budget";

export { REQUEST_LIMITS } from "./request-limits";
export { formatCount, type LimitCode, limitError } from "./limit-error";
export { BOUNDED_LISTS, type BoundedList, tooManyNodeIds } from "./list-arguments";

/**
 * Every request limit, as Yoga plugins in the order they apply: the document's length and bracket
 * nesting before parsing, its tokens while parsing, depth, aliases and mutation count as validation
 * rules (and graphql-js's own validation budget, reported as ours), and the lengths of its list
 * arguments and its cost as it is about to run (when its variables are known). graphql-armor and
 * graphql-query-complexity do the generic counting; their refusals are re-issued with our codes and
 * messages (armor words every one of them as a "Syntax Error").
 */
export function useRequestLimits(): Plugin[] {
  const { maxTokens, maxDepth, maxAliases, maxCost, maxMutations } = REQUEST_LIMITS;
  return [
    useDocumentShapeLimits(),
    maxTokensPlugin({
      n: maxTokens,
      onReject: [
        () => {
          throw limitError("TOO_MANY_TOKENS", `The document has more than ${formatCount(maxTokens)} tokens; at most ${formatCount(maxTokens)} are accepted. Pass large inputs as variables.`, {
            limit: maxTokens,
          });
        },
      ],
    }),
    maxDepthPlugin({
      n: maxDepth,
      flattenFragments: true,
      propagateOnRejection: false,
      onReject: [
        reportAs((found) =>
          limitError("QUERY_TOO_DEEP", `The operation nests fields ${found ? `${found} levels deep` : `more than ${maxDepth} levels deep`}; at most ${maxDepth} levels are accepted.`, {
            limit: maxDepth,
            found,
          }),
        ),
      ],
    }),
    maxAliasesPlugin({
      n: maxAliases,
      propagateOnRejection: false,
      onReject: [
        reportAs((found) =>
          limitError("TOO_MANY_ALIASES", `The operation has ${found ? formatCount(found) : `more than ${maxAliases}`} aliased fields; at most ${maxAliases} are accepted.`, {
            limit: maxAliases,
            found,
          }),
        ),
      ],
    }),
    { onValidate: ({ addValidationRule }) => addValidationRule(mutationCountRule(maxMutations)) },
    useValidationBudget(),
    useListArgumentLimits(),
    useQueryCostLimit(maxCost),
  ];
}

/** An armor refusal reported as a validation error of ours; armor's message carries "found N". */
function reportAs(error: (found: number | undefined) => GraphQLError) {
  return (context: ValidationContext | null, refusal: GraphQLError) => {
    const found = /found (\d+)/.exec(refusal.message)?.[1];
    context?.reportError(error(found === undefined ? undefined : Number(found)));
  };
}

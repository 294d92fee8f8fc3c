import { Kind, type SelectionSetNode, type ValidationContext, type ValidationRule } from "graphql";
import { formatCount, limitError } from "./limit-error";

/**
 * TOO_MANY_MUTATIONS when one mutation operation carries more than `max` root fields (aliased
 * copies and fragments included): each is a write transaction, run one after another, and 10,000
 * of them would hold the request for many seconds.
 */
export function mutationCountRule(max: number): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      if (operation.operation !== "mutation") return;
      const count = countRootFields(operation.selectionSet, context, new Set());
      if (count > max) {
        context.reportError(
          limitError(
            "TOO_MANY_MUTATIONS",
            `The request carries ${formatCount(count)} mutations; at most ${formatCount(max)} are accepted in one request. Send the rest in further requests.`,
            { limit: max, found: count },
            operation,
          ),
        );
      }
    },
  });
}

function countRootFields(selectionSet: SelectionSetNode, context: ValidationContext, spread: Set<string>): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== "__typename") count += 1;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += countRootFields(selection.selectionSet, context, spread);
    } else if (!spread.has(selection.name.value)) {
      // A fragment spread twice adds no fields: its copies merge.
      spread.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      if (fragment) count += countRootFields(fragment.selectionSet, context, spread);
    }
  }
  return count;
}

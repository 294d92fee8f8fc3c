import { type FieldNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from "graphql";

/**
 * The names of the fields a request selects at `path` below the field being resolved (e.g.
 * ["nodes", "artifact"]), looking through inline fragments and fragment spreads and across
 * aliases. Lets a resolver skip reading what no one asked for (e.g. artifact records when only
 * their ids are selected).
 */
export function selectedFieldNames(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  let selectionSets: SelectionSetNode[] = info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  for (const name of path) {
    selectionSets = fieldsOf(info, selectionSets)
      .filter((field) => field.name.value === name && field.selectionSet)
      .map((field) => field.selectionSet!);
  }
  return new Set(fieldsOf(info, selectionSets).map((field) => field.name.value));
}

/** True when a request selects anything other than `id` / `__typename` at `path`. */
export function selectsMoreThanId(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  for (const name of selectedFieldNames(info, path)) if (name !== "id" && name !== "__typename") return true;
  return false;
}

function fieldsOf(info: GraphQLResolveInfo, selectionSets: readonly SelectionSetNode[]): FieldNode[] {
  const fields: FieldNode[] = [];
  const visit = (set: SelectionSetNode, seenFragments: Set<string>) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, seenFragments);
      else if (!seenFragments.has(selection.name.value)) {
        const fragment = info.fragments[selection.name.value];
        if (fragment) visit(fragment.selectionSet, new Set([...seenFragments, selection.name.value]));
      }
    }
  };
  for (const set of selectionSets) visit(set, new Set());
  return fields;
}

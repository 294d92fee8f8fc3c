import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getVariableValues,
  type GraphQLObjectType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { collectFields } from "graphql/execution/collectFields";
import { appendTo } from "../services/grouping";

/**
 * The root fields of an operation by response key, as the executor would run them: fragments
 * spread, inline fragments, aliases (each response key once), and @skip / @include decided with
 * the request's variables. Variables that do not fit (the executor would refuse the request before
 * any resolver) decide nothing: every field counts, skipped or not. For the checks made before
 * anything runs (authorization, request limits).
 */
export function rootFieldsOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, rootType: GraphQLObjectType, variables: unknown): Map<string, readonly FieldNode[]> {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  // Only the variables @skip and @include read at the root are coerced: the rest (100,000 ids, a
  // recording's outputs) the executor coerces once, and nothing here depends on them.
  const read = new Set<string>();
  directiveVariables(operation.selectionSet, fragments, new Set(), read);
  const definitions = (operation.variableDefinitions ?? []).filter((definition) => read.has(definition.variable.name.value));
  const coerced = getVariableValues(schema, definitions, (variables ?? {}) as Record<string, unknown>, { maxErrors: 1 });
  if (!coerced.errors) {
    try {
      return collectFields(schema, fragments, coerced.coerced, rootType, operation.selectionSet);
    } catch {
      // A directive argument that cannot be read: the executor refuses the field; count it.
    }
  }
  const every = new Map<string, FieldNode[]>();
  collectEveryField(operation.selectionSet, fragments, new Set(), every);
  return every;
}

/** The variables the @skip / @include directives of the root selections (and their fragments) read. */
function directiveVariables(selectionSet: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, spread: Set<string>, into: Set<string>): void {
  for (const selection of selectionSet.selections) {
    for (const directive of selection.directives ?? []) {
      for (const argument of directive.arguments ?? []) if (argument.value.kind === Kind.VARIABLE) into.add(argument.value.name.value);
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) directiveVariables(selection.selectionSet, fragments, spread, into);
    else if (selection.kind === Kind.FRAGMENT_SPREAD && !spread.has(selection.name.value) && fragments[selection.name.value]) {
      spread.add(selection.name.value);
      directiveVariables(fragments[selection.name.value].selectionSet, fragments, spread, into);
    }
  }
}

/** Every field selected at the root, skipped or not (each fragment spread once). */
function collectEveryField(selectionSet: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, spread: Set<string>, into: Map<string, FieldNode[]>): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      appendTo(into, key, selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collectEveryField(selection.selectionSet, fragments, spread, into);
    } else if (!spread.has(selection.name.value) && fragments[selection.name.value]) {
      spread.add(selection.name.value);
      collectEveryField(fragments[selection.name.value].selectionSet, fragments, spread, into);
    }
  }
}

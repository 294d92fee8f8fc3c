import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getOperationAST,
  getNullableType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { formatCount, limitError } from "./limit-error";
import { CLOSURE_FIELDS, CONNECTION_BOUND, type ListBound, REQUEST_LIMITS } from "./request-limits";

/** A list no argument bounds (Execution.inputs, Artifact.parents, …) is counted as this many items. */
export const UNBOUNDED_LIST_ITEMS = 10;

/**
 * The estimated cost of an operation: every field selected costs 1, each aliased copy again, and a
 * list multiplies what is selected inside it by the number of items it can hold. That number is
 * the bound the request states: a connection's `first`/`last` for its edges, a closure's `first`
 * for its nodes and edges (lineage, provJson), the number of ids of nodes(ids), as a literal or a
 * variable alike; absent, the field's default (50 a page, 10,000 a closure). Any other list counts
 * as UNBOUNDED_LIST_ITEMS. Introspection is free (GraphiQL must be able to load the schema).
 * So `lineage(first: 50000) { nodes { artifactId depth } }` costs 1 + 50,000 × 3.
 */
export function estimateCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Readonly<Record<string, unknown>> | null): number {
  const operation = getOperationAST(document, operationName);
  const rootType = operation && schema.getRootType(operation.operation);
  if (!operation || !rootType) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const defaults = new Map<string, ValueNode>();
  for (const definition of operation.variableDefinitions ?? []) if (definition.defaultValue) defaults.set(definition.variable.name.value, definition.defaultValue);
  const variableValue = (name: string): StatedValue =>
    variables && variables[name] != null ? { json: variables[name] } : { literal: defaults.get(name) };
  return new CostEstimate(schema, (name) => fragments.get(name), variableValue).ofSelections(operation.selectionSet, rootType, undefined);
}

/**
 * QUERY_TOO_COSTLY when an operation's estimate is above `maxCost`, checked as it is about to run,
 * when its variables are known (validation, and Yoga's cache of it, sees only the document).
 */
export function useQueryCostLimit(maxCost: number): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const cost = estimateCost(args.schema, args.document, args.operationName, args.variableValues as Record<string, unknown> | null | undefined);
      if (cost <= maxCost) return;
      setResultAndStopExecution({
        errors: [
          limitError(
            "QUERY_TOO_COSTLY",
            `The operation's estimated cost is ${formatCount(cost)}; at most ${formatCount(maxCost)} is accepted. ` +
              "Ask for fewer items (first, last, ids), fewer aliased copies or less nesting.",
            { limit: maxCost, found: Number.isFinite(cost) ? Math.round(cost) : undefined },
          ),
        ],
      });
    },
  };
}

class CostEstimate {
  private readonly fragmentCosts = new Map<string, number>();
  private readonly inProgress = new Set<string>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly getFragment: (name: string) => FragmentDefinitionNode | undefined,
    private readonly variableValue: (name: string) => StatedValue,
  ) {}

  /** `listItems`: how many items a list selected here holds (set under a bounded field). */
  ofSelections(selectionSet: SelectionSetNode, parentType: GraphQLNamedType, listItems: number | undefined): number {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        cost += this.ofField(selection, parentType, listItems);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : parentType;
        cost += type ? this.ofSelections(selection.selectionSet, type, listItems) : 0;
      } else {
        cost += this.ofFragment(selection.name.value, listItems);
      }
    }
    return cost;
  }

  private ofFragment(name: string, listItems: number | undefined): number {
    const key = `${name}/${listItems ?? ""}`;
    const known = this.fragmentCosts.get(key);
    if (known !== undefined) return known;
    const fragment = this.getFragment(name);
    const type = fragment && this.schema.getType(fragment.typeCondition.name.value);
    // A fragment spreading itself is a validation error of its own (NoFragmentCycles).
    if (!fragment || !type || this.inProgress.has(key)) return 0;
    this.inProgress.add(key);
    const cost = this.ofSelections(fragment.selectionSet, type, listItems);
    this.inProgress.delete(key);
    this.fragmentCosts.set(key, cost);
    return cost;
  }

  private ofField(node: FieldNode, parentType: GraphQLNamedType, inheritedItems: number | undefined): number {
    const name = node.name.value;
    if (name === "__schema" || name === "__type") return 0;
    const field = isObjectType(parentType) || isInterfaceType(parentType) ? parentType.getFields()[name] : undefined;
    if (!field) return 1; // __typename, or a field validation reports as unknown
    const bound = statedBound(`${parentType.name}.${name}`, field, node, this.variableValue);
    const returnsList = isListType(getNullableType(field.type));
    // A bounded list (nodes(ids)) holds its bound; a list under a bounded field (a connection's edges,
    // a closure's nodes) holds the parent's; any other list a nominal number.
    const items = returnsList ? (bound ?? inheritedItems ?? UNBOUNDED_LIST_ITEMS) : 1;
    const boundForChildren = returnsList ? undefined : bound;
    if (!node.selectionSet) return items * (boundForChildren ?? 1);
    return items * (1 + this.ofSelections(node.selectionSet, getNamedType(field.type), boundForChildren));
  }
}

/** An argument's value: a literal in the document, or a variable's JSON value. */
type StatedValue = { literal: ValueNode | undefined } | { json: unknown };

/** The number of items a field's arguments allow: first/last (connections, closures) or the ids of nodes(ids). */
function statedBound(coordinate: string, field: GraphQLField<unknown, unknown>, node: FieldNode, variableValue: (name: string) => StatedValue): number | undefined {
  const argument = (name: string): StatedValue => {
    const value = node.arguments?.find((arg) => arg.name.value === name)?.value;
    return value?.kind === Kind.VARIABLE ? variableValue(value.name.value) : { literal: value };
  };
  if (coordinate === "Query.nodes") {
    const ids = argument("ids");
    const count = "json" in ids ? (Array.isArray(ids.json) ? ids.json.length : 1) : ids.literal?.kind === Kind.LIST ? ids.literal.values.length : 1;
    // Above the cap is INVALID_ARGUMENT when the field runs.
    return Math.min(count, REQUEST_LIMITS.maxNodeIds);
  }
  if (!field.args.some((arg) => arg.name === "first" || arg.name === "last")) return undefined;
  const bound: ListBound = CLOSURE_FIELDS[coordinate] ?? CONNECTION_BOUND;
  const stated = ["first", "last"].map((name) => wholeNumber(argument(name))).filter((value) => value !== undefined);
  // Above the maximum is PAGE_SIZE when the field runs; a value that is not a number, BAD_USER_INPUT.
  return stated.length ? Math.min(Math.max(...stated, 0), bound.max) : bound.default;
}

function wholeNumber(value: StatedValue): number | undefined {
  if ("json" in value) return Number.isInteger(value.json) ? (value.json as number) : undefined;
  return value.literal?.kind === Kind.INT ? Number(value.literal.value) : undefined;
}

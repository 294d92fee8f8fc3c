import { getNamedType, getNullableType, type GraphQLField, isListType } from "graphql";
import { type ComplexityEstimator, type ComplexityEstimatorArgs, simpleEstimator } from "graphql-query-complexity";
import { CLOSURE_FIELDS, CONNECTION_BOUND, type ListBound, REQUEST_LIMITS } from "./request-limits";

/** A list no argument bounds (Execution.inputs, Artifact.parents, …) is counted as this many items. */
export const UNBOUNDED_LIST_ITEMS = 10;

/**
 * Our cost model as graphql-query-complexity estimators, the first that answers wins: introspection
 * is free; a field with a bound (first/last, nodes(ids)) counts its items; any other list counts
 * UNBOUNDED_LIST_ITEMS items; any other field 1 plus what is selected inside it.
 *
 * The library estimates bottom-up: a field sees the total of what it selects, never its parent's
 * arguments. So a list reports what one of its items costs to the type that holds it, and a
 * connection or closure, estimated right after its fields, re-counts the lists it holds (edges,
 * nodes, nodeIds, …) at its bound. The reports are one estimate's: make the estimators per estimate.
 * This holds while a bounded field's type is returned by bounded fields only and is not reachable
 * from within itself (test/unit/query-cost.test.ts checks the schema).
 */
export function costEstimators(onBound?: (bound: BoundedPart) => void): ComplexityEstimator[] {
  const itemCosts = new Map<string, number>();
  const reportItem = (typeName: string, cost: number) => itemCosts.set(typeName, (itemCosts.get(typeName) ?? 0) + cost);
  const takeItems = (typeName: string) => {
    const cost = itemCosts.get(typeName) ?? 0;
    itemCosts.delete(typeName);
    return cost;
  };

  const introspection: ComplexityEstimator = ({ field }) => (field.name === "__schema" || field.name === "__type" ? 0 : undefined);

  const boundedField: ComplexityEstimator = ({ type, field, node, args, childComplexity }) => {
    const bound = boundOf(`${type.name}.${field.name}`, field, args);
    if (bound === undefined) return undefined;
    const { items } = bound;
    let cost: number;
    if (isListType(getNullableType(field.type))) cost = items * (1 + childComplexity);
    // A closure's JSON document (provJson) holds its items; a connection's or closure's lists hold them.
    else if (!node.selectionSet) cost = items;
    else cost = 1 + childComplexity + (items - UNBOUNDED_LIST_ITEMS) * takeItems(getNamedType(field.type).name);
    onBound?.({ ...bound, field: field.name, responseKey: node.alias?.value ?? field.name, cost });
    return cost;
  };

  const unboundedList: ComplexityEstimator = ({ type, field, childComplexity }) => {
    if (!isListType(getNullableType(field.type))) return undefined;
    reportItem(type.name, 1 + childComplexity);
    return UNBOUNDED_LIST_ITEMS * (1 + childComplexity);
  };

  return [introspection, boundedField, unboundedList, simpleEstimator({ defaultComplexity: 1 })];
}

/** A field whose arguments bound its items, as counted: which argument, how many items (stated or by default), what it cost with all it holds. */
export interface BoundedPart {
  field: string;
  /** Its alias, or its name. */
  responseKey: string;
  argument: "first" | "last" | "ids";
  items: number;
  /** The items are the argument's default (it was not given). */
  byDefault: boolean;
  cost: number;
}

/**
 * The number of items a field's arguments allow: the ids of nodes(ids), or first/last (connections,
 * closures; absent, the field's default). Above the maximum is INVALID_ARGUMENT or PAGE_SIZE when the
 * field runs, so it counts as the maximum.
 */
function boundOf(coordinate: string, field: GraphQLField<unknown, unknown>, args: ComplexityEstimatorArgs["args"]): Pick<BoundedPart, "argument" | "items" | "byDefault"> | undefined {
  if (coordinate === "Query.nodes") return { argument: "ids", items: Math.min(Array.isArray(args.ids) ? args.ids.length : 1, REQUEST_LIMITS.maxNodeIds), byDefault: false };
  if (!field.args.some((arg) => arg.name === "first" || arg.name === "last")) return undefined;
  const bound: ListBound = CLOSURE_FIELDS[coordinate] ?? CONNECTION_BOUND;
  const first = typeof args.first === "number" ? Math.min(Math.max(args.first, 0), bound.max) : undefined;
  const last = typeof args.last === "number" ? Math.min(Math.max(args.last, 0), bound.max) : undefined;
  if (first === undefined && last === undefined) return { argument: "first", items: bound.default, byDefault: true };
  return (last ?? -1) > (first ?? -1) ? { argument: "last", items: last!, byDefault: false } : { argument: "first", items: first!, byDefault: false };
}

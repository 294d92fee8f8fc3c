import { type DocumentNode, getNamedType, getOperationAST, GraphQLError, type GraphQLSchema, isInputObjectType, type OperationDefinitionNode, typeFromAST, validate } from "graphql";
import { createComplexityRule } from "graphql-query-complexity";
import type { Plugin } from "graphql-yoga";
import { type BoundedPart, costEstimators } from "./cost-estimators";
import { formatCount, limitError } from "./limit-error";
import { RawJsonText } from "../services/raw-json-text";
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
  return estimateCostParts(schema, document, operationName, variables).cost;
}

/** An operation's estimate: its cost, and its costliest bounded part (the field whose first, last or ids to lower), if any. */
export interface CostEstimate {
  cost: number;
  costliest?: BoundedPart;
}

/**
 * Estimates already made, by document (Yoga's parser cache hands out one DocumentNode per query
 * text, so a client's repeated query is one entry) and then by operation name and the variables as
 * the estimate sees them: walking the document again costs more than the rest of a small read's
 * GraphQL work. Variables whose text is long (a recording's drafts, an evidence document) are not
 * kept; a document's entries are dropped together when there are too many.
 */
const estimates = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, CostEstimate>>>();
const MAX_ESTIMATES_PER_DOCUMENT = 256;
const MAX_CACHED_VARIABLES_LENGTH = 2_048;

/** The estimate, and its costliest bounded part (the field whose first, last or ids to lower), if any. */
export function estimateCostParts(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Readonly<Record<string, unknown>> | null): CostEstimate {
  // No such operation, or a name is needed: execution refuses it.
  const operation = getOperationAST(document, operationName);
  if (!operation) return { cost: 0 };
  const costed = variables ? variablesForCost(schema, operation, variables) : undefined;
  const variablesText = costed ? textOf(costed) : "";
  if (variablesText === null || variablesText.length > MAX_CACHED_VARIABLES_LENGTH) return estimateOperation(schema, document, operation, costed);
  let byDocument = estimates.get(schema);
  if (!byDocument) estimates.set(schema, (byDocument = new WeakMap()));
  let known = byDocument.get(document);
  if (!known) byDocument.set(document, (known = new Map()));
  const key = `${operation.name?.value ?? ""}\u0000${variablesText}`;
  let estimate = known.get(key);
  if (!estimate) {
    estimate = estimateOperation(schema, document, operation, costed);
    if (known.size >= MAX_ESTIMATES_PER_DOCUMENT) known.clear();
    known.set(key, estimate);
  }
  return estimate;
}

/** Variables as a cache key; null when they have no JSON text (values passed in-process). */
function textOf(variables: Record<string, unknown>): string | null {
  try {
    return JSON.stringify(variables);
  } catch {
    return null;
  }
}

function estimateOperation(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, costed: Record<string, unknown> | undefined): CostEstimate {
  let cost = 0;
  let costliest: BoundedPart | undefined;
  const rule = createComplexityRule({
    maximumComplexity: Infinity,
    estimators: costEstimators((part) => {
      if (!costliest || part.cost > costliest.cost) costliest = part;
    }),
    // The library reads the name of every operation when given one: an anonymous one is estimated alone.
    operationName: operation.name?.value,
    variables: costed,
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
    if (error instanceof GraphQLError) return { cost: Infinity };
    throw error;
  }
  return { cost, costliest };
}

/**
 * The variables as the estimate needs them. The library coerces every variable again (execution does
 * too), which for a recording's input — tens of thousands of output drafts — or 100,000 ids costs
 * tens to hundreds of ms. No cost depends on what is inside an input object, so the lists inside
 * input-object and JSON variables (and a list of input objects itself) are cut to their first item; and no
 * cost counts more than maxNodeIds items of a list (nodes(ids) counts at most that many), so other
 * lists are cut after it. The values still fit their types, so the operation is still estimated (a
 * variable that does not fit would leave it uncosted).
 */
function variablesForCost(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const shrunk: Record<string, unknown> = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (!(name in shrunk)) continue;
    const type = typeFromAST(schema, definition.type);
    // A JSON argument (a filed evidence document: megabytes) costs nothing by what it holds either.
    if (type && (isInputObjectType(getNamedType(type)) || getNamedType(type)?.name === "JSON")) shrunk[name] = firstItems(shrunk[name]);
    else if (Array.isArray(shrunk[name]) && (shrunk[name] as unknown[]).length > REQUEST_LIMITS.maxNodeIds + 1) shrunk[name] = (shrunk[name] as unknown[]).slice(0, REQUEST_LIMITS.maxNodeIds + 1);
  }
  return shrunk;
}

function firstItems(value: unknown): unknown {
  // A JSON value kept as text (megabytes): what it holds costs nothing either.
  if (value instanceof RawJsonText) return {};
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
      const { cost, costliest } = estimateCostParts(args.schema, args.document, args.operationName, args.variableValues as Record<string, unknown> | null | undefined);
      if (typeof args.contextValue === "object" && args.contextValue !== null) costs.set(args.contextValue, cost);
      if (cost <= maxCost) return;
      const { maxCostedSelections } = REQUEST_LIMITS;
      const refusal = Number.isFinite(cost)
        ? tooCostly(cost, maxCost, costliest)
        : limitError(
            "QUERY_TOO_COSTLY",
            `The operation has more than ${formatCount(maxCostedSelections)} selections once its fragments are spread; at most ${formatCount(maxCostedSelections)} are accepted. Spread fewer fragments.`,
            { limit: maxCostedSelections },
          );
      setResultAndStopExecution({ errors: [refusal] });
    },
  };
}

/**
 * QUERY_TOO_COSTLY for a counted operation: the estimate, and the argument to lower — the `first`,
 * `last` or `ids` of its costliest bounded field, with the items it asked for (or took by default).
 */
function tooCostly(cost: number, maxCost: number, costliest: BoundedPart | undefined): GraphQLError {
  const head = `The operation's estimated cost is ${formatCount(cost)}; at most ${formatCount(maxCost)} is accepted.`;
  if (!costliest || costliest.cost * 10 < cost) {
    return limitError("QUERY_TOO_COSTLY", `${head} Ask for fewer items (first, last, ids), fewer aliased copies or less nesting.`, { limit: maxCost, found: Math.round(cost) });
  }
  const { field, responseKey, argument, items, byDefault } = costliest;
  const where = responseKey === field ? field : `${responseKey}: ${field}`;
  const asked = byDefault ? `${formatCount(items)} items by default` : `${formatCount(items)} items`;
  const lower = argument === "ids" ? "Ask for fewer ids" : `Pass a smaller \`${argument}\``;
  return limitError(
    "QUERY_TOO_COSTLY",
    `${head} Its costliest part is \`${where}\` (${asked}: ${formatCount(costliest.cost)}). ${lower} there, or ask for less inside it, fewer aliased copies or less nesting.`,
    { limit: maxCost, found: Math.round(cost), field, argument, items },
  );
}

const costs = new WeakMap<object, number>();

/** The estimate useQueryCostLimit made for the operation running with this context (admission control reads it). */
export function estimatedCostOf(context: unknown): number | undefined {
  return typeof context === "object" && context !== null ? costs.get(context) : undefined;
}

import { builder } from "./builder";
import { REQUEST_LIMITS } from "../limits/request-limits";
import { tooManyNodeIds } from "../limits/list-arguments";
import { NotFoundError } from "../services/errors";
import type { ArtifactRecord, ExecutionRecord, OperationRecord } from "../services/records";
import type { GraphQLContext } from "./context";
import { nodeTypenameOf } from "./node-ids";

/**
 * The Relay Node interface, ours rather than the relay plugin's: a provgraph id already names
 * its type (art_…, run_…, op_…), so `id` resolves synchronously from the record — the plugin's
 * globalID field awaits every id, one promise per object, which dominates large closures.
 */
export type NodeShape = ArtifactRecord | ExecutionRecord | OperationRecord;

export function nodeIdOf(node: NodeShape): string {
  return "runId" in node ? node.runId : node.id;
}

export const NodeInterface = builder.interfaceRef<NodeShape>("Node").implement({
  description: "An object with a provgraph id, accepted as-is by node(id) and by every argument that takes such an id.",
  fields: (t) => ({
    id: t.id({ description: "Its provgraph id: art_… (Artifact), run_… (Execution, its runId) or op_… (Operation).", resolve: nodeIdOf }),
  }),
  resolveType: (node) => ("runId" in node ? "Execution" : "contentHash" in node ? "Artifact" : "Operation"),
});

/** A DataLoader batch for a node type: the found records in key order, a NOT_FOUND error for each missing key. */
export function loadOrNotFound<T>(kind: string, load: (ids: string[]) => Promise<(T | null)[]>) {
  return async (ids: string[]): Promise<(T | NotFoundError)[]> => {
    const found = await load(ids);
    return found.map((record, i) => record ?? new NotFoundError(kind, ids[i]));
  };
}

/** Loaders per node type, registered by the type files (keeps this file free of their imports). */
const loaders = new Map<string, (context: GraphQLContext) => { load(id: string): Promise<NodeShape> }>();

export function registerNodeLoader(typename: string, getLoader: (context: GraphQLContext) => { load(id: string): Promise<NodeShape> }) {
  loaders.set(typename, getLoader);
}

/** Async so that a malformed id in nodes(ids) fails its own item, not the whole list. */
async function loadNode(field: string, id: string, context: GraphQLContext): Promise<NodeShape> {
  const typename = nodeTypenameOf(field, id);
  return loadForArgument(field, loaders.get(typename)!(context).load(id));
}

/**
 * A record loaded for an argument: its NOT_FOUND names that argument (`field`), like every other
 * argument error. (The batch loaders are shared by every field that reaches a record, so they cannot.)
 */
export function loadForArgument<T>(field: string, load: Promise<T>): Promise<T> {
  return load.catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new NotFoundError(String(error.details.kind), String(error.details.id), field);
    throw error;
  });
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeInterface,
    nullable: true,
    description: "Any object by its id. A malformed id is INVALID_ID; a well-formed one naming nothing is NOT_FOUND.",
    args: { id: t.arg.id({ required: true, description: "An art_…, run_… or op_… id." }) },
    resolve: (_root, args, context) => loadNode("id", String(args.id), context),
  }),
  nodes: t.field({
    type: [NodeInterface],
    nullable: { list: false, items: true },
    description: `Several objects by id, in the order asked for (batched); at most ${REQUEST_LIMITS.maxNodeIds} ids (INVALID_ARGUMENT above).`,
    args: { ids: t.arg.idList({ required: true, description: "art_…, run_… or op_… ids, in any mix. A malformed (INVALID_ID) or unknown (NOT_FOUND) id fails its own item, null in the list." }) },
    resolve: (_root, args, context) => {
      // Refused before execution by the request limits (useListArgumentLimits); here for a schema run without them.
      const refusal = tooManyNodeIds(args.ids.length);
      if (refusal) throw refusal;
      return args.ids.map((id) => loadNode("ids", String(id), context));
    },
  }),
}));

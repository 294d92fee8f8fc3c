// The lineage-graph room's one door: lineage drawn for a user interface — neighbourhood graphs of
// artifacts, runs and columns that a client expands one node at a time, the derivation paths
// between two nodes, and impact counts. Each computation is a pure async function of (arguments,
// { reader }) over a read client with a plain result (LINEAGE_GRAPH_READS), so it runs in the
// server's thread or in a worker of the heavy-read pool alike; the API runs them in the pool
// (lineageGraphReads).
import { expandNode, type ExpandArgs, type ExpandPageRecord } from "./expand";
import type { LineageGraphRecord } from "./graph-records";
import { impactOf, type ImpactArgs, type ImpactRecord } from "./impact";
import { lineageGraph, type LineageGraphArgs } from "./lineage-graph";
import type { LineageFilters } from "./lineage-filters";
import { type LineagePathArgs, lineagePaths, type LineagePathsRecord } from "./lineage-path";
import { readNodeDetails } from "./node-details";
import { preparedReader } from "../../db/prepared-statements";
import type { GraphReadClient, GraphReadContext } from "./read-client";
import type { LineageGraphNodeRecord } from "./graph-records";
import type { HeavyReadContext, HeavyReadJobs } from "../heavy-reads";

export * from "./graph-records";
export { columnNodeId, type GraphNodeKind, type GraphNodeRef, parseGraphNodeId } from "./graph-node-ids";
export * from "./graph-limits";
export type { ExpandArgs, ExpandPageRecord, ImpactArgs, ImpactRecord, LineageGraphArgs, LineagePathArgs, LineagePathsRecord, LineageFilters, GraphReadClient };
export { IMPACT_KINDS, type ImpactCountRecord, type ImpactDepthRecord, type ImpactKind } from "./impact";
export type { LineagePathRecord } from "./lineage-path";

/** Node details for any node ids (labels and neighbour counts), as a heavy read takes its arguments. */
async function nodeDetails(args: { ids: readonly string[]; filters: LineageFilters }, { reader }: { reader: GraphReadClient }): Promise<LineageGraphNodeRecord[]> {
  return [...(await readNodeDetails(reader, args.ids, args.filters)).values()];
}

/**
 * A computation whose statements run prepared on PostgreSQL (src/db/prepared-statements.ts): the
 * graph reads are a few shapes of statement run over and over, and planning one cost more than
 * running it. Their texts hold no values (bound, or lists' lengths rounded: StatementParams), only
 * bounded choices (direction, depth, filters, a page's size).
 */
const prepared =
  <A, R>(read: (args: A, context: GraphReadContext) => Promise<R>) =>
  (args: A, { reader }: GraphReadContext): Promise<R> =>
    read(args, { reader: preparedReader(reader) });

/** The room's heavy reads by name, for the worker pool to register: (args, { reader }) → plain data. */
export const LINEAGE_GRAPH_READS = {
  lineageGraph: prepared(lineageGraph),
  expand: prepared(expandNode),
  lineagePath: prepared(lineagePaths),
  impact: prepared(impactOf),
  nodeDetails: prepared(nodeDetails),
} as const;

/** A computation as a heavy read: over the thread's read database. */
const onThreadDatabase =
  <A, R>(read: (args: A, context: GraphReadContext) => Promise<R>) =>
  (args: A, ctx: HeavyReadContext): Promise<R> =>
    read(args, { reader: ctx.database });

/**
 * The same computations as heavy reads (src/services/heavy-reads), which the API runs: in a worker of
 * the pool, over the thread's read database, off the event loop. At their bounds they read and
 * assemble for hundreds of ms (a 5,000-node graph, the impact of a 6,000-hop chain); one request
 * doing that on the event loop held every other, /healthz included.
 */
export const lineageGraphReads = {
  lineageGraph: onThreadDatabase(LINEAGE_GRAPH_READS.lineageGraph),
  expand: onThreadDatabase(LINEAGE_GRAPH_READS.expand),
  lineagePath: onThreadDatabase(LINEAGE_GRAPH_READS.lineagePath),
  impact: onThreadDatabase(LINEAGE_GRAPH_READS.impact),
  graphNodeDetails: onThreadDatabase(LINEAGE_GRAPH_READS.nodeDetails),
} satisfies HeavyReadJobs;

import { NotFoundError } from "../errors";
import { checkRange, IMPACT_NODE_BUDGET, MAX_PATH_DEPTH } from "./graph-limits";
import { columnNodeId, type GraphNodeRef, parseGraphNodeId } from "./graph-node-ids";
import type { GraphDirection } from "./graph-records";
import { columnImpactWalkStatement, IMPACT_COLUMN_NAMES, impactWalkStatement } from "./impact-sql";
import type { LineageFilters } from "./lineage-filters";
import { compareIds } from "./neighbourhood";
import { readNodeDetails } from "./node-details";
import { asNumber, asText, type GraphReadClient, type GraphReadContext } from "./read-client";
import { columnIndex } from "./union-rows";
import { appendTo } from "../grouping";

export const IMPACT_KINDS = ["ARTIFACT", "DATASET", "COLUMN", "RUN", "JOB", "PIPELINE"] as const;
export type ImpactKind = (typeof IMPACT_KINDS)[number];

export interface ImpactArgs {
  id: string;
  direction: GraphDirection;
  /** null: as far as the lineage goes. */
  maxDepth: number | null;
  asOf: Date | null;
  stepBoundaryOnly: boolean;
}

export interface ImpactCountRecord {
  kind: ImpactKind;
  count: number;
}

export interface ImpactDepthRecord {
  /** Hops from the root, negative upstream. */
  depth: number;
  counts: ImpactCountRecord[];
  /** The artifacts, runs (and, from a column, columns) first reached at this depth, by id. */
  nodeIds: string[];
}

export interface ImpactRecord {
  root: string;
  direction: GraphDirection;
  totals: ImpactCountRecord[];
  byDepth: ImpactDepthRecord[];
  /** The walk stopped at its budget (IMPACT_NODE_BUDGET): the counts are lower bounds. */
  truncated: boolean;
}

/**
 * How much lies upstream or downstream of an artifact, run or column (docs: "Lineage and graphs"),
 * counted by kind and by depth: artifacts (other than dataset versions), datasets (a dataset counts
 * once, at the depth of its nearest version), columns (of the dataset versions reached, or the
 * columns reached from a column), runs, jobs (the runs' operations, OpenLineage jobs included) and
 * pipelines. Depths count hops as the lineage graph does: hop k holds the artifacts k derivations
 * away and the runs that made (or, having derived nothing, used) them. Each depth lists its nodes for
 * paging. One statement per direction; without maxDepth each node is walked once, up to
 * IMPACT_NODE_BUDGET nodes.
 */
export async function impactOf(args: ImpactArgs, { reader }: GraphReadContext): Promise<ImpactRecord> {
  const root = parseGraphNodeId("id", args.id);
  if (args.maxDepth !== null) checkRange("maxDepth", args.maxDepth, 0, MAX_PATH_DEPTH, "a number of hops");
  const filters: LineageFilters = { asOf: args.asOf, stepBoundaryOnly: args.stepBoundaryOnly };
  const exists = await readNodeDetails(reader, [root.id], filters);
  if (!exists.has(root.id)) throw new NotFoundError(root.kind === "RUN" ? "run" : root.kind === "COLUMN" ? "column" : "artifact", root.id, "id");
  const directions = args.direction === "BOTH" ? [true, false] : [args.direction === "UPSTREAM"];
  const sides: Side[] = [];
  for (const upstream of directions) sides.push(await walkSide(reader, root, upstream, args.maxDepth, filters));
  return summarise(root.id, args.direction, sides);
}

/** What one direction reached: every node with its hops, and the facts to count them by. */
interface Side {
  sign: number;
  /** node id → hops (artifacts, runs, columns). */
  depthOf: Map<string, number>;
  kindOf: Map<string, "ARTIFACT" | "RUN" | "COLUMN">;
  datasetOf: Map<string, string>;
  operationOf: Map<string, string>;
  pipelineOf: Map<string, string>;
  columnsOf: Map<string, number>;
  truncated: boolean;
}

async function walkSide(reader: GraphReadClient, root: GraphNodeRef, upstream: boolean, maxDepth: number | null, filters: LineageFilters): Promise<Side> {
  const { sql, params } =
    root.kind === "COLUMN"
      ? columnImpactWalkStatement(reader.provider, { root: [root.artifactId, root.field], upstream, maxDepth, budget: IMPACT_NODE_BUDGET, filters })
      : impactWalkStatement(reader.provider, { artifactRoots: root.kind === "ARTIFACT" ? [root.id] : [], runRoot: root.kind === "RUN" ? root.id : null, upstream, maxDepth, budget: IMPACT_NODE_BUDGET, filters });
  const result = await reader.readRows(sql, params);
  const at = columnIndex(result.columnNames, IMPACT_COLUMN_NAMES);
  const side: Side = { sign: upstream ? -1 : 1, depthOf: new Map(), kindOf: new Map(), datasetOf: new Map(), operationOf: new Map(), pipelineOf: new Map(), columnsOf: new Map(), truncated: false };
  const nodeId = (id: unknown, field: unknown) => (root.kind === "COLUMN" && field != null ? columnNodeId(String(id), String(field)) : String(id));
  const seeds = new Map<string, number>();
  const edges: [string, string, string][] = [];
  const besides: [string, string][] = [];
  const nodes = new Set<string>();
  for (const row of result.rows) {
    const id = asText(row[at.id]);
    switch (row[at.row]) {
      case "node":
        nodes.add(nodeId(id, row[at.field]));
        break;
      case "seed":
        seeds.set(id!, asNumber(row[at.n]));
        break;
      case "edge":
        edges.push([nodeId(id, row[at.field]), nodeId(row[at.other], row[at.otherField]), asText(row[at.runId])!]);
        break;
      case "link":
        besides.push([id!, asText(row[at.runId])!]);
        break;
      case "art": {
        const namespace = asText(row[at.namespace]);
        const name = asText(row[at.name]);
        if (namespace !== null && name !== null) side.datasetOf.set(id!, `${namespace}/${name}`);
        break;
      }
      case "run":
        if (asText(row[at.other]) !== null) side.operationOf.set(id!, asText(row[at.other])!);
        if (asText(row[at.pipeline]) !== null) side.pipelineOf.set(id!, asText(row[at.pipeline])!);
        break;
      case "columns":
        side.columnsOf.set(id!, asNumber(row[at.n]));
        break;
      case "meta":
        side.truncated = asNumber(row[at.n]) >= IMPACT_NODE_BUDGET;
        break;
    }
  }
  // Hops breadth-first from the roots over the edges walked (a node reached at several, its nearest).
  const start = root.kind === "COLUMN" ? new Map([[root.id, 0]]) : root.kind === "ARTIFACT" ? new Map([[root.id, 0]]) : seeds;
  const depth = new Map(start);
  const out = new Map<string, string[]>();
  for (const [near, far] of edges) appendTo(out, near, far);
  let layer = [...depth.keys()];
  while (layer.length > 0) {
    const next: string[] = [];
    for (const node of layer) {
      for (const far of out.get(node) ?? []) {
        if (depth.has(far)) continue;
        depth.set(far, depth.get(node)! + 1);
        next.push(far);
      }
    }
    layer = next;
  }
  const within = (hops: number) => hops > 0 && (maxDepth === null || hops <= maxDepth);
  for (const node of nodes) {
    const hops = depth.get(node);
    if (hops === undefined || node === root.id || !within(hops)) continue;
    side.depthOf.set(node, hops);
    side.kindOf.set(node, root.kind === "COLUMN" ? (node.startsWith("col:") ? "COLUMN" : "ARTIFACT") : "ARTIFACT");
  }
  // A run is one hop beyond the nearest artifact (or column) it stands beside on the walking side.
  const runBeside: [string, string][] = root.kind === "COLUMN" ? edges.map(([near, , run]) => [near, run]) : besides;
  for (const [node, run] of runBeside) {
    const hops = depth.get(node);
    if (hops === undefined || run === root.id || !within(hops + 1)) continue;
    const known = side.depthOf.get(run);
    if (known === undefined || hops + 1 < known) {
      side.depthOf.set(run, hops + 1);
      side.kindOf.set(run, "RUN");
    }
  }
  return side;
}

function summarise(root: string, direction: GraphDirection, sides: Side[]): ImpactRecord {
  const totals = new Map<ImpactKind, Set<string>>(IMPACT_KINDS.map((kind) => [kind, new Set()]));
  let totalColumns = 0;
  const byDepth = new Map<number, { kinds: Map<ImpactKind, Set<string>>; columns: number; nodeIds: string[] }>();
  const at = (depth: number) => {
    let entry = byDepth.get(depth);
    if (!entry) byDepth.set(depth, (entry = { kinds: new Map(IMPACT_KINDS.map((kind) => [kind, new Set<string>()])), columns: 0, nodeIds: [] }));
    return entry;
  };
  for (const side of sides) {
    // Datasets, jobs and pipelines count once, at their nearest depth on this side.
    const nearest = new Map<string, number>();
    const keep = (key: string, hops: number) => nearest.set(key, Math.min(nearest.get(key) ?? hops, hops));
    for (const [node, hops] of side.depthOf) {
      const kind = side.kindOf.get(node)!;
      const signed = side.sign * hops;
      at(signed).nodeIds.push(node);
      if (kind === "RUN") {
        at(signed).kinds.get("RUN")!.add(node);
        totals.get("RUN")!.add(node);
        const operation = side.operationOf.get(node);
        if (operation) keep(`JOB\u0000${operation}`, hops);
        const pipeline = side.pipelineOf.get(node);
        if (pipeline) keep(`PIPELINE\u0000${pipeline}`, hops);
      } else if (kind === "COLUMN") {
        at(signed).columns += 1;
        totalColumns += 1;
        const artifactId = node.slice(4, node.indexOf(":", 4));
        const dataset = side.datasetOf.get(artifactId);
        if (dataset) keep(`DATASET\u0000${dataset}`, hops);
      } else {
        const dataset = side.datasetOf.get(node);
        if (dataset) keep(`DATASET\u0000${dataset}`, hops);
        else {
          at(signed).kinds.get("ARTIFACT")!.add(node);
          totals.get("ARTIFACT")!.add(node);
        }
        // The columns of a dataset version reached (a root column's walk counts columns themselves).
        const columns = side.columnsOf.get(node) ?? 0;
        at(signed).columns += columns;
        totalColumns += columns;
      }
    }
    for (const [key, hops] of nearest) {
      const kind = key.slice(0, key.indexOf("\u0000")) as ImpactKind;
      at(side.sign * hops).kinds.get(kind)!.add(key);
      totals.get(kind)!.add(key);
    }
  }
  const counts = (kinds: Map<ImpactKind, Set<string>>, columns: number) => IMPACT_KINDS.map((kind) => ({ kind, count: kind === "COLUMN" ? columns : kinds.get(kind)!.size }));
  return {
    root,
    direction,
    totals: counts(totals, totalColumns),
    byDepth: [...byDepth]
      .sort(([a], [b]) => a - b)
      .map(([depth, entry]) => ({ depth, counts: counts(entry.kinds, entry.columns), nodeIds: entry.nodeIds.sort(compareIds) })),
    truncated: sides.some((side) => side.truncated),
  };
}

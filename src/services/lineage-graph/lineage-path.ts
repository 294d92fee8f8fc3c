import { InvalidArgumentError, NotFoundError } from "../errors";
import type { ProvenanceEdgeKind } from "../lineage";
import { checkRange, MAX_PATH_DEPTH, MAX_PATHS, PATH_SEARCH_BUDGET } from "./graph-limits";
import { columnNodeId, type GraphNodeRef, parseGraphNodeId } from "./graph-node-ids";
import { graphEdgeId, type LineageGraphEdgeRecord } from "./graph-records";
import { emptyEdge } from "./lineage-graph";
import { columnEdgeConditions, edgeConditions, type LineageFilters } from "./lineage-filters";
import { compareIds } from "./neighbourhood";
import { asBoolean, asNumber, asText, type GraphReadClient, type GraphReadContext, rowObjects, StatementParams } from "./read-client";
import { appendTo } from "../grouping";

export interface LineagePathArgs {
  from: string;
  to: string;
  maxPaths: number;
  maxDepth: number;
  asOf: Date | null;
  stepBoundaryOnly: boolean;
}

export interface LineagePathRecord {
  /** From `from` to `to`. */
  nodeIds: string[];
  /** One derivation (or column) edge per hop, in its own direction (source = the parent). */
  edges: LineageGraphEdgeRecord[];
  length: number;
}

export interface LineagePathsRecord {
  paths: LineagePathRecord[];
  /** The search stopped at its budget, or more paths within maxDepth exist than maxPaths. */
  truncated: boolean;
}

interface Hop {
  id: number;
  source: string;
  target: string;
  runId: string;
  kind: ProvenanceEdgeKind | null;
  groupId: string | null;
  columnType: string | null;
  subtype: string | null;
  masking: boolean | null;
}

/**
 * The derivation paths between two artifacts, or two columns (docs: "Lineage and graphs"), shortest
 * first: "why does this figure depend on that extract?". A path follows derivation edges (column
 * edges between fields, for columns) from `from` down to `to`; when `to` is the ancestor, the paths
 * run the other way and are still listed from `from`. At most `maxPaths` paths of at most `maxDepth`
 * hops; a path is a sequence of distinct nodes, each hop shown by its first recorded edge.
 *
 * A bidirectional breadth-first search over batched hops: each step reads the edges of the smaller
 * frontier in one statement (so the statements grow with the hops searched, never with the graph),
 * the two searches meeting in the middle. Once every path of length ≤ a + b lies within what the
 * searches read (a forward hops, b backward), the paths are enumerated over that subgraph, and the
 * search goes one hop further until enough paths are found or maxDepth is reached.
 */
export async function lineagePaths(args: LineagePathArgs, { reader }: GraphReadContext): Promise<LineagePathsRecord> {
  const from = parseGraphNodeId("from", args.from);
  const to = parseGraphNodeId("to", args.to);
  if (from.kind === "RUN" || to.kind === "RUN") throw new InvalidArgumentError(from.kind === "RUN" ? "from" : "to", "paths join two artifacts or two columns, not runs");
  if (from.kind !== to.kind) throw new InvalidArgumentError("to", "from and to must both be artifacts or both be columns");
  checkRange("maxPaths", args.maxPaths, 1, MAX_PATHS, "a number of paths");
  checkRange("maxDepth", args.maxDepth, 1, MAX_PATH_DEPTH, "a number of hops");
  const filters: LineageFilters = { asOf: args.asOf, stepBoundaryOnly: args.stepBoundaryOnly };
  await assertExists(reader, [from, to]);
  if (from.id === to.id) return { paths: [], truncated: false };
  const hop = hopReader(reader, from.kind, filters);
  const forward = await search(hop, from.id, to.id, args);
  if (forward.paths.length > 0) return { paths: forward.paths.map((path) => toRecord(path)), truncated: forward.truncated };
  const backward = await search(hop, to.id, from.id, args);
  return { paths: backward.paths.map((path) => toRecord({ nodes: [...path.nodes].reverse(), hops: [...path.hops].reverse() })), truncated: forward.truncated || backward.truncated };
}

function toRecord(path: { nodes: string[]; hops: Hop[] }): LineagePathRecord {
  return {
    nodeIds: path.nodes,
    edges: path.hops.map((h) =>
      h.columnType !== null
        ? { ...emptyEdge(graphEdgeId.column(h.id), h.columnType === "INDIRECT" ? "COLUMN_INDIRECT" : "COLUMN_DIRECT", h.source, h.target), runId: h.runId, subtype: h.subtype, masking: h.masking }
        : { ...emptyEdge(graphEdgeId.derived(h.id), "DERIVED", h.source, h.target), runId: h.runId, groupId: h.groupId, derivationKind: h.kind },
    ),
    length: path.hops.length,
  };
}

type HopReader = (nodes: readonly string[], direction: "down" | "up") => Promise<Hop[]>;

async function assertExists(reader: GraphReadClient, refs: GraphNodeRef[]): Promise<void> {
  const p = new StatementParams(reader.provider);
  const artifacts = refs.filter((r) => r.kind === "ARTIFACT").map((r) => r.id);
  const columns = refs.filter((r): r is Extract<GraphNodeRef, { kind: "COLUMN" }> => r.kind === "COLUMN").map((r) => [r.artifactId, r.field] as const);
  const sql =
    `SELECT a.id AS id, NULL AS field FROM "Artifact" a WHERE a.id IN (SELECT value FROM ${p.list(artifacts)}) ` +
    `UNION ALL SELECT pairs.artifact, pairs.field FROM ${p.pairList(columns)} WHERE EXISTS (SELECT 1 FROM "DatasetColumn" d WHERE d."artifactId" = pairs.artifact AND d.field = pairs.field) ` +
    `OR EXISTS (SELECT 1 FROM "ColumnEdge" e WHERE (e."sourceId" = pairs.artifact AND e."sourceField" = pairs.field) OR (e."targetId" = pairs.artifact AND e."targetField" = pairs.field))`;
  const found = new Set(rowObjects(await reader.readRows(sql, p.params)).map((r) => (r.field == null ? String(r.id) : columnNodeId(String(r.id), String(r.field)))));
  for (const [field, ref] of [["from", refs[0]], ["to", refs[1]]] as const) {
    if (!found.has(ref.id)) throw new NotFoundError(ref.kind === "COLUMN" ? "column" : "artifact", ref.id, field);
  }
}

/** One statement per hop: the edges out of (down) or into (up) a set of nodes. */
function hopReader(reader: GraphReadClient, kind: "ARTIFACT" | "COLUMN", filters: LineageFilters): HopReader {
  return async (nodes, direction) => {
    const p = new StatementParams(reader.provider);
    let sql: string;
    if (kind === "ARTIFACT") {
      const near = direction === "down" ? `"sourceId"` : `"targetId"`;
      sql =
        `SELECT e.id, e."sourceId" AS source, e."targetId" AS target, e."runId" AS run, e.kind, e."groupId" AS grp, NULL AS ctype, NULL AS subtype, NULL AS masking ` +
        `FROM "ProvenanceEdge" e WHERE e.${near} IN (SELECT value FROM ${p.list(nodes)})${edgeConditions(p, filters, "e")}`;
    } else {
      const pairs = nodes.map((id) => {
        const ref = parseGraphNodeId("id", id) as Extract<GraphNodeRef, { kind: "COLUMN" }>;
        return [ref.artifactId, ref.field] as const;
      });
      const [nearId, nearField] = direction === "down" ? [`"sourceId"`, `"sourceField"`] : [`"targetId"`, `"targetField"`];
      sql =
        `SELECT e.id, e."sourceId" AS source, e."sourceField" AS sfield, e."targetId" AS target, e."targetField" AS tfield, e."runId" AS run, NULL AS kind, NULL AS grp, e.type AS ctype, e.subtype, e.masking ` +
        `FROM ${p.pairList(pairs)} JOIN "ColumnEdge" e ON e.${nearId} = pairs.artifact AND e.${nearField} = pairs.field WHERE e."targetField" IS NOT NULL${columnEdgeConditions(p, filters, "e")}`;
    }
    return rowObjects(await reader.readRows(sql, p.params)).map((r) => ({
      id: asNumber(r.id),
      source: kind === "ARTIFACT" ? String(r.source) : columnNodeId(String(r.source), String(r.sfield)),
      target: kind === "ARTIFACT" ? String(r.target) : columnNodeId(String(r.target), String(r.tfield)),
      runId: String(r.run),
      kind: asText(r.kind) as ProvenanceEdgeKind | null,
      groupId: asText(r.grp),
      columnType: asText(r.ctype),
      subtype: asText(r.subtype),
      masking: r.masking == null ? null : asBoolean(r.masking),
    }));
  };
}

interface FoundPath {
  nodes: string[];
  hops: Hop[];
}

async function search(hop: HopReader, start: string, goal: string, args: LineagePathArgs): Promise<{ paths: FoundPath[]; truncated: boolean }> {
  const distF = new Map<string, number>([[start, 0]]);
  const distB = new Map<string, number>([[goal, 0]]);
  let frontierF = [start];
  let frontierB = [goal];
  let a = 0;
  let b = 0;
  const edges = new Map<number, Hop>();
  let met = false;
  let truncated = false;
  let paths: FoundPath[] = [];
  while (a + b < args.maxDepth) {
    if (frontierF.length === 0 && frontierB.length === 0) break;
    // Expand the smaller frontier (one that is empty cannot lead anywhere).
    const forward = frontierB.length === 0 || (frontierF.length > 0 && frontierF.length <= frontierB.length);
    const read = await hop(forward ? frontierF : frontierB, forward ? "down" : "up");
    const dist = forward ? distF : distB;
    const depth = (forward ? a : b) + 1;
    const next: string[] = [];
    for (const e of read) {
      edges.set(e.id, e);
      const far = forward ? e.target : e.source;
      if (!dist.has(far)) {
        dist.set(far, depth);
        next.push(far);
      }
    }
    if (forward) {
      a = depth;
      frontierF = next.sort(compareIds);
    } else {
      b = depth;
      frontierB = next.sort(compareIds);
    }
    if (distF.size + distB.size > PATH_SEARCH_BUDGET) {
      truncated = true;
      break;
    }
    met ||= next.some((id) => (forward ? distB : distF).has(id));
    if (!met) continue;
    // Every path of length ≤ a + b lies within the edges read: enumerate them, shortest first.
    paths = enumerate(edges, start, goal, a + b, args.maxPaths + 1);
    if (paths.length > args.maxPaths) break;
  }
  if (paths.length > args.maxPaths) {
    truncated = true;
    paths = paths.slice(0, args.maxPaths);
  }
  return { paths, truncated };
}

/**
 * Simple paths from start to goal of at most `limit` hops over the edges read, shortest first (then by
 * node ids), at most `most`. Distances to the goal over those edges prune the search.
 */
function enumerate(edges: Map<number, Hop>, start: string, goal: string, limit: number, most: number): FoundPath[] {
  const out = new Map<string, Hop[]>();
  const into = new Map<string, Hop[]>();
  for (const e of [...edges.values()].sort((x, y) => x.id - y.id)) {
    appendTo(out, e.source, e);
    appendTo(into, e.target, e);
  }
  const toGoal = new Map<string, number>([[goal, 0]]);
  let layer = [goal];
  while (layer.length > 0) {
    const next: string[] = [];
    for (const node of layer) {
      for (const e of into.get(node) ?? []) {
        if (!toGoal.has(e.source)) {
          toGoal.set(e.source, toGoal.get(node)! + 1);
          next.push(e.source);
        }
      }
    }
    layer = next;
  }
  const shortest = toGoal.get(start);
  if (shortest === undefined) return [];
  const found: FoundPath[] = [];
  for (let length = shortest; length <= limit && found.length < most; length++) {
    const nodes = [start];
    const hops: Hop[] = [];
    const onPath = new Set([start]);
    const walk = (node: string, left: number) => {
      if (found.length >= most) return;
      if (left === 0) {
        if (node === goal) found.push({ nodes: [...nodes], hops: [...hops] });
        return;
      }
      // One hop per neighbour (its first edge), neighbours in id order.
      const firstEdge = new Map<string, Hop>();
      for (const e of out.get(node) ?? []) if (!firstEdge.has(e.target)) firstEdge.set(e.target, e);
      for (const [next, e] of [...firstEdge].sort(([x], [y]) => compareIds(x, y))) {
        const d = toGoal.get(next);
        if (d === undefined || d > left - 1 || onPath.has(next) || (next === goal && left - 1 > 0)) continue;
        onPath.add(next);
        nodes.push(next);
        hops.push(e);
        walk(next, left - 1);
        hops.pop();
        nodes.pop();
        onPath.delete(next);
      }
    };
    walk(start, length);
  }
  return found;
}

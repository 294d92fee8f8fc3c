import type { ReadDatabase } from "../../db/client";
import type { RawRows, RowStream } from "../../db/direct-statements";
import { storedTime } from "../../db/rows-by-id";
import { type ClosureStatementOptions, closureStatement } from "./closure-sql";
import { InvalidArgumentError, NotFoundError, PageSizeError } from "../errors";
import type { ArtifactId, RunId } from "../ids";
import type { LineageDirection, ProvenanceEdgeKind, ProvenanceEdgeRecord } from "./lineage-records";
import { type ArtifactRecord, parseJson } from "../records";

/**
 * Nodes a closure returns (besides its root) when `first` is not given: sized for a client's first,
 * interactive question (its cost estimate fits the request limit with room for nested fields); a
 * client that wants more asks for up to MAX_CLOSURE_NODES, and `truncated` says when there is more.
 */
export const DEFAULT_CLOSURE_NODES = 1_000;
/** The most nodes one closure returns; `first` above it is a PAGE_SIZE error. */
export const MAX_CLOSURE_NODES = 50_000;
/** Up to this maxDepth a closure walks (node, depth) pairs and cuts in SQL; beyond it, or with none, it walks each node once. */
export const DEPTH_WALK_MAX_DEPTH = 16;
/** The most (node, depth) rows a depth-bounded walk may produce (bounds the work of many-path graphs). */
export const DEPTH_WALK_STEP_BUDGET = 500_000;
/** The most nodes a type-filtered transitive walk visits looking for matches. */
export const FILTERED_WALK_NODE_BUDGET = 100_000;
/** The most types one `artifactTypes` filter may list. */
export const MAX_ARTIFACT_TYPE_FILTERS = 100;

export interface ClosureQuery {
  rootId: ArtifactId;
  direction: LineageDirection;
  /** null = fully transitive; 0 = the root alone. */
  maxDepth?: number | null;
  /** Return only nodes of these types; the walk still passes through nodes of other types. */
  artifactTypes?: readonly string[] | null;
  /** Follow (and return) only step-boundary edges. */
  stepBoundaryOnly?: boolean | null;
  /** Answer as of this instant: edges recorded later are ignored. */
  asOf?: Date | null;
  /** Nodes to return besides the root (nearest first); default 1,000, at most 50,000. */
  first?: number | null;
  /** Read the artifact records of the root and the nodes in the same statement. */
  withArtifacts?: boolean;
  /** Read each edge's kind, groupId, runId, … (default true); without them an edge is its ids. */
  edgeDetails?: boolean;
}

/** An edge of a closure: its ids, and its full record unless the query left details out. */
export interface ClosureEdge {
  id: number;
  sourceId: ArtifactId;
  targetId: ArtifactId;
  record: ProvenanceEdgeRecord | null;
}

export interface ClosureNode {
  artifactId: ArtifactId;
  /** From the denormalized type on the edge that reached it. */
  artifactType: string;
  /** Fewest hops from the root. */
  depth: number;
}

export interface Closure {
  rootId: ArtifactId;
  direction: LineageDirection;
  /** Nearest first (by depth, then id). */
  nodes: ClosureNode[];
  /** The edges among the returned nodes and the root, by id (= recording order). */
  edges: ClosureEdge[];
  /** More nodes matched than were returned (cut at `first` or at the walk's budget), keeping the nearest. */
  truncated: boolean;
  /** The records of the root and the nodes, when the query asked for them (withArtifacts). */
  artifacts: Map<ArtifactId, ArtifactRecord>;
}

/** A validated closure query with the walk that answers it. */
export interface ClosurePlan extends ClosureStatementOptions {
  rootId: ArtifactId;
  /** maxDepth, or Infinity for a fully transitive closure. */
  requestedDepth: number;
}

/**
 * Checks a closure query's arguments and picks its walk (see closure-sql.ts). A transitive
 * walk without a type filter needs only the first + 1 nearest nodes (plus the root) to know
 * whether it was cut; with a filter, matching nodes may lie anywhere, so it walks up to
 * FILTERED_WALK_NODE_BUDGET nodes.
 */
export function planClosure(query: ClosureQuery): ClosurePlan {
  const first = query.first ?? DEFAULT_CLOSURE_NODES;
  if (!Number.isInteger(first) || first < 0 || first > MAX_CLOSURE_NODES) throw new PageSizeError("first", first, MAX_CLOSURE_NODES);
  const maxDepth = query.maxDepth ?? null;
  if (maxDepth !== null && (!Number.isInteger(maxDepth) || maxDepth < 0)) {
    throw new InvalidArgumentError("maxDepth", `must be a whole number of hops, 0 or more (null = fully transitive), got ${maxDepth}`);
  }
  const artifactTypes = query.artifactTypes ?? null;
  if (artifactTypes !== null) {
    if (artifactTypes.length === 0) throw new InvalidArgumentError("artifactTypes", "must list at least one type (omit it to return every type)");
    if (artifactTypes.length > MAX_ARTIFACT_TYPE_FILTERS) throw new InvalidArgumentError("artifactTypes", `may list at most ${MAX_ARTIFACT_TYPE_FILTERS} types`);
    if (artifactTypes.some((type) => type.trim() === "")) throw new InvalidArgumentError("artifactTypes", "types must not be empty");
  }
  const depthWalk = maxDepth !== null && maxDepth <= DEPTH_WALK_MAX_DEPTH;
  return {
    mode: depthWalk ? "depth" : "reach",
    rootId: query.rootId,
    direction: query.direction,
    depthBound: depthWalk ? maxDepth : 0,
    requestedDepth: maxDepth ?? Number.POSITIVE_INFINITY,
    artifactTypes: artifactTypes ? [...new Set(artifactTypes)] : null,
    stepBoundaryOnly: query.stepBoundaryOnly ?? false,
    asOf: query.asOf ?? null,
    first,
    budget: depthWalk ? DEPTH_WALK_STEP_BUDGET : artifactTypes ? FILTERED_WALK_NODE_BUDGET + 1 : first + 2,
    withArtifacts: query.withArtifacts ?? false,
    edgeDetails: query.edgeDetails ?? true,
  };
}

/** Transitive backward (UPSTREAM) and forward (DOWNSTREAM) closures, one recursive statement each. */
export class ClosureReader {
  constructor(private readonly database: ReadDatabase) {}

  async closure(query: ClosureQuery): Promise<Closure> {
    const plan = planClosure(query);
    const { sql, params } = closureStatement(this.database.provider, plan);
    // Tens of thousands of rows: read as arrays straight from the driver (Prisma would map each into an object).
    return closureFromRows(plan, await this.database.readRowStream(sql, params));
  }
}

/** The columns of one row of the closure statement (see closure-sql.ts for what each kind of row carries). */
export interface ClosureRow {
  row: "root" | "node" | "edge" | "meta";
  id: string | null;
  otherId: string | null;
  type: string | null;
  n: number | bigint | null;
  n2: number | bigint | null;
  kind?: string | null;
  groupId?: string | null;
  runId?: string | null;
  stepBoundary?: boolean | number | null;
  sourceType?: string | null;
  targetType?: string | null;
  createdAt?: Date | string | null;
  artifactType?: string | null;
  contentHash?: string | null;
  originalName?: string | null;
  metadata?: string | null;
  datasetNamespace?: string | null;
  datasetName?: string | null;
  datasetVersion?: string | null;
  artifactCreatedAt?: Date | string | null;
}

/** The closure statement's result, as rows of values in `columnNames` order. */
export function closureFromRows(plan: ClosurePlan, result: RawRows | RowStream): Closure {
  const at = columnsOf(result.columnNames);
  let rootFound = false;
  let candidateCount = 0;
  let steps = 0;
  const nodeRows: unknown[][] = [];
  let edges: ClosureEdge[] = [];
  const artifacts = new Map<ArtifactId, ArtifactRecord>();
  for (const row of result.rows) {
    switch (row[at.row]) {
      case "edge": {
        const sourceId = row[at.id] as ArtifactId;
        const targetId = row[at.otherId] as ArtifactId;
        const id = Number(row[at.n]);
        edges.push({ id, sourceId, targetId, record: plan.edgeDetails ? edgeFromRow(id, sourceId, targetId, row, at) : null });
        break;
      }
      case "node":
        nodeRows.push(row);
        if (plan.withArtifacts && row[at.contentHash] != null) artifacts.set(row[at.id] as ArtifactId, artifactFromRow(row, at));
        break;
      case "root":
        rootFound = true;
        if (plan.withArtifacts) artifacts.set(row[at.id] as ArtifactId, artifactFromRow(row, at));
        break;
      case "meta":
        candidateCount = Number(row[at.n]);
        steps = Number(row[at.n2]);
        break;
    }
  }
  if (!rootFound) throw new NotFoundError("artifact", plan.rootId, "artifactId");
  const budgetSpent = steps >= plan.budget;
  edges.sort((a, b) => a.id - b.id);
  if (plan.mode === "depth") {
    // The statement already kept the nearest `first` matches and the edges among them.
    const nodes = nodeRows.map((row) => ({ artifactId: row[at.id] as ArtifactId, artifactType: row[at.type] as string, depth: Number(row[at.n]) }));
    nodes.sort((a, b) => a.depth - b.depth || compareIds(a.artifactId, b.artifactId));
    return { rootId: plan.rootId, direction: plan.direction, nodes, edges, truncated: candidateCount > plan.first || budgetSpent, artifacts };
  }

  // A reach walk: number the nodes (the root is 0; a node the walk met under two types counts
  // once), find each one's depth breadth-first over the edges, keep the nearest matches.
  const numbers = new Map<string, number>([[plan.rootId, 0]]);
  const ids: ArtifactId[] = [plan.rootId];
  const types: string[] = [""];
  for (const row of nodeRows) {
    const id = row[at.id] as ArtifactId;
    if (numbers.has(id)) continue;
    numbers.set(id, ids.length);
    ids.push(id);
    types.push(row[at.type] as string);
  }
  const depth = breadthFirstDepths(ids.length, plan.direction, edges, numbers);
  const wanted = plan.artifactTypes ? new Set(plan.artifactTypes) : null;
  const matches: number[] = [];
  let deepestWalked = 0;
  for (let n = 1; n < ids.length; n++) {
    deepestWalked = Math.max(deepestWalked, depth[n]);
    if (depth[n] > 0 && depth[n] <= plan.requestedDepth && (!wanted || wanted.has(types[n]))) matches.push(n);
  }
  matches.sort((a, b) => depth[a] - depth[b] || compareIds(ids[a], ids[b]));
  const kept = matches.length > plan.first ? matches.slice(0, plan.first) : matches;
  const nodes = kept.map((n) => ({ artifactId: ids[n], artifactType: types[n], depth: depth[n] }));
  if (kept.length < ids.length - 1) {
    // Some walked nodes are not returned (filtered, too deep or cut): keep only edges among the rest.
    const keep = new Uint8Array(ids.length);
    keep[0] = 1;
    for (const n of kept) keep[n] = 1;
    const isKept = (id: ArtifactId) => {
      const n = numbers.get(id);
      return n !== undefined && keep[n] === 1;
    };
    edges = edges.filter((edge) => isKept(edge.sourceId) && isKept(edge.targetId));
    if (plan.withArtifacts) for (const id of artifacts.keys()) if (!isKept(id)) artifacts.delete(id);
  }
  return {
    rootId: plan.rootId,
    direction: plan.direction,
    nodes,
    edges,
    // A walk cut by its budget saw every node nearer than the deepest one it reached.
    truncated: matches.length > plan.first || (budgetSpent && deepestWalked <= plan.requestedDepth),
    artifacts,
  };
}

/** Where each column of the statement's result is (-1 when the statement did not select it). */
type ColumnIndex = Record<keyof ClosureRow, number>;
const CLOSURE_COLUMNS: (keyof ClosureRow)[] = [
  "row", "id", "otherId", "type", "n", "n2", "kind", "groupId", "runId", "stepBoundary", "sourceType", "targetType", "createdAt",
  "artifactType", "contentHash", "originalName", "metadata", "datasetNamespace", "datasetName", "datasetVersion", "artifactCreatedAt",
];

function columnsOf(names: readonly string[]): ColumnIndex {
  return Object.fromEntries(CLOSURE_COLUMNS.map((column) => [column, names.indexOf(column)])) as ColumnIndex;
}

const valueAt = (row: readonly unknown[], index: number): unknown => (index < 0 ? null : (row[index] ?? null));

function edgeFromRow(id: number, sourceId: ArtifactId, targetId: ArtifactId, row: readonly unknown[], at: ColumnIndex): ProvenanceEdgeRecord {
  return {
    id,
    sourceId,
    targetId,
    runId: valueAt(row, at.runId) as RunId,
    kind: valueAt(row, at.kind) as ProvenanceEdgeKind,
    groupId: (valueAt(row, at.groupId) as string | null) ?? null,
    // SQLite answers 1/0, PostgreSQL true/false.
    stepBoundary: Boolean(valueAt(row, at.stepBoundary)),
    sourceType: valueAt(row, at.sourceType) as string,
    targetType: valueAt(row, at.targetType) as string,
    createdAt: storedTime(valueAt(row, at.createdAt))!,
  };
}

/**
 * Fewest hops from node 0 (the root) to every numbered node, walking the edges in `direction`;
 * -1 for nodes the edges do not connect to it. Runs over typed arrays: closures reach 50,000 nodes.
 */
export function breadthFirstDepths(
  count: number,
  direction: LineageDirection,
  edges: readonly { sourceId: ArtifactId; targetId: ArtifactId }[],
  numbers: ReadonlyMap<string, number>,
): Int32Array {
  const from = new Int32Array(edges.length);
  const to = new Int32Array(edges.length);
  let m = 0;
  for (const edge of edges) {
    const a = numbers.get(direction === "UPSTREAM" ? edge.targetId : edge.sourceId);
    const b = numbers.get(direction === "UPSTREAM" ? edge.sourceId : edge.targetId);
    if (a === undefined || b === undefined) continue; // an edge to a node a cut walk never reached
    from[m] = a;
    to[m] = b;
    m++;
  }
  // Adjacency in compressed rows: the successors of n are next[offset[n] .. offset[n + 1]).
  const offset = new Int32Array(count + 1);
  for (let i = 0; i < m; i++) offset[from[i] + 1] += 1;
  for (let n = 0; n < count; n++) offset[n + 1] += offset[n];
  const fill = offset.slice(0, count);
  const next = new Int32Array(m);
  for (let i = 0; i < m; i++) next[fill[from[i]]++] = to[i];
  const depth = new Int32Array(count).fill(-1);
  const queue = new Int32Array(count);
  depth[0] = 0;
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const n = queue[head++];
    for (let k = offset[n]; k < offset[n + 1]; k++) {
      if (depth[next[k]] < 0) {
        depth[next[k]] = depth[n] + 1;
        queue[tail++] = next[k];
      }
    }
  }
  return depth;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function artifactFromRow(row: readonly unknown[], at: ColumnIndex): ArtifactRecord {
  const namespace = valueAt(row, at.datasetNamespace) as string | null;
  const name = valueAt(row, at.datasetName) as string | null;
  return {
    id: row[at.id] as ArtifactId,
    artifactType: valueAt(row, at.artifactType) as string,
    contentHash: valueAt(row, at.contentHash) as string,
    originalName: valueAt(row, at.originalName) as string,
    metadata: parseJson(valueAt(row, at.metadata) as string | null),
    dataset: namespace !== null && name !== null ? { namespace, name, version: (valueAt(row, at.datasetVersion) as string | null) ?? null } : null,
    createdAt: storedTime(valueAt(row, at.artifactCreatedAt))!,
  };
}

import type { ReadDatabase } from "../../db/client";
import { InvalidArgumentError, PageSizeError } from "../errors";
import type { ArtifactId } from "../ids";
import type { LineageDirection } from "../lineage";
import { columnClosureStatement, type ColumnClosureStatementOptions } from "./column-closure-sql";
import { type ColumnEdgeRecord, type ColumnEdgeType, type ColumnRef, columnKey, COLUMN_EDGE_TYPES, toColumnEdgeRecord } from "./column-records";
import { appendTo } from "../grouping";

/** Columns a column closure returns (besides its root) when `first` is not given (sized as DEFAULT_CLOSURE_NODES is), and at most. */
export const DEFAULT_COLUMN_CLOSURE_NODES = 1_000;
export const MAX_COLUMN_CLOSURE_NODES = 50_000;
/** Up to this maxDepth the walk goes by (column, depth); beyond it, or with none, each column is walked once. */
export const COLUMN_DEPTH_WALK_MAX_DEPTH = 16;
/** The most rows a walk may produce. */
export const COLUMN_WALK_BUDGET = 500_000;

export interface ColumnClosureQuery {
  root: { artifactId: ArtifactId; field: string };
  direction: LineageDirection;
  /** null = fully transitive; 0 = the root alone. */
  maxDepth?: number | null;
  /** Follow only edges of these types (default both). */
  types?: readonly ColumnEdgeType[] | null;
  first?: number | null;
}

export interface ColumnClosureNode extends ColumnRef {
  /** Fewest hops from the root. */
  depth: number;
}

export interface ColumnClosure {
  root: ColumnRef;
  direction: LineageDirection;
  /** Nearest first (by depth, then artifact id and field); a dataset-wide target (field null) is a node of its own. */
  nodes: ColumnClosureNode[];
  /** The edges among the root and the returned nodes, by id (= recording order). */
  edges: ColumnEdgeRecord[];
  truncated: boolean;
}

interface Row {
  row: "node" | "edge" | "meta";
  id: string | null;
  field: string | null;
  otherId: string | null;
  otherField: string | null;
  n: number | bigint | null;
  n2: number | bigint | null;
  runId: string | null;
  type: string | null;
  subtype: string | null;
  description: string | null;
  masking: boolean | number | null;
  createdAt: Date | string | null;
}

/** The raw result of a walk: every node reached, the edges at them, whether the budget cut it. */
export interface ColumnWalk {
  nodes: Map<string, ColumnRef & { depth: number | null }>;
  edges: ColumnEdgeRecord[];
  budgetSpent: boolean;
}

export async function runColumnWalk(database: ReadDatabase, options: ColumnClosureStatementOptions): Promise<ColumnWalk> {
  const { sql, params } = columnClosureStatement(database.provider, options);
  const rows = await database.reader.$queryRawUnsafe<Row[]>(sql, ...params);
  const nodes = new Map<string, ColumnRef & { depth: number | null }>();
  const edges = new Map<number, ColumnEdgeRecord>();
  let steps = 0;
  for (const row of rows) {
    if (row.row === "node") {
      const ref = { artifactId: row.id as ArtifactId, field: row.field };
      nodes.set(columnKey(ref), { ...ref, depth: row.n === null ? null : Number(row.n) });
    } else if (row.row === "edge") {
      const id = Number(row.n);
      if (!edges.has(id)) {
        edges.set(
          id,
          toColumnEdgeRecord({
            id,
            sourceId: row.id as string,
            sourceField: row.field as string,
            targetId: row.otherId as string,
            targetField: row.otherField,
            runId: row.runId as string,
            type: row.type as string,
            subtype: row.subtype,
            description: row.description,
            masking: row.masking ?? false,
            createdAt: row.createdAt ?? new Date(0),
          }),
        );
      }
    } else {
      steps = Number(row.n2);
    }
  }
  return { nodes, edges: [...edges.values()].sort((a, b) => a.id - b.id), budgetSpent: steps >= options.budget };
}

/** The ends of an edge, as the walk in `direction` meets them. */
export function edgeEnds(edge: ColumnEdgeRecord, direction: LineageDirection): { near: ColumnRef; far: ColumnRef } {
  const source = { artifactId: edge.sourceId, field: edge.sourceField };
  const target = { artifactId: edge.targetId, field: edge.targetField };
  return direction === "UPSTREAM" ? { near: target, far: source } : { near: source, far: target };
}

/**
 * The edges a walk follows from a node: upstream, those into the column and the dataset-wide ones
 * into its dataset version; downstream, those out of the column (out of every column of the
 * version, from a dataset-wide node).
 */
export function edgesAt(edges: readonly ColumnEdgeRecord[], direction: LineageDirection): (node: ColumnRef) => ColumnEdgeRecord[] {
  const byKey = new Map<string, ColumnEdgeRecord[]>();
  const add = (key: string, edge: ColumnEdgeRecord) => appendTo(byKey, key, edge);
  for (const edge of edges) {
    if (direction === "UPSTREAM") add(columnKey({ artifactId: edge.targetId, field: edge.targetField }), edge);
    else {
      add(columnKey({ artifactId: edge.sourceId, field: edge.sourceField }), edge);
      add(columnKey({ artifactId: edge.sourceId, field: null }), edge);
    }
  }
  return (node) => {
    if (direction === "DOWNSTREAM") return byKey.get(columnKey(node)) ?? [];
    // Upstream from a column: its own edges and the dataset-wide ones into its version.
    return [...(byKey.get(columnKey(node)) ?? []), ...(node.field === null ? [] : (byKey.get(columnKey({ artifactId: node.artifactId, field: null })) ?? []))];
  };
}

/** Transitive column lineage: one recursive statement per closure (column-closure-sql.ts). */
export class ColumnClosureReader {
  constructor(private readonly database: ReadDatabase) {}

  async closure(query: ColumnClosureQuery): Promise<ColumnClosure> {
    const first = query.first ?? DEFAULT_COLUMN_CLOSURE_NODES;
    if (!Number.isInteger(first) || first < 0 || first > MAX_COLUMN_CLOSURE_NODES) throw new PageSizeError("first", first, MAX_COLUMN_CLOSURE_NODES);
    const maxDepth = query.maxDepth ?? null;
    if (maxDepth !== null && (!Number.isInteger(maxDepth) || maxDepth < 0)) {
      throw new InvalidArgumentError("maxDepth", `must be a whole number of hops, 0 or more (null = fully transitive), got ${maxDepth}`);
    }
    const types = query.types ?? null;
    if (types !== null && types.length === 0) throw new InvalidArgumentError("types", `must list at least one of ${COLUMN_EDGE_TYPES.join(", ")} (omit it to follow both)`);
    const depthWalk = maxDepth !== null && maxDepth <= COLUMN_DEPTH_WALK_MAX_DEPTH;
    const walk = await runColumnWalk(this.database, {
      mode: depthWalk ? "depth" : "reach",
      seeds: { root: query.root },
      direction: query.direction,
      depthBound: depthWalk ? maxDepth : 0,
      types: types ? [...new Set(types)] : null,
      budget: COLUMN_WALK_BUDGET,
    });
    const rootKey = columnKey(query.root);
    // Depths breadth-first over the walk's edges (a depth walk's are the same, found in SQL).
    const depth = new Map<string, number>([[rootKey, 0]]);
    const at = edgesAt(walk.edges, query.direction);
    let frontier: ColumnRef[] = [query.root];
    for (let hops = 1; frontier.length > 0 && hops <= (maxDepth ?? Number.POSITIVE_INFINITY); hops++) {
      const next: ColumnRef[] = [];
      for (const node of frontier) {
        for (const edge of at(node)) {
          const { far } = edgeEnds(edge, query.direction);
          const key = columnKey(far);
          if (depth.has(key) || !walk.nodes.has(key)) continue;
          depth.set(key, hops);
          next.push(far);
        }
      }
      frontier = next;
    }
    const candidates = [...depth.entries()]
      .filter(([key]) => key !== rootKey)
      .map(([key, d]) => ({ ...walk.nodes.get(key)!, depth: d }))
      .sort((a, b) => a.depth - b.depth || compare(a.artifactId, b.artifactId) || compare(a.field ?? "", b.field ?? "") || (a.field === null ? -1 : 1));
    const nodes = candidates.slice(0, first);
    const kept = new Set([rootKey, ...nodes.map(columnKey)]);
    const keptArtifacts = new Set([query.root.artifactId as string, ...nodes.map((n) => n.artifactId as string)]);
    // An edge among the kept: its far end kept, and its near end a kept column — or, for a
    // dataset-wide edge walked upstream, a version one of whose columns is kept; walked downstream
    // from a kept whole version, any edge out of it.
    const walkedFrom = (near: ColumnRef) =>
      kept.has(columnKey(near)) ||
      (query.direction === "UPSTREAM" ? near.field === null && keptArtifacts.has(near.artifactId) : kept.has(columnKey({ artifactId: near.artifactId, field: null })));
    const edges = walk.edges.filter((edge) => {
      const { near, far } = edgeEnds(edge, query.direction);
      return kept.has(columnKey(far)) && walkedFrom(near);
    });
    return { root: query.root, direction: query.direction, nodes: nodes.map(({ artifactId, field, depth: d }) => ({ artifactId, field, depth: d })), edges, truncated: candidates.length > first || walk.budgetSpent };
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

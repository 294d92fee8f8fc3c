import { InvalidArgumentError, NotFoundError } from "../errors";
import { columnsOfGraph, columnRootsGraph } from "./column-graph";
import { checkCount, checkRange, GRAPH_WALK_BUDGET, MAX_GRAPH_DEPTH, MAX_GRAPH_NODES, tooManyGraphRoots } from "./graph-limits";
import { type GraphNodeRef, parseGraphNodeId } from "./graph-node-ids";
import { graphEdgeId, type GraphDirection, type LineageGraphEdgeRecord, type LineageGraphNodeRecord, type LineageGraphRecord } from "./graph-records";
import { layOutLineageGraph, markBackwardEdges } from "./lineage-graph-layout";
import type { LineageFilters } from "./lineage-filters";
import { compareIds, type DerivationEdgeFact, type NeighbourhoodFacts, readNeighbourhood, readWalk, related, type WalkResult } from "./neighbourhood";
import type { GraphReadContext } from "./read-client";
import { groupBy } from "../grouping";

export interface LineageGraphArgs {
  /** Node ids: art_…, run_…, col:<art_…>:<field>. */
  roots: readonly string[];
  direction: GraphDirection;
  /** Derivation hops from the roots (0 = the roots alone). */
  depth: number;
  asOf: Date | null;
  stepBoundaryOnly: boolean;
  /** Also draw the columns of the dataset versions shown, and the column edges among them. */
  columns: boolean;
  /** Give every node a box and every edge a route (left to right). */
  layout: boolean;
  /** Nodes besides the roots (artifacts and runs; columns are bounded on their own). */
  first: number;
}

/** Checks the arguments before anything is read: INVALID_ID, INVALID_ARGUMENT, PAGE_SIZE. */
export function parseGraphArgs(args: LineageGraphArgs): GraphNodeRef[] {
  if (args.roots.length === 0) throw new InvalidArgumentError("roots", "give at least one node id");
  const tooMany = tooManyGraphRoots(args.roots.length);
  if (tooMany) throw tooMany;
  const roots = args.roots.map((id) => parseGraphNodeId("roots", id));
  checkRange("depth", args.depth, 0, MAX_GRAPH_DEPTH, "a whole number of hops");
  checkCount("first", args.first, MAX_GRAPH_NODES);
  return roots;
}

/**
 * A neighbourhood graph for a user interface (docs: "Lineage and graphs"): the roots and what lies
 * within `depth` derivation hops of them, upstream and/or downstream, as one graph of artifacts,
 * runs and — with `columns` — columns.
 *
 * One hop is a run and what it derived: upstream of an artifact, the runs that produced it and the
 * parents they derived it from; downstream, the runs that used it and the children they derived from
 * it, each child with its whole co-input group (all the sources of its joint derivation, though only
 * one of them lies on the walk). A run has the depth of its hop (−1 for a run that produced a root,
 * +1 for one that used it); a co-input has the depth of the artifacts it was used with (one hop
 * before the child). Within `first` nodes, whole hops are kept nearest first, and within a
 * hop whole pieces (a run with one derivation group it brings); what did not fit shows in the hidden
 * counts of the nodes at the edge of the answer, and `truncated` says so.
 *
 * Reads take a fixed number of statements whatever the graph's size: the walk, the neighbourhood
 * (runs, edges, links, labels and counts), and with `columns` one more.
 */
export async function lineageGraph(args: LineageGraphArgs, { reader }: GraphReadContext): Promise<LineageGraphRecord> {
  const roots = parseGraphArgs(args);
  const filters: LineageFilters = { asOf: args.asOf, stepBoundaryOnly: args.stepBoundaryOnly };
  const up = args.direction !== "DOWNSTREAM";
  const down = args.direction !== "UPSTREAM";
  const artifactRoots = [...new Set(roots.filter((r) => r.kind === "ARTIFACT").map((r) => r.id as string))];
  const runRoots = [...new Set(roots.filter((r) => r.kind === "RUN").map((r) => r.id as string))];
  const columnRoots = roots.filter((r) => r.kind === "COLUMN");

  let graph: AssembledGraph = { nodes: new Map(), edges: [], truncated: false };
  if (artifactRoots.length > 0 || runRoots.length > 0) {
    const walk = await readWalk(reader, { artifactRoots, runRoots, up, down, depth: args.depth, keep: args.first + 1, budget: GRAPH_WALK_BUDGET, filters });
    const missing = artifactRoots.find((id) => !walk.artifactRoots.has(id)) ?? runRoots.find((id) => !walk.runRoots.has(id));
    if (missing) throw new NotFoundError(missing.startsWith("run_") ? "run" : "artifact", missing, "roots");
    const facts = await readNeighbourhood(reader, neighbourhoodQuery(walk, args, filters));
    graph = assemble(walk, facts, args);
  }
  if (columnRoots.length > 0) {
    const columnGraph = await columnRootsGraph(reader, { roots: columnRoots, up, down, depth: args.depth, first: args.first, filters });
    for (const node of columnGraph.nodes) if (!graph.nodes.has(node.id)) graph.nodes.set(node.id, node);
    graph.edges.push(...columnGraph.edges.filter((edge) => !graph.edges.some((e) => e.id === edge.id)));
    graph.truncated ||= columnGraph.truncated;
  } else if (args.columns) {
    const columns = await columnsOfGraph(reader, { nodes: [...graph.nodes.values()], filters });
    for (const node of columns.nodes) graph.nodes.set(node.id, node);
    graph.edges.push(...columns.edges);
    graph.truncated ||= columns.truncated;
  }
  const record: LineageGraphRecord = {
    roots: roots.map((r) => r.id),
    nodes: [...graph.nodes.values()],
    edges: graph.edges,
    truncated: graph.truncated,
    width: null,
    height: null,
  };
  return args.layout ? layOutLineageGraph(record) : withBackwardFlags(record);
}

/** The neighbourhood statement's question: the frontier (short of the depth limit) on each side. */
function neighbourhoodQuery(walk: WalkResult, args: LineageGraphArgs, filters: LineageFilters) {
  const roots = [...walk.artifactRoots];
  const short = (nodes: Map<string, number>) => [...nodes].filter(([, depth]) => depth < args.depth).map(([id]) => id);
  const up = args.direction !== "DOWNSTREAM";
  const down = args.direction !== "UPSTREAM";
  return {
    upFrontier: up ? [...(args.depth > 0 ? roots : []), ...short(walk.up)] : [],
    downFrontier: down ? [...(args.depth > 0 ? roots : []), ...short(walk.down)] : [],
    downArtifacts: [...walk.down.keys()],
    downRoots: down && args.depth > 0 ? roots : [],
    artifacts: [...new Set([...roots, ...walk.up.keys(), ...walk.down.keys()])],
    runRoots: [...walk.runRoots],
    runsPerArtifact: args.first,
    filters,
  };
}

export interface AssembledGraph {
  nodes: Map<string, LineageGraphNodeRecord>;
  edges: LineageGraphEdgeRecord[];
  truncated: boolean;
}

type Side = "up" | "down";

/** One piece of a hop: a run and the artifacts it brings (a derivation group, whole). */
interface Piece {
  runId: string;
  artifacts: string[];
  /** One of them was reached by the walk but not kept by its statement: the hop cannot be drawn whole. */
  lost: boolean;
}

function assemble(walk: WalkResult, facts: NeighbourhoodFacts, args: LineageGraphArgs): AssembledGraph {
  const nodes = new Map<string, LineageGraphNodeRecord>();
  let budget = args.first;
  let truncated = walk.cut;
  const edgesInto = groupBy(facts.edges, (edge) => edge.targetId);
  const edgesFrom = groupBy(facts.edges, (edge) => edge.sourceId);

  const addArtifact = (id: string, depth: number) => {
    if (nodes.has(id)) return;
    const fact = facts.artifacts.get(id);
    const node = emptyNode(id, "ARTIFACT", depth);
    node.label = fact ? artifactLabel(fact) : id;
    node.artifactId = id;
    node.artifactType = fact?.artifactType ?? null;
    node.dataset = fact?.dataset ?? null;
    node.upstreamCount = fact?.up ?? 0;
    node.downstreamCount = fact?.down ?? 0;
    nodes.set(id, node);
  };
  const addRun = (id: string, depth: number) => {
    if (nodes.has(id)) return;
    const fact = facts.runs.get(id);
    const node = emptyNode(id, "RUN", depth);
    node.label = fact?.operation ?? id;
    node.runId = id;
    node.run = fact ? { operation: fact.operation, operationVersion: fact.operationVersion, status: fact.status, pipeline: fact.pipeline, step: fact.step } : null;
    node.upstreamCount = fact?.up ?? 0;
    node.downstreamCount = fact?.down ?? 0;
    nodes.set(id, node);
  };

  for (const id of [...walk.artifactRoots].sort(compareIds)) addArtifact(id, 0);
  for (const id of [...walk.runRoots].sort(compareIds)) addRun(id, 0);

  // The pieces of the hop from `from` (at hops − 1) on one side, in a stable order.
  const piecesFrom = (from: string, side: Side): Piece[] => {
    const reached = side === "up" ? walk.up : walk.down;
    if (walk.runRoots.has(from)) {
      // A root run: its inputs (or outputs), each a piece of its own.
      const artifacts = [...reached].filter(([id, d]) => d === 1 && relates(facts, side, from, id)).map(([id]) => id).sort(compareIds);
      return artifacts.map((id) => ({ runId: from, artifacts: [id], lost: false }));
    }
    const known = (id: string) => reached.has(id) || walk.artifactRoots.has(id);
    // The edges into (upstream) or out of (downstream) `from`, by the run that recorded them.
    const edgesByRun = groupBy((side === "up" ? edgesInto.get(from) : edgesFrom.get(from)) ?? [], (edge) => edge.runId);
    // Downstream, the runs that used it and those that derived an output from it (an output-to-output edge).
    const adjacent = (side === "up" ? facts.producers : facts.consumers).get(from) ?? [];
    const adjacentSet = new Set(adjacent);
    const deriving = side === "down" ? [...edgesByRun.keys()].filter((runId) => !adjacentSet.has(runId)) : [];
    const runs = [...adjacent, ...deriving.sort(compareIds)];
    const pieces: Piece[] = [];
    for (const runId of runs) {
      const edges = edgesByRun.get(runId) ?? [];
      if (edges.length === 0) {
        pieces.push({ runId, artifacts: [], lost: false });
        continue;
      }
      if (side === "up") {
        // The derivation groups of `from` this run recorded: each group's sources come together.
        for (const group of groupBy(edges, derivationKey).values()) {
          const sources = distinct(group.map((edge) => edge.sourceId).sort(compareIds));
          pieces.push({ runId, artifacts: sources, lost: !sources.every(known) });
        }
      } else {
        for (const edge of edges) {
          // The child, and every source of its derivation group (its co-inputs).
          const group = (edgesInto.get(edge.targetId) ?? []).filter((e) => derivationKey(e) === derivationKey(edge));
          const artifacts = distinct([edge.targetId, ...group.map((e) => e.sourceId).sort(compareIds)]);
          pieces.push({ runId, artifacts, lost: !known(edge.targetId) });
        }
      }
    }
    return pieces;
  };

  const frontier: Record<Side, string[]> = {
    up: [...walk.artifactRoots, ...walk.runRoots].sort(compareIds),
    down: [...walk.artifactRoots, ...walk.runRoots].sort(compareIds),
  };
  const coInputs = new Set<string>();
  const sides: Side[] = [...(args.direction !== "DOWNSTREAM" ? (["up"] as const) : []), ...(args.direction !== "UPSTREAM" ? (["down"] as const) : [])];
  let stopped = false;
  hops: for (let hops = 1; hops <= args.depth; hops++) {
    for (const side of sides) {
      const sign = side === "up" ? -1 : 1;
      const reached = side === "up" ? walk.up : walk.down;
      const next = new Set<string>();
      for (const from of frontier[side]) {
        for (const piece of piecesFrom(from, side)) {
          const runIsRoot = piece.runId === from;
          const fresh = [...(runIsRoot || nodes.has(piece.runId) ? [] : [piece.runId]), ...piece.artifacts.filter((id) => !nodes.has(id))];
          // `lost`: an artifact the walk reached but its statement did not keep (it keeps the nearest first + 1).
          if (piece.lost || fresh.length > budget) {
            stopped = true;
            break hops;
          }
          budget -= fresh.length;
          if (!runIsRoot) addRun(piece.runId, sign * hops);
          for (const id of piece.artifacts) {
            const walkedHere = reached.get(id) === hops;
            if (!nodes.has(id)) {
              addArtifact(id, sign * (walkedHere || side === "up" ? hops : hops - 1));
              if (!walkedHere && side === "down") coInputs.add(id);
            } else if (walkedHere && coInputs.delete(id)) {
              // Met first as a co-input, it is also reached at this hop: it is walked on from here.
              nodes.get(id)!.depth = sign * hops;
            }
            if (walkedHere) next.add(id);
          }
        }
      }
      frontier[side] = [...next].sort(compareIds);
    }
  }
  truncated ||= stopped;

  const edges = drawnEdges(nodes, facts);
  countHidden(nodes, edges);
  return { nodes, edges, truncated };
}

/** Whether a run is related to an artifact on a side: its input (upstream) or output (downstream). */
function relates(facts: NeighbourhoodFacts, side: Side, runId: string, artifactId: string): boolean {
  return related(side === "up" ? facts.used : facts.generated, runId, artifactId);
}

/** Every edge between two shown nodes: derivations, and each run's links (one per role) to shown artifacts. */
function drawnEdges(nodes: Map<string, LineageGraphNodeRecord>, facts: NeighbourhoodFacts): LineageGraphEdgeRecord[] {
  const edges: LineageGraphEdgeRecord[] = [];
  // A use's joint derivation: the group of the first derivation the run made from the artifact (run → source → group).
  const groupOfUse = new Map<string, Map<string, string>>();
  for (const edge of facts.edges) {
    if (edge.groupId === null || edge.kind === "OUTPUT_TO_OUTPUT") continue;
    let ofRun = groupOfUse.get(edge.runId);
    if (!ofRun) groupOfUse.set(edge.runId, (ofRun = new Map()));
    if (!ofRun.has(edge.sourceId)) ofRun.set(edge.sourceId, edge.groupId);
  }
  // In the order of (run, artifact), then role: run by run, each run's artifacts sorted.
  for (const kind of ["USED", "GENERATED"] as const) {
    const relation = kind === "USED" ? facts.used : facts.generated;
    for (const runId of [...relation.keys()].sort(compareIds)) {
      if (!nodes.has(runId)) continue;
      const ofRun = relation.get(runId)!;
      for (const artifactId of [...ofRun.keys()].sort(compareIds)) {
        if (!nodes.has(artifactId)) continue;
        const roles = ofRun.get(artifactId)!;
        const groupId = kind === "USED" ? (groupOfUse.get(runId)?.get(artifactId) ?? null) : null;
        for (const role of roles.size > 0 ? [...roles].sort(compareIds) : [null]) {
          edges.push(
            kind === "USED"
              ? linkEdge(graphEdgeId.used(artifactId, runId, role), kind, artifactId, runId, runId, role, groupId)
              : linkEdge(graphEdgeId.generated(runId, artifactId, role), kind, runId, artifactId, runId, role, groupId),
          );
        }
      }
    }
  }
  for (const edge of facts.edges) {
    if (!nodes.has(edge.sourceId) || !nodes.has(edge.targetId)) continue;
    const record = emptyEdge(graphEdgeId.derived(edge.id), "DERIVED", edge.sourceId, edge.targetId);
    record.runId = edge.runId;
    record.groupId = edge.groupId;
    record.derivationKind = edge.kind;
    edges.push(record);
  }
  return edges;
}

/** A USED or GENERATED edge (the fields in emptyEdge's order). */
function linkEdge(id: string, kind: "USED" | "GENERATED", source: string, target: string, runId: string, role: string | null, groupId: string | null): LineageGraphEdgeRecord {
  return { id, kind, source, target, runId, role, groupId, derivationKind: null, subtype: null, masking: null, backward: false, points: null };
}

/**
 * hidden = neighbours − neighbours shown: an artifact's producing runs shown are those with a
 * GENERATED edge into it, its consuming runs those with a USED edge out of it; a run's inputs and
 * outputs likewise. (Column nodes count column edges: column-graph.ts.)
 */
export function countHidden(nodes: Map<string, LineageGraphNodeRecord>, edges: readonly LineageGraphEdgeRecord[]): void {
  const shownUp = new Map<string, Set<string>>();
  const shownDown = new Map<string, Set<string>>();
  const add = (into: Map<string, Set<string>>, node: string, neighbour: string) => {
    const set = into.get(node) ?? new Set<string>();
    into.set(node, set);
    set.add(neighbour);
  };
  for (const edge of edges) {
    if (edge.kind !== "USED" && edge.kind !== "GENERATED") continue;
    add(shownDown, edge.source, edge.target);
    add(shownUp, edge.target, edge.source);
  }
  for (const node of nodes.values()) {
    if (node.kind === "COLUMN") continue;
    node.hiddenUpstream = Math.max(0, node.upstreamCount - (shownUp.get(node.id)?.size ?? 0));
    node.hiddenDownstream = Math.max(0, node.downstreamCount - (shownDown.get(node.id)?.size ?? 0));
  }
}

/** Without a layout, an edge is still backward when it does not lead one column rightwards (see lineage-graph-layout.ts). */
function withBackwardFlags(record: LineageGraphRecord): LineageGraphRecord {
  return markBackwardEdges(record);
}

/** Edges of one derivation: the same run and group (an edge without a group is one of its own). */
export const derivationKey = (edge: DerivationEdgeFact) => (edge.groupId === null ? `edge:${edge.id}` : `${edge.runId}\u0000${edge.groupId}`);

export function artifactLabel(fact: { label: string | null; dataset: { namespace: string; name: string } | null }): string {
  return fact.dataset ? `${fact.dataset.namespace}/${fact.dataset.name}` : (fact.label ?? "");
}

export function emptyNode(id: string, kind: LineageGraphNodeRecord["kind"], depth: number): LineageGraphNodeRecord {
  return {
    id,
    kind,
    label: id,
    depth,
    artifactId: null,
    runId: null,
    field: null,
    artifactType: null,
    dataset: null,
    run: null,
    upstreamCount: 0,
    downstreamCount: 0,
    hiddenUpstream: 0,
    hiddenDownstream: 0,
    box: null,
    ports: null,
  };
}

export function emptyEdge(id: string, kind: LineageGraphEdgeRecord["kind"], source: string, target: string): LineageGraphEdgeRecord {
  return { id, kind, source, target, runId: null, role: null, groupId: null, derivationKind: null, subtype: null, masking: null, backward: false, points: null };
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

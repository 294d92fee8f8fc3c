import { type ArgBuilder, createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import type { GraphQLResolveInfo } from "graphql";
import { builder, type BuilderTypes } from "./builder";
import type { ArtifactId } from "../services/ids";
import {
  type DerivationRecord,
  derivationsOf,
  LINEAGE_DIRECTIONS,
  type LineageDirection,
  PROVENANCE_EDGE_KINDS,
  type ProvenanceEdgeRecord,
  type Closure,
  type ClosureEdge,
  type ClosureNode,
  type ClosureQuery,
  DEFAULT_CLOSURE_NODES,
  MAX_CLOSURE_NODES,
  type ProvenanceMapEntry,
} from "../services/lineage";
import { formatCount } from "../limits";
import type { ArtifactRecord } from "../services/records";
import { ArtifactRef } from "./artifact";
import { resolveKeysetConnection } from "./connection-page";
import type { GraphQLContext } from "./context";
import { ExecutionRef } from "./execution";
import { heavyRead } from "./heavy-read";
import { artifactIdArg } from "./id-args";
import { selectedFieldNames, selectsMoreThanId } from "./selection";

/**
 * Artifact provenance on the read side: one-hop parents/children and joint derivations on
 * Artifact, transitive closures (`lineage`), the full paged maps (`provenanceMap`).
 */

export const LineageDirectionEnum = builder.enumType("LineageDirection", {
  description: "Which way to walk derivation edges.",
  values: {
    UPSTREAM: { description: "Towards sources: where did this come from? (backward)" },
    DOWNSTREAM: { description: "Towards derived artifacts: what was derived from this? (forward)" },
  } satisfies Record<(typeof LINEAGE_DIRECTIONS)[number], unknown>,
});

export const ProvenanceEdgeKindEnum = builder.enumType("ProvenanceEdgeKind", {
  description: "How a derivation edge came to be.",
  values: {
    INDEPENDENT: { description: "The source alone explains the target." },
    CO_INPUT: { description: "One of several sources that were jointly necessary (see Derivation)." },
    OUTPUT_TO_OUTPUT: { description: "Derived from another output of the same execution." },
    CONFIG_REFERENCE: {
      description:
        'The target is a configuration artifact whose metadata references the source ({"$artifact": id}): answers "which configs used this artifact?".',
    },
  } satisfies Record<(typeof PROVENANCE_EDGE_KINDS)[number], unknown>,
});

/** An artifact a lineage field returns: its record when read, an id for the batch loader, or an id-only stand-in. */
type ArtifactValue = ArtifactRecord | string;
/** How the artifacts of one closure (or one-hop read) resolve: called only when a request selects them. */
type ArtifactLookup = (id: ArtifactId) => ArtifactValue;

interface LineageEdgeView {
  /** `record` is null when the request selected no edge detail (the closure then read only the ids). */
  edge: ClosureEdge;
  artifact: ArtifactLookup;
}

interface LineageNodeView {
  node: ClosureNode;
  artifact: ArtifactLookup;
}

interface LineageView {
  closure: Closure;
  artifact: ArtifactLookup;
}

/** An edge's details; a closure reads them whenever the request selects one (needsEdgeDetails). */
function details(view: LineageEdgeView): ProvenanceEdgeRecord {
  if (!view.edge.record) throw new Error("edge details were selected but not read");
  return view.edge.record;
}

/** Edges read one hop away: their artifacts resolve through the Artifact batch loader. */
const throughLoader: ArtifactLookup = (id) => id;
const byIds = (edge: ProvenanceEdgeRecord): LineageEdgeView => ({
  edge: { id: edge.id, sourceId: edge.sourceId, targetId: edge.targetId, record: edge },
  artifact: throughLoader,
});

export const LineageEdgeRef = builder.objectRef<LineageEdgeView>("LineageEdge").implement({
  description: "source (parent) → target (derived), recorded by one run [prov:wasDerivedFrom].",
  fields: (t) => ({
    source: t.field({ type: ArtifactRef, description: "The parent.", resolve: (view) => view.artifact(view.edge.sourceId) }),
    target: t.field({ type: ArtifactRef, description: "The derived artifact.", resolve: (view) => view.artifact(view.edge.targetId) }),
    sourceId: t.id({ description: "The parent's id (cheaper than source { id } on large closures).", resolve: (view) => view.edge.sourceId }),
    targetId: t.id({ description: "The derived artifact's id.", resolve: (view) => view.edge.targetId }),
    kind: t.field({ type: ProvenanceEdgeKindEnum, description: "How the derivation came to be (see ProvenanceEdgeKind).", resolve: (view) => details(view).kind }),
    groupId: t.string({
      nullable: true,
      description: "Shared by every edge of one joint derivation of the target in one run (a hash of its sorted source ids).",
      resolve: (view) => details(view).groupId,
    }),
    stepBoundary: t.boolean({
      description: "False for an edge between intermediates inside a composite; true for edges between pipeline steps.",
      resolve: (view) => details(view).stepBoundary,
    }),
    runId: t.id({ description: "The execution that recorded the derivation.", resolve: (view) => details(view).runId }),
    run: t.field({ type: ExecutionRef, nullable: true, description: "The execution that recorded the derivation; null when provgraph has no record of that run.", resolve: (view) => details(view).runId }),
    sourceType: t.string({ description: "The source's artifact type, as recorded on the edge.", resolve: (view) => details(view).sourceType }),
    targetType: t.string({ description: "The target's artifact type, as recorded on the edge.", resolve: (view) => details(view).targetType }),
    createdAt: t.field({ type: "DateTime", description: "When the edge was recorded.", resolve: (view) => details(view).createdAt }),
  }),
});

const LineageNodeRef = builder.objectRef<LineageNodeView>("LineageNode").implement({
  description: "An artifact in a closure, with its distance from the root.",
  fields: (t) => ({
    artifact: t.field({ type: ArtifactRef, description: "The artifact reached.", resolve: (view) => view.artifact(view.node.artifactId) }),
    artifactId: t.id({ description: "The artifact's id (cheaper than artifact { id } on large closures).", resolve: (view) => view.node.artifactId }),
    artifactType: t.string({ description: "As recorded on the edges (no artifact read needed).", resolve: (view) => view.node.artifactType }),
    depth: t.int({ description: "Fewest hops from the root (1 = a parent or child of the root).", resolve: (view) => view.node.depth }),
  }),
});

const LineageRef = builder.objectRef<LineageView>("Lineage").implement({
  description: "A transitive closure: every artifact reachable from the root in one direction, nearest first.",
  fields: (t) => ({
    root: t.field({ type: ArtifactRef, description: "The artifact the closure starts from (`artifactId`).", resolve: (lineage) => lineage.artifact(lineage.closure.rootId) }),
    direction: t.field({ type: LineageDirectionEnum, description: "The direction walked: UPSTREAM (ancestors) or DOWNSTREAM (descendants).", resolve: (lineage) => lineage.closure.direction }),
    nodes: t.field({
      type: [LineageNodeRef],
      description: "The reachable artifacts (the root excluded), by depth then id; at most `first`.",
      resolve: ({ closure, artifact }) => closure.nodes.map((node) => ({ node, artifact })),
    }),
    edges: t.field({
      type: [LineageEdgeRef],
      description: "The edges among the returned nodes and the root, in recording order.",
      resolve: ({ closure, artifact }) => closure.edges.map((edge) => ({ edge, artifact })),
    }),
    nodeIds: t.idList({
      description:
        "Columnar form of `nodes` for large closures: the artifact ids in the same order (nodeIds[i] is nodes[i].artifactId). " +
        "Lists of scalars cost a fraction of lists of objects to serve.",
      resolve: ({ closure }) => closure.nodes.map((node) => node.artifactId),
    }),
    nodeDepths: t.intList({ description: "Columnar form of `nodes`: nodeDepths[i] is the depth of nodeIds[i].", resolve: ({ closure }) => closure.nodes.map((node) => node.depth) }),
    edgeSourceIds: t.idList({
      description: "Columnar form of `edges`: edgeSourceIds[i] → edgeTargetIds[i] is edges[i], in the same order.",
      resolve: ({ closure }) => closure.edges.map((edge) => edge.sourceId),
    }),
    edgeTargetIds: t.idList({ description: "Columnar form of `edges`: see edgeSourceIds.", resolve: ({ closure }) => closure.edges.map((edge) => edge.targetId) }),
    truncated: t.boolean({
      description:
        "More artifacts matched than were returned: the result was cut at `first` (or at the walk's budget), keeping the nearest " +
        "(which of the artifacts at the farthest depth kept is unspecified).",
      resolve: (lineage) => lineage.closure.truncated,
    }),
  }),
});

const DerivationRef = builder.objectRef<DerivationRecord>("Derivation").implement({
  description: "One joint derivation of an artifact: all the edges one run recorded for it with one groupId.",
  fields: (t) => ({
    groupId: t.exposeString("groupId", {
      nullable: true,
      description: "Shared by its edges: a hash of its sorted source ids. Null only for an edge stored without one, which is then a derivation of its own.",
    }),
    runId: t.id({ description: "The run that recorded it.", resolve: (derivation) => derivation.runId }),
    run: t.field({ type: ExecutionRef, nullable: true, description: "The execution that recorded it; null when provgraph has no record of that run.", resolve: (derivation) => derivation.runId }),
    kind: t.field({ type: ProvenanceEdgeKindEnum, description: "How it came to be: the kind of its edges.", resolve: (derivation) => derivation.kind }),
    target: t.field({ type: ArtifactRef, description: "The derived artifact.", resolve: (derivation) => derivation.targetId }),
    sources: t.field({
      type: [ArtifactRef],
      description: "ALL the inputs of this derivation (for CO_INPUT: the set that was jointly necessary).",
      resolve: (derivation) => derivation.sourceIds,
    }),
    edges: t.field({ type: [LineageEdgeRef], description: "Its edges, one per source, in recording order.", resolve: (derivation) => derivation.edges.map(byIds) }),
  }),
});

const ProvenanceMapEntryRef = builder.objectRef<ProvenanceMapEntry>("ProvenanceMapEntry").implement({
  description: "One artifact of a provenance map with its parents (UPSTREAM map) or children (DOWNSTREAM map).",
  fields: (t) => ({
    artifactId: t.id({ description: "The artifact's id: what the map is ordered by.", resolve: (entry) => entry.artifactId }),
    artifactType: t.exposeString("artifactType", { description: "As recorded on its edges." }),
    artifact: t.field({ type: ArtifactRef, description: "The artifact.", resolve: (entry) => entry.artifactId }),
    relatedIds: t.idList({
      description: "UPSTREAM map: its parents' ids; DOWNSTREAM map: its children's ids. Distinct, in recording order.",
      resolve: (entry) => entry.relatedIds,
    }),
    related: t.field({ type: [ArtifactRef], description: "The same artifacts as relatedIds.", resolve: (entry) => entry.relatedIds }),
    edges: t.field({ type: [LineageEdgeRef], description: "The edges behind relatedIds, in recording order.", resolve: (entry) => entry.edges.map(byIds) }),
  }),
});

// One loader per request and direction, shared by parents, parentEdges and derivations (and by
// children and childEdges), so each is one statement however many artifacts a query reaches.
const edgesIntoLoader = createContextCache(
  (ctx: GraphQLContext) => new DataLoader<ArtifactId, ProvenanceEdgeRecord[]>((ids) => ctx.services.lineage.edges.intoTargets(ids)),
);
const edgesFromLoader = createContextCache(
  (ctx: GraphQLContext) => new DataLoader<ArtifactId, ProvenanceEdgeRecord[]>((ids) => ctx.services.lineage.edges.fromSources(ids)),
);

builder.objectFields(ArtifactRef, (t) => ({
  parents: t.field({
    type: [ArtifactRef],
    description: "Direct parents: the sources of every edge into this artifact, distinct, in recording order.",
    resolve: async (artifact, _args, ctx) => distinct((await edgesIntoLoader(ctx).load(artifact.id)).map((edge) => edge.sourceId)),
  }),
  children: t.field({
    type: [ArtifactRef],
    description: "Direct children: the targets of every edge out of this artifact, distinct, in recording order.",
    resolve: async (artifact, _args, ctx) => distinct((await edgesFromLoader(ctx).load(artifact.id)).map((edge) => edge.targetId)),
  }),
  parentEdges: t.field({
    type: [LineageEdgeRef],
    description: "The edges into this artifact, with their details, in recording order.",
    resolve: async (artifact, _args, ctx) => (await edgesIntoLoader(ctx).load(artifact.id)).map(byIds),
  }),
  childEdges: t.field({
    type: [LineageEdgeRef],
    description: "The edges out of this artifact, with their details, in recording order.",
    resolve: async (artifact, _args, ctx) => (await edgesFromLoader(ctx).load(artifact.id)).map(byIds),
  }),
  configReferences: t.field({
    type: [ArtifactRef],
    description:
      'The artifacts this configuration artifact references ({"$artifact": id} in its metadata): the sources of its CONFIG_REFERENCE edges, distinct, in recording order.',
    resolve: async (artifact, _args, ctx) => distinct((await edgesIntoLoader(ctx).load(artifact.id)).filter(isConfigReference).map((edge) => edge.sourceId)),
  }),
  referencedByConfigs: t.field({
    type: [ArtifactRef],
    description:
      "Which configs used this artifact: the configuration artifacts whose metadata reference it (targets of its CONFIG_REFERENCE edges), distinct, in recording order. " +
      "Executions whose params reference it are `referencedByExecutions`.",
    resolve: async (artifact, _args, ctx) => distinct((await edgesFromLoader(ctx).load(artifact.id)).filter(isConfigReference).map((edge) => edge.targetId)),
  }),
  derivations: t.field({
    type: [DerivationRef],
    description: "The joint derivations that produced this artifact (one per run and groupId), each with all its inputs.",
    resolve: async (artifact, _args, ctx) => derivationsOf(artifact.id, await edgesIntoLoader(ctx).load(artifact.id)),
  }),
}));

/** Argument descriptions shared by every closure-shaped query (lineage, provJson). */
export const CLOSURE_DESCRIPTIONS = {
  maxDepth: "Hops to follow; null = fully transitive, 0 = the root alone. Negative is INVALID_ARGUMENT.",
  artifactTypes:
    "Return only artifacts of these types (from the types recorded on the edges). The walk still passes through artifacts of other types, " +
    "so `artifactTypes: [\"metric\"]` downstream of X is every metric derived from X, however indirectly.",
  stepBoundaryOnly: "Follow only step-boundary edges (the pipeline-level view, skipping composite internals).",
  asOf: "Answer as the graph stood at this instant: edges recorded later are ignored.",
  first: `Most artifacts to return besides the root, nearest first: default ${formatCount(DEFAULT_CLOSURE_NODES)}, at most ${formatCount(MAX_CLOSURE_NODES)} (above is PAGE_SIZE); \`truncated\` says when there is more.`,
};

/** The arguments every closure field takes (lineage, provJson). */
export function closureArgs(arg: ArgBuilder<BuilderTypes>) {
  return {
    artifactId: arg.id({ required: true, description: "The root artifact (art_…). A malformed id is INVALID_ID, an unknown one NOT_FOUND." }),
    direction: arg({ type: LineageDirectionEnum, defaultValue: "UPSTREAM", description: "UPSTREAM (the default): the root's ancestors; DOWNSTREAM: its descendants." }),
    maxDepth: arg.int({ description: CLOSURE_DESCRIPTIONS.maxDepth }),
    artifactTypes: arg.stringList({ description: CLOSURE_DESCRIPTIONS.artifactTypes }),
    stepBoundaryOnly: arg.boolean({ defaultValue: false, description: CLOSURE_DESCRIPTIONS.stepBoundaryOnly }),
    asOf: arg({ type: "DateTime", description: CLOSURE_DESCRIPTIONS.asOf }),
    first: arg.int({ description: CLOSURE_DESCRIPTIONS.first }),
  };
}

export function closureQueryFrom(
  args: {
    artifactId: string | number;
    direction?: LineageDirection | null;
    maxDepth?: number | null;
    artifactTypes?: readonly string[] | null;
    stepBoundaryOnly?: boolean | null;
    asOf?: Date | null;
    first?: number | null;
  },
  withArtifacts: boolean,
): ClosureQuery {
  return {
    rootId: artifactIdArg("artifactId", args.artifactId),
    direction: args.direction ?? "UPSTREAM",
    maxDepth: args.maxDepth,
    artifactTypes: args.artifactTypes,
    stepBoundaryOnly: args.stepBoundaryOnly,
    asOf: args.asOf,
    first: args.first,
    withArtifacts,
  };
}

/** Artifact records are read with the closure only when the request selects more than their ids. */
function needsArtifactRecords(info: GraphQLResolveInfo): boolean {
  return [["root"], ["nodes", "artifact"], ["edges", "source"], ["edges", "target"]].some((path) => selectsMoreThanId(info, path));
}

/** Edge details (kind, groupId, runId, …) are read only when the request selects one. */
const EDGE_ID_FIELDS = new Set(["source", "target", "sourceId", "targetId", "__typename"]);
function needsEdgeDetails(info: GraphQLResolveInfo): boolean {
  for (const name of selectedFieldNames(info, ["edges"])) if (!EDGE_ID_FIELDS.has(name)) return true;
  return false;
}

function lineageView(closure: Closure, recordsRead: boolean): LineageView {
  // Records read with the closure are used as they are (an artifact row missing goes to the
  // loader, which reports it); otherwise only ids were selected, and an id-only stand-in answers
  // them without a second read — one stand-in per artifact, however many nodes and edge ends name it.
  if (recordsRead) return { closure, artifact: (id) => closure.artifacts.get(id) ?? id };
  const standIns = new Map<ArtifactId, ArtifactRecord>();
  const artifact: ArtifactLookup = (id) => {
    let standIn = standIns.get(id);
    if (!standIn) standIns.set(id, (standIn = { id } as ArtifactRecord));
    return standIn;
  };
  return { closure, artifact };
}

builder.queryFields((t) => ({
  lineage: t.field({
    type: LineageRef,
    description:
      "The transitive closure of an artifact: its ancestors (UPSTREAM) or descendants (DOWNSTREAM), nearest first, with the edges among them. " +
      "Runs as one recursive query; when more artifacts match than `first`, the nearest are kept and `truncated` is true.",
    args: closureArgs(t.arg),
    resolve: async (_root, args, ctx, info) => {
      const recordsRead = needsArtifactRecords(info);
      const query = { ...closureQueryFrom(args, recordsRead), edgeDetails: needsEdgeDetails(info) };
      return lineageView(await heavyRead(ctx, "lineageClosure", query, { shared: true }), recordsRead);
    },
  }),
  provenanceMap: t.connection({
    type: ProvenanceMapEntryRef,
    description:
      "The whole backward (UPSTREAM: every artifact with parents, and its parents) or forward (DOWNSTREAM: every artifact with children, and its children) " +
      "provenance map, one entry per artifact, ordered by artifact id. `first`/`last` at most 500.",
    args: {
      direction: t.arg({
        type: LineageDirectionEnum,
        required: true,
        description: "UPSTREAM: every artifact that has parents, with its parents; DOWNSTREAM: every artifact that has children, with its children. A cursor of the other direction's map is INVALID_CURSOR.",
      }),
      asOf: t.arg({ type: "DateTime", description: "Only edges recorded at or before this instant." }),
    },
    resolve: (_root, args, ctx) =>
      resolveKeysetConnection<ProvenanceMapEntry, ArtifactId>(
        args,
        {
          connection: args.direction === "UPSTREAM" ? "provenanceMapUpstream" : "provenanceMapDownstream",
          keyOf: (entry) => entry.artifactId,
          parseKey: (key) => (key.length > 0 ? (key as ArtifactId) : undefined),
        },
        (page) => ctx.services.lineage.maps.page(args.direction, page, args.asOf ?? null),
      ),
  }),
}));

const isConfigReference = (edge: ProvenanceEdgeRecord) => edge.kind === "CONFIG_REFERENCE";

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}


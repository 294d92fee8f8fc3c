import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import type { ColumnView } from "../services/columns";
import { groupBy } from "../services/grouping";
import type { ArtifactId } from "../services/ids";
import {
  DEFAULT_EXPAND_PAGE,
  DEFAULT_GRAPH_NODES,
  DEFAULT_PATH_DEPTH,
  DEFAULT_PATHS,
  type ExpandPageRecord,
  GRAPH_DIRECTIONS,
  GRAPH_EDGE_KINDS,
  IMPACT_KINDS,
  type ImpactCountRecord,
  type ImpactDepthRecord,
  type ImpactRecord,
  type LineageFilters,
  type LineageGraphEdgeRecord,
  type LineageGraphNodeRecord,
  type LineageGraphRecord,
  type LineagePathRecord,
  type LineagePathsRecord,
  MAX_EXPAND_PAGE,
  MAX_GRAPH_DEPTH,
  MAX_GRAPH_NODES,
  MAX_GRAPH_ROOTS,
  MAX_PATH_DEPTH,
  MAX_PATHS,
  type ColumnPort,
} from "../services/lineage-graph";

import { ArtifactRef } from "./artifact";
import { builder } from "./builder";
import { ColumnObject } from "./column-lineage";
import { resolveKeysetConnection } from "./connection-page";
import type { GraphQLContext } from "./context";
import { ExecutionRef } from "./execution";
import { PointObject } from "./graph";
import { heavyRead } from "./heavy-read";
import { listInTurns } from "./list-in-turns";
import { ProvenanceEdgeKindEnum } from "./lineage";

/**
 * Lineage drawn for user interfaces (src/services/lineage-graph): neighbourhood graphs of artifacts,
 * runs and columns (lineageGraph), one node's neighbours page by page (expand), the derivation paths
 * between two nodes (lineagePath) and impact counts (impact). Node ids are art_…, run_… and
 * col:<art_…>:<field>. A node's artifact, execution and column resolve through the same loaders (and
 * the same policy-tag redaction) as everywhere else.
 */

const GraphDirectionEnum = builder.enumType("GraphDirection", {
  description: "Which way a lineage graph, an expand page or an impact count goes from its node (or roots).",
  values: {
    UPSTREAM: { description: "Towards what a node came from." },
    DOWNSTREAM: { description: "Towards what came from it." },
    BOTH: { description: "Both ways from the roots (never upstream of what lies downstream)." },
  } satisfies Record<(typeof GRAPH_DIRECTIONS)[number], unknown>,
});

const NodeKindEnum = builder.enumType("LineageGraphNodeKind", {
  description: "What a node of a lineage graph is; its id tells the same (art_…, run_…, col:…).",
  values: {
    ARTIFACT: { description: "An artifact; a dataset version is one with `dataset` set." },
    RUN: { description: "An execution (a run of an operation, a composite or an OpenLineage job)." },
    COLUMN: { description: "A column of a dataset version." },
  },
});

const EdgeKindEnum = builder.enumType("LineageGraphEdgeKind", {
  description: "What an edge of a lineage graph records, always drawn in the direction data flows.",
  values: {
    USED: { description: "artifact → run: the run used it (an execution link, or a derivation edge from it the run recorded)." },
    GENERATED: { description: "run → artifact: the run produced it." },
    DERIVED: { description: "parent artifact → derived artifact [prov:wasDerivedFrom], with its joint derivation's groupId." },
    COLUMN_DIRECT: { description: "column → column: the source's values reached the target." },
    COLUMN_INDIRECT: { description: "column → column (or a whole version): the source shaped the target (filter, join, grouping, …)." },
  } satisfies Record<(typeof GRAPH_EDGE_KINDS)[number], unknown>,
});

const ImpactKindEnum = builder.enumType("ImpactKind", {
  description: "What an impact counts.",
  values: {
    ARTIFACT: { description: "Artifacts other than dataset versions." },
    DATASET: { description: "Datasets (namespace and name), each counted once, at its nearest version." },
    COLUMN: { description: "Columns: of the dataset versions reached, or (from a column) the columns reached." },
    RUN: { description: "Runs." },
    JOB: { description: "The runs' operations: registered operations and OpenLineage jobs." },
    PIPELINE: { description: "The runs' pipelines." },
  } satisfies Record<(typeof IMPACT_KINDS)[number], unknown>,
});

const PortObject = builder.objectRef<ColumnPort>("LineageGraphPort").implement({
  description: "Where a column of a dataset node is drawn: its row's middle on the box's left edge (the right-hand port is at x + the box's width).",
  fields: (t) => ({
    columnId: t.exposeID("columnId", { description: "The column's node id, col:<art_…>:<field>." }),
    field: t.exposeString("field", { description: "The column's field." }),
    x: t.exposeFloat("x", { description: "The box's left edge (CSS pixels)." }),
    y: t.exposeFloat("y", { description: "The middle of the column's row (CSS pixels)." }),
  }),
});

// A column node's Column: the dataset version's columns, one statement for every column of a request.
const columnViewsLoader = createContextCache(
  (ctx: GraphQLContext) => new DataLoader<ArtifactId, ColumnView[]>((ids) => ctx.services.columns.columns.columnsOf(ids)),
);

export const LineageGraphNodeRef = builder.objectRef<LineageGraphNodeRecord>("LineageGraphNode").implement({
  description: "A node of a lineage graph, with what lies beside it and how much of that is not shown.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "art_…, run_… or col:<art_…>:<field> (field URI-encoded): what every graph argument takes." }),
    kind: t.field({ type: NodeKindEnum, description: "ARTIFACT, RUN or COLUMN.", resolve: (node) => node.kind }),
    label: t.exposeString("label", { description: "An artifact's original name, a dataset version's `namespace/name`, a run's operation (job) name, a column's field." }),
    depth: t.exposeInt("depth", {
      description:
        "Signed hops from the nearest root (negative upstream, 0 for a root). One hop is a run and what it derived: a run has the depth of its hop, a co-input the depth of the artifacts it was used with. In expand, relative to the expanded node.",
    }),
    artifact: t.field({
      type: ArtifactRef,
      nullable: true,
      description: "ARTIFACT: the artifact; COLUMN: its dataset version.",
      resolve: (node) => node.artifactId,
    }),
    execution: t.field({
      type: ExecutionRef,
      nullable: true,
      description: "RUN: the execution (null for a run known only by the derivation edges it recorded).",
      resolve: (node) => (node.run?.status != null ? node.runId : null),
    }),
    column: t.field({
      type: ColumnObject,
      nullable: true,
      description: "COLUMN: the column (its details are redacted without the clearance for its policy tags).",
      resolve: async (node, _args, ctx) => {
        if (node.kind !== "COLUMN") return null;
        const columns = await columnViewsLoader(ctx).load(node.artifactId as ArtifactId);
        return columns.find((c) => c.field === node.field) ?? { artifactId: node.artifactId as ArtifactId, field: node.field!, position: null, type: null, description: null };
      },
    }),
    upstreamCount: t.exposeInt("upstreamCount", {
      description: "Direct upstream neighbours, shown or not: an artifact's producing runs, a run's inputs, a column's source columns.",
    }),
    downstreamCount: t.exposeInt("downstreamCount", { description: "Direct downstream neighbours: an artifact's consuming runs, a run's outputs, a column's target columns." }),
    hiddenUpstream: t.exposeInt("hiddenUpstream", { description: 'How many upstream neighbours are not in this answer: the "+37" on a collapsed side.' }),
    hiddenDownstream: t.exposeInt("hiddenDownstream", { description: "How many downstream neighbours are not in this answer." }),
    x: t.float({ nullable: true, description: "layout: true — the box's left edge (CSS pixels); null otherwise.", resolve: (node) => node.box?.x ?? null }),
    y: t.float({ nullable: true, description: "layout: true — the box's top edge.", resolve: (node) => node.box?.y ?? null }),
    width: t.float({ nullable: true, description: "layout: true — the box's width (CSS pixels); null otherwise.", resolve: (node) => node.box?.width ?? null }),
    height: t.float({
      nullable: true,
      description: "layout: true — the box's height (CSS pixels), one row more for each column drawn in a dataset node; null otherwise.",
      resolve: (node) => node.box?.height ?? null,
    }),
    ports: t.field({ type: [PortObject], nullable: true, description: "layout: true and columns: true — one port per column drawn in this dataset node.", resolve: (node) => node.ports }),
  }),
});

const LineageGraphEdgeObject = builder.objectRef<LineageGraphEdgeRecord>("LineageGraphEdge").implement({
  description: "A typed edge between two node ids, drawn in the direction data flows.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Stable: a derivation or column edge by its stored id, a link by its ends and role." }),
    kind: t.field({ type: EdgeKindEnum, description: "What the edge records (see LineageGraphEdgeKind).", resolve: (edge) => edge.kind }),
    source: t.exposeID("source", { description: "The id of the node it leaves (the upstream end)." }),
    target: t.exposeID("target", { description: "The id of the node it enters (the downstream end)." }),
    runId: t.exposeID("runId", { nullable: true, description: "The run of a link, a derivation or a column edge." }),
    role: t.exposeString("role", { nullable: true, description: "USED / GENERATED: the role of the execution link; null when only a derivation edge tells." }),
    groupId: t.exposeString("groupId", { nullable: true, description: "DERIVED: its joint derivation (co-inputs share it); USED: the joint derivation the run used the artifact in, if any." }),
    derivationKind: t.field({ type: ProvenanceEdgeKindEnum, nullable: true, description: "DERIVED: the recorded derivation edge's kind; null for other kinds.", resolve: (edge) => edge.derivationKind }),
    subtype: t.exposeString("subtype", { nullable: true, description: "COLUMN_*: TRANSFORMATION, AGGREGATION, IDENTITY, FILTER, JOIN, … as reported." }),
    masking: t.exposeBoolean("masking", { nullable: true, description: "COLUMN_*: the transformation masks its input." }),
    backward: t.exposeBoolean("backward", { description: "Draw dashed: it does not lead one column rightwards in the server's layout (column rules as the pipeline graphs')." }),
    points: t.field({ type: [PointObject], nullable: true, description: "layout: true — its route, first point at the source.", resolve: (edge) => edge.points }),
  }),
});

const LineageGraphObject = builder.objectRef<LineageGraphRecord>("LineageGraph").implement({
  description: "A neighbourhood: the roots and what lies within `depth` hops of them, as one graph.",
  fields: (t) => ({
    roots: t.exposeIDList("roots", { description: "The root ids, as given." }),
    nodes: t.field({ type: [LineageGraphNodeRef], description: "Every node drawn, the roots included, each once.", resolve: (graph) => graph.nodes }),
    edges: t.field({ type: [LineageGraphEdgeObject], description: "The edges among the nodes drawn.", resolve: (graph) => graph.edges }),
    truncated: t.exposeBoolean("truncated", { description: "More was reachable within `depth` than `first` allows: the nearest hops were kept, whole (hidden counts say where)." }),
    width: t.float({ nullable: true, description: "layout: true — the drawing's size.", resolve: (graph) => graph.width }),
    height: t.float({ nullable: true, description: "layout: true — the drawing's height (CSS pixels); null otherwise.", resolve: (graph) => graph.height }),
  }),
});

const LineageGraphPageObject = builder.objectRef<ExpandPageRecord>("LineageGraphPage").implement({
  description: "One page of one node's direct neighbours.",
  fields: (t) => ({
    node: t.field({ type: LineageGraphNodeRef, description: "The expanded node; its hidden counts: neighbours on each side still to page.", resolve: (page) => page.node }),
    nodes: t.field({ type: [LineageGraphNodeRef], description: "Its neighbours on this page, with the co-inputs they come with.", resolve: (page) => page.nodes }),
    edges: t.field({ type: [LineageGraphEdgeObject], description: "Edges from the expanded node to them (and the co-inputs' edges).", resolve: (page) => page.edges }),
    pageInfo: t.field({
      type: builder.pageInfoRef(),
      description: "hasNextPage: more neighbours to page; pass endCursor as `after` for them.",
      resolve: (page) => ({ ...page.pageInfo }),
    }),
  }),
});

const LineagePathObject = builder.objectRef<LineagePathRecord>("LineagePath").implement({
  description: "One path between `from` and `to`: its nodes in order, and the edge of each hop.",
  fields: (t) => ({
    nodeIds: t.exposeIDList("nodeIds", { description: "From `from` to `to`." }),
    edges: t.field({ type: [LineageGraphEdgeObject], description: "One per hop, each in its own direction (source = the parent).", resolve: (path) => path.edges }),
    length: t.exposeInt("length", { description: "Hops." }),
  }),
});

const LineagePathsObject = builder.objectRef<LineagePathsRecord>("LineagePaths").implement({
  description: "The paths lineagePath found, and whether there are more.",
  fields: (t) => ({
    paths: t.field({ type: [LineagePathObject], description: "Shortest first, then by node ids.", resolve: (paths) => paths.paths }),
    truncated: t.exposeBoolean("truncated", { description: "More paths exist within maxDepth than maxPaths (or the search reached its budget)." }),
  }),
});

const ImpactCountObject = builder.objectRef<ImpactCountRecord>("ImpactCount").implement({
  description: "How many things of one kind an impact reached.",
  fields: (t) => ({
    kind: t.field({ type: ImpactKindEnum, description: "What is counted.", resolve: (c) => c.kind }),
    count: t.exposeInt("count", { description: "How many were reached; 0 when none." }),
  }),
});

/**
 * Depths of an impact completed in one turn of the event loop: each may page its nodes, and a chain
 * thousands of hops long has as many depths (6,000 held the event loop 200 ms in one go).
 */
const DEPTHS_PER_TURN = 200;

/** An impact depth carries the filters its nodes' counts are read with. */
interface ImpactDepthView {
  depth: ImpactDepthRecord;
  filters: LineageFilters;
}

// The nodes of impact pages: one statement for every page a request asks for (per set of filters).
const nodeDetailsLoader = createContextCache(
  (ctx: GraphQLContext) =>
    new DataLoader<{ id: string; filters: LineageFilters }, LineageGraphNodeRecord | null, string>(
      async (keys) => {
        // Grouped by pushing (appendTo): a page of every depth of a deep impact is tens of thousands of keys.
        const byFilters = groupBy(keys, (key) => JSON.stringify(key.filters));
        const found = new Map<string, LineageGraphNodeRecord>();
        for (const [k, group] of byFilters) {
          for (const node of await heavyRead(ctx, "graphNodeDetails", { ids: group.map((key) => key.id), filters: group[0].filters })) found.set(`${k}\u0000${node.id}`, node);
        }
        return keys.map((key) => found.get(`${JSON.stringify(key.filters)}\u0000${key.id}`) ?? null);
      },
      { cacheKeyFn: (key) => `${JSON.stringify(key.filters)}\u0000${key.id}` },
    ),
);

const ImpactDepthObject = builder.objectRef<ImpactDepthView>("ImpactDepth").implement({
  description: "What an impact first reached at one depth.",
  fields: (t) => ({
    depth: t.int({ description: "Hops from the root, negative upstream.", resolve: (view) => view.depth.depth }),
    counts: t.field({ type: [ImpactCountObject], description: "What was first reached at this depth: one count per kind, every kind listed, in ImpactKind order.", resolve: (view) => view.depth.counts }),
    nodes: t.connection(
      {
        type: LineageGraphNodeRef,
        description: "The artifacts and runs (columns, from a column) first reached at this depth, by id; their hidden counts equal their counts (a page draws no edges).",
        resolve: (view, args, ctx) =>
          resolveKeysetConnection<LineageGraphNodeRecord, string>(
            args,
            { connection: "impactNodes", keyOf: (node) => node.id, parseKey: (key) => (key.length > 0 ? key : undefined) },
            async (page) => {
              let ids = view.depth.nodeIds.filter((id) => (page.after === undefined || id > page.after) && (page.before === undefined || id < page.before));
              if (page.inverted) ids = ids.reverse();
              const nodes = await nodeDetailsLoader(ctx).loadMany(ids.slice(0, page.limit).map((id) => ({ id, filters: view.filters })));
              return nodes.filter((node): node is LineageGraphNodeRecord => node !== null && !(node instanceof Error)).map((node) => ({ ...node, depth: view.depth.depth }));
            },
          ),
      },
      { name: "LineageGraphNodeConnection" },
      { name: "LineageGraphNodeEdge" },
    ),
  }),
});

const ImpactObject = builder.objectRef<{ impact: ImpactRecord; filters: LineageFilters }>("Impact").implement({
  description: "Everything reachable from a node, counted by kind and by depth.",
  fields: (t) => ({
    root: t.id({ description: "The node counted from, as given.", resolve: (view) => view.impact.root }),
    direction: t.field({ type: GraphDirectionEnum, description: "The direction counted.", resolve: (view) => view.impact.direction }),
    totals: t.field({ type: [ImpactCountObject], description: "Everything reached: one count per kind, every kind listed, in ImpactKind order.", resolve: (view) => view.impact.totals }),
    byDepth: t.field({ type: [ImpactDepthObject], description: "Nearest first (upstream depths, negative, before downstream ones).", resolve: (view) => listInTurns(view.impact.byDepth.map((depth) => ({ depth, filters: view.filters })), DEPTHS_PER_TURN) }),
    truncated: t.boolean({ description: "The walk stopped at its budget: the counts are lower bounds.", resolve: (view) => view.impact.truncated }),
  }),
});

const AS_OF = "Answer as the lineage stood at this instant: derivation edges recorded later, and runs recorded later, are left out.";
const STEP_BOUNDARY_ONLY = "Leave out the insides of composite runs: derivation edges that cross no step boundary, and the runs of a composite's steps.";

builder.queryFields((t) => ({
  lineageGraph: t.field({
    type: LineageGraphObject,
    description:
      "A neighbourhood for a user interface: the roots (art_…, run_…, col:<art_…>:<field>) and what lies within `depth` hops of them — artifacts, the runs between them and, with `columns`, columns — " +
      `as one graph with typed edges; each node tells how many of its direct neighbours are not shown. At most ${MAX_GRAPH_ROOTS} roots, depth 0–${MAX_GRAPH_DEPTH}.`,
    args: {
      roots: t.arg.idList({
        required: true,
        description: `The nodes to start from: art_…, run_… or col:<art_…>:<field>, 1 to ${MAX_GRAPH_ROOTS} (else INVALID_ARGUMENT). A malformed id is INVALID_ID, an unknown one NOT_FOUND.`,
      }),
      direction: t.arg({ type: GraphDirectionEnum, defaultValue: "BOTH", description: "Which way to walk from the roots: BOTH (the default), UPSTREAM or DOWNSTREAM." }),
      depth: t.arg.int({ defaultValue: 1, description: "Hops from the roots: one hop is a run and what it derived (upstream: the runs that made a node and its parents; downstream: the runs that used it and its children, with their co-inputs)." }),
      asOf: t.arg({ type: "DateTime", description: AS_OF }),
      stepBoundaryOnly: t.arg.boolean({ defaultValue: false, description: STEP_BOUNDARY_ONLY }),
      columns: t.arg.boolean({ defaultValue: false, description: "Also the columns of the dataset versions shown and the column edges among them (at most 5,000 columns)." }),
      layout: t.arg.boolean({ defaultValue: false, description: "Give every node a box and every edge a route, left to right with the pipeline graphs' column rules." }),
      first: t.arg.int({ defaultValue: DEFAULT_GRAPH_NODES, description: `Most nodes besides the roots (nearest hops first, whole): default ${DEFAULT_GRAPH_NODES}, at most ${MAX_GRAPH_NODES} (above is PAGE_SIZE).` }),
    },
    resolve: (_root, args, ctx) =>
      heavyRead(
        ctx,
        "lineageGraph",
        {
          roots: args.roots.map(String),
          direction: args.direction ?? "BOTH",
          depth: args.depth ?? 1,
          asOf: args.asOf ?? null,
          stepBoundaryOnly: args.stepBoundaryOnly ?? false,
          columns: args.columns ?? false,
          layout: args.layout ?? false,
          first: args.first ?? DEFAULT_GRAPH_NODES,
        },
        { shared: true },
      ),
  }),
  expand: t.field({
    type: LineageGraphPageObject,
    description:
      "One page of one node's direct neighbours (an artifact's runs, a run's inputs or outputs, a column's columns), in id order, each exactly once over the pages; co-input groups are never split. " +
      `first: default ${DEFAULT_EXPAND_PAGE}, at most ${MAX_EXPAND_PAGE}.`,
    args: {
      nodeId: t.arg.id({ required: true, description: "The node to expand: art_…, run_… or col:<art_…>:<field>. A malformed id is INVALID_ID, an unknown one NOT_FOUND." }),
      direction: t.arg({ type: GraphDirectionEnum, required: true, description: "Which neighbours: UPSTREAM, DOWNSTREAM, or BOTH (the upstream ones, then the downstream ones)." }),
      first: t.arg.int({
        defaultValue: DEFAULT_EXPAND_PAGE,
        description: `Most neighbours on the page: default ${DEFAULT_EXPAND_PAGE}, at most ${MAX_EXPAND_PAGE} (above is PAGE_SIZE). A co-input group is never split, so a page may hold more.`,
      }),
      after: t.arg.string({ description: "The endCursor of this node's previous page; another node's cursor is INVALID_CURSOR." }),
      asOf: t.arg({ type: "DateTime", description: AS_OF }),
      stepBoundaryOnly: t.arg.boolean({ defaultValue: false, description: STEP_BOUNDARY_ONLY }),
      columns: t.arg.boolean({ defaultValue: false, description: "Also the columns of the dataset versions on the page." }),
    },
    resolve: (_root, args, ctx) =>
      heavyRead(ctx, "expand", {
        nodeId: String(args.nodeId),
        direction: args.direction,
        first: args.first ?? DEFAULT_EXPAND_PAGE,
        after: args.after ?? null,
        asOf: args.asOf ?? null,
        stepBoundaryOnly: args.stepBoundaryOnly ?? false,
        columns: args.columns ?? false,
      }, { shared: true }),
  }),
  lineagePath: t.field({
    type: LineagePathsObject,
    description:
      "The derivation paths between two artifacts or two columns, shortest first: why `to` depends on `from` (or, when `to` is the ancestor, the other way round; the paths are listed from `from` either way). " +
      `maxPaths 1–${MAX_PATHS}, maxDepth 1–${MAX_PATH_DEPTH}.`,
    args: {
      from: t.arg.id({
        required: true,
        description: "Where the paths start: an artifact (art_…) or a column (col:<art_…>:<field>); a run is INVALID_ARGUMENT. A malformed id is INVALID_ID, an unknown one NOT_FOUND.",
      }),
      to: t.arg.id({ required: true, description: "Where the paths end: of the same kind as `from` (else INVALID_ARGUMENT). The same node as `from` has no paths." }),
      maxPaths: t.arg.int({ defaultValue: DEFAULT_PATHS, description: `Most paths to return: default ${DEFAULT_PATHS}, 1–${MAX_PATHS} (else INVALID_ARGUMENT).` }),
      maxDepth: t.arg.int({ defaultValue: DEFAULT_PATH_DEPTH, description: `Most hops a path may have: default ${DEFAULT_PATH_DEPTH}, 1–${MAX_PATH_DEPTH} (else INVALID_ARGUMENT).` }),
      asOf: t.arg({ type: "DateTime", description: AS_OF }),
      stepBoundaryOnly: t.arg.boolean({ defaultValue: false, description: STEP_BOUNDARY_ONLY }),
    },
    resolve: (_root, args, ctx) =>
      heavyRead(ctx, "lineagePath", {
        from: String(args.from),
        to: String(args.to),
        maxPaths: args.maxPaths ?? DEFAULT_PATHS,
        maxDepth: args.maxDepth ?? DEFAULT_PATH_DEPTH,
        asOf: args.asOf ?? null,
        stepBoundaryOnly: args.stepBoundaryOnly ?? false,
      }, { shared: true }),
  }),
  impact: t.field({
    type: ImpactObject,
    description: "Everything upstream or downstream of an artifact, run or column, counted by kind (artifacts, datasets, columns, runs, jobs, pipelines) and by depth, with each depth's nodes paged.",
    args: {
      id: t.arg.id({ required: true, description: "The node to count from: art_…, run_… or col:<art_…>:<field>. A malformed id is INVALID_ID, an unknown one NOT_FOUND." }),
      direction: t.arg({ type: GraphDirectionEnum, defaultValue: "DOWNSTREAM", description: "Which way to count: DOWNSTREAM (the default), UPSTREAM, or BOTH." }),
      maxDepth: t.arg.int({ description: `Hops to count; omitted: as far as the lineage goes (at most ${MAX_PATH_DEPTH} when given).` }),
      asOf: t.arg({ type: "DateTime", description: AS_OF }),
      stepBoundaryOnly: t.arg.boolean({ defaultValue: false, description: STEP_BOUNDARY_ONLY }),
    },
    resolve: async (_root, args, ctx) => {
      const filters = { asOf: args.asOf ?? null, stepBoundaryOnly: args.stepBoundaryOnly ?? false };
      const impact = await heavyRead(ctx, "impact", { id: String(args.id), direction: args.direction ?? "DOWNSTREAM", maxDepth: args.maxDepth ?? null, ...filters }, { shared: true });
      return { impact, filters };
    },
  }),
}));



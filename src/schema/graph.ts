import { builder } from "./builder";
import {
  type ArtifactNode,
  type ExecutionNode,
  GRAPH_EDGE_KINDS,
  GRAPH_NODE_KINDS,
  type GraphColumn,
  type GraphEdge,
  type GraphNode,
  type MacroGraph,
  type MicroGraph,
  type PipelineRoleNode,
  type PipelineStepNode,
} from "../services/graph-views";
import { ArtifactRef } from "./artifact";
import { InvalidArgumentError } from "../services/errors";
import { DEFAULT_JOB_RUNS, type JobName, MAX_JOB_RUNS } from "../services/graph-views";
import { JobObject, NameInput } from "./openlineage";
import { ExecutionRef } from "./execution";
import { heavyRead } from "./heavy-read";
import { OperationRef } from "./operation";

const GraphFormatEnum = builder.enumType("GraphFormat", {
  values: {
    JSON: { description: "Nodes, edges and columns only; `dot` is null." },
    DOT: { description: "Also `dot`: the graph as Graphviz DOT text." },
  },
  description: "JSON: nodes, edges and columns only. DOT: also fill `dot` with Graphviz text.",
});
const GraphNodeKindEnum = builder.enumType("PipelineGraphNodeKind", {
  description: "What a node of a pipeline graph stands for: something that ran, or data.",
  values: {
    EXECUTION: { description: "A step (macro graph) or an execution (micro graph)." },
    DATA: { description: "A role of a step (macro graph) or an artifact (micro graph)." },
  } satisfies Record<(typeof GRAPH_NODE_KINDS)[number], unknown>,
});
const GraphEdgeKindEnum = builder.enumType("PipelineGraphEdgeKind", {
  values: {
    USED: { description: "Data → execution: the execution (or step) used it, in `role`." },
    WAS_GENERATED_BY: { description: "Execution → data: the execution (or step) produced it, in `role`." },
    WAS_DERIVED_FROM: { description: "Parent artifact → derived artifact, from the derivation edges the executions recorded (micro graph only)." },
  } satisfies Record<(typeof GRAPH_EDGE_KINDS)[number], unknown>,
  description: "USED: data → execution; WAS_GENERATED_BY: execution → data; WAS_DERIVED_FROM: parent artifact → derived artifact.",
});

const NODE_TYPENAMES = {
  PIPELINE_STEP: "MacroStepNode",
  PIPELINE_ROLE: "MacroRoleNode",
  EXECUTION: "MicroExecutionNode",
  ARTIFACT: "MicroArtifactNode",
} as const satisfies Record<GraphNode["type"], string>;

const GraphNodeInterface = builder.interfaceRef<GraphNode>("PipelineGraphNode").implement({
  description: "A node of a macro or micro graph with its layout hints.",
  resolveType: (node) => NODE_TYPENAMES[node.type],
  fields: (t) => ({
    key: t.exposeString("key", {
      description: "Unique within the graph; what edges and columns refer to. A runId or artifact id in the micro graph; `step:<n>`, `data:<n>:<role>`, `input:<n>:<role>` in the macro graph.",
    }),
    kind: t.expose("kind", { type: GraphNodeKindEnum, description: "EXECUTION for a step or execution, DATA for a role or artifact." }),
    label: t.exposeString("label", { description: "The text to show: a step's or execution's operation name, a role's name, an artifact's original name." }),
    column: t.exposeInt("column", { description: "0-based, left to right: 0 = pipeline inputs, 2k-1 = the k-th step's executions, 2k = its outputs." }),
    order: t.exposeInt("order", { description: "0-based, top to bottom within the column, chosen to keep edge crossings low." }),
    step: t.exposeInt("step", {
      nullable: true,
      description: "The step at which the node appears when the graph is replayed step by step; null for pipeline inputs (there from the start).",
    }),
    x: t.float({ nullable: true, description: "layout: true — the box's left edge (CSS pixels, from the top left); null otherwise.", resolve: (node) => node.box?.x ?? null }),
    y: t.float({ nullable: true, description: "layout: true — the box's top edge.", resolve: (node) => node.box?.y ?? null }),
    width: t.float({ nullable: true, description: "layout: true — the box's width (CSS pixels); null otherwise.", resolve: (node) => node.box?.width ?? null }),
    height: t.float({ nullable: true, description: "layout: true — the box's height (CSS pixels); null otherwise.", resolve: (node) => node.box?.height ?? null }),
  }),
});

export const PointObject = builder.objectRef<{ x: number; y: number }>("Point").implement({
  description: "A point of a drawing, in CSS pixels from the top left.",
  fields: (t) => ({ x: t.exposeFloat("x", { description: "CSS pixels from the left edge." }), y: t.exposeFloat("y", { description: "CSS pixels from the top edge." }) }),
});

builder.objectRef<PipelineStepNode>(NODE_TYPENAMES.PIPELINE_STEP).implement({
  description: "Macro graph: one step of the pipeline (an execution node).",
  interfaces: [GraphNodeInterface],
  fields: (t) => ({
    operation: t.field({ type: OperationRef, description: "The operation the step runs (for a job's graph, the child job's operation).", resolve: (node) => node.operation.id }),
  }),
});

builder.objectRef<PipelineRoleNode>(NODE_TYPENAMES.PIPELINE_ROLE).implement({
  description: "Macro graph: an output role of a step, or an input role no step feeds (a pipeline input).",
  interfaces: [GraphNodeInterface],
  fields: (t) => ({
    role: t.exposeString("role", { description: "The role's name, as its operation declares it." }),
    artifactType: t.exposeString("artifactType", { description: "The artifact type the role declares." }),
    pipelineInput: t.exposeBoolean("pipelineInput", { description: "An input role no earlier step feeds (key `input:<n>:<role>`, in column 0); false for an output role." }),
  }),
});

builder.objectRef<ExecutionNode>(NODE_TYPENAMES.EXECUTION).implement({
  description: "Micro graph: one execution of the pipeline.",
  interfaces: [GraphNodeInterface],
  fields: (t) => ({
    execution: t.field({ type: ExecutionRef, description: "The execution.", resolve: (node) => node.execution }),
  }),
});

builder.objectRef<ArtifactNode>(NODE_TYPENAMES.ARTIFACT).implement({
  description: "Micro graph: an artifact the pipeline's executions used or produced.",
  interfaces: [GraphNodeInterface],
  fields: (t) => ({
    artifact: t.field({ type: ArtifactRef, description: "The artifact.", resolve: (node) => node.artifact }),
    pipelineInput: t.exposeBoolean("pipelineInput", { description: "Used by the pipeline but produced by none of its executions." }),
  }),
});

const GraphEdgeObject = builder.objectRef<GraphEdge>("PipelineGraphEdge").implement({
  description: "An edge between two node keys, drawn in the direction data flows.",
  fields: (t) => ({
    from: t.exposeString("from", { description: "Key of the upstream node." }),
    to: t.exposeString("to", { description: "Key of the downstream node." }),
    kind: t.expose("kind", { type: GraphEdgeKindEnum, description: "What the edge records (see PipelineGraphEdgeKind)." }),
    role: t.exposeString("role", { nullable: true, description: "USED / WAS_GENERATED_BY: the role the data played." }),
    derivation: t.exposeString("derivation", {
      nullable: true,
      description: "WAS_DERIVED_FROM: the recorded edge kind (INDEPENDENT, CO_INPUT, OUTPUT_TO_OUTPUT, CONFIG_REFERENCE).",
    }),
    step: t.exposeInt("step", { description: "The step at which the edge appears (its execution's step)." }),
    backward: t.exposeBoolean("backward", {
      description: "Draw dashed: the edge is not one hop rightwards (USED/WAS_GENERATED_BY: column c → c+1; WAS_DERIVED_FROM: c → c+2), e.g. a passthrough consumed by a later step.",
    }),
    points: t.field({ type: [PointObject], nullable: true, description: "layout: true — its route, first point at `from`.", resolve: (edge) => edge.points ?? null }),
  }),
});

const GraphColumnObject = builder.objectRef<GraphColumn>("PipelineGraphColumn").implement({
  description: "One column of the layout, left to right.",
  fields: (t) => ({
    index: t.exposeInt("index", { description: "0-based, left to right: the `column` of the nodes it holds." }),
    kind: t.expose("kind", { type: GraphNodeKindEnum, description: "EXECUTION for a column of executions (odd index), DATA for the pipeline inputs and each step's outputs (even index)." }),
    step: t.exposeInt("step", { nullable: true, description: "The step whose executions or outputs it holds; null for the pipeline-input column." }),
    nodeKeys: t.exposeStringList("nodeKeys", { description: "Its nodes' keys, top to bottom." }),
  }),
});

const PipelineGraphInterface = builder.interfaceRef<MacroGraph | MicroGraph>("PipelineGraph").implement({
  description:
    "A pipeline drawn left to right in strict columns (pipeline inputs, then per step: its executions, then its outputs), with an order within each column, backward edges flagged and a step on every node for step-by-step replay.",
  resolveType: (graph) => ("upToStep" in graph ? "MicroGraph" : "MacroGraph"),
  fields: (t) => ({
    pipeline: t.exposeString("pipeline", { description: "The pipeline drawn; for an OpenLineage job's graph, the job's `namespace/name`." }),
    steps: t.exposeIntList("steps", { description: "The pipeline's step numbers in column order: the stops of a step-by-step replay." }),
    columnCount: t.int({ description: "How many columns the layout has: the length of `columns`.", resolve: (graph) => graph.columns.length }),
    columns: t.field({ type: [GraphColumnObject], description: "Every column, left to right, empty ones included.", resolve: (graph) => graph.columns }),
    nodes: t.field({ type: [GraphNodeInterface], description: "By column, then order.", resolve: (graph) => graph.nodes }),
    edges: t.field({ type: [GraphEdgeObject], description: "By the upstream node's column and order, then the downstream node's, then kind and role.", resolve: (graph) => graph.edges }),
    dot: t.exposeString("dot", {
      nullable: true,
      description: "Graphviz DOT text (rankdir=LR, one rank=same group per column, backward edges dashed) when format is DOT; else null.",
    }),
    job: t.field({ type: JobObject, nullable: true, description: "The OpenLineage job drawn, for a job's graph (`pipeline` is then `namespace/name`).", resolve: (graph) => graph.job ?? null }),
    width: t.float({ nullable: true, description: "layout: true — the drawing's size.", resolve: (graph) => graph.width ?? null }),
    height: t.float({ nullable: true, description: "layout: true — the drawing's height (CSS pixels); null otherwise.", resolve: (graph) => graph.height ?? null }),
  }),
});

const MacroGraphObject = builder.objectRef<MacroGraph>("MacroGraph").implement({
  description: "A pipeline at the step level, from its steps table alone: step → output role → consuming step.",
  interfaces: [PipelineGraphInterface],
  fields: () => ({}),
});

const MicroGraphObject = builder.objectRef<MicroGraph>("MicroGraph").implement({
  description: "Every execution and artifact of a pipeline, with execution edges and derivation edges overlaid.",
  interfaces: [PipelineGraphInterface],
  fields: (t) => ({
    upToStep: t.exposeInt("upToStep", { nullable: true, description: "The upToStep asked for; null when every step is drawn." }),
  }),
});

const EXPAND_COMPOSITES =
  "A step that runs a composite is drawn as one step; true draws the composite's steps in its place, a column pair per level of its wiring, all at the composite's step (macro: from its definition; micro: the executions of its steps, their links and internal edges).";

const JOB =
  "An OpenLineage job instead of a pipeline: its child jobs (the jobs whose runs name one of its runs as parent) are the steps, numbered in the order they first started; a job without children is a pipeline of one step, itself.";
const RUNS = `With \`job\`: how many of the job's latest runs (and their children) are drawn: default ${DEFAULT_JOB_RUNS}, at most ${MAX_JOB_RUNS}.`;
const PIPELINE = "The pipeline's name. Give exactly one of `pipeline` and `job`: both or neither is INVALID_ARGUMENT.";
const FORMAT = "JSON (the default), or DOT to also fill `dot` with Graphviz text.";
const LAYOUT = "Also give every node a box (x, y, width, height) and every edge a route (points), left to right in the graph's columns and order.";

/** Exactly one of pipeline and job. */
function graphOf(args: { pipeline?: string | null; job?: JobName | null }): { pipeline: string } | { job: JobName } {
  if ((args.pipeline == null) === (args.job == null)) throw new InvalidArgumentError(args.pipeline == null ? "pipeline" : "job", "give exactly one of pipeline and job");
  return args.pipeline != null ? { pipeline: args.pipeline } : { job: args.job! };
}

builder.queryFields((t) => ({
  macroGraph: t.field({
    type: MacroGraphObject,
    description: "The macro graph of a pipeline (or an OpenLineage job). A pipeline without steps, a job without runs, is a NOT_FOUND error (field `pipeline`, `job`).",
    args: {
      pipeline: t.arg.string({ description: PIPELINE }),
      job: t.arg({ type: NameInput, description: JOB }),
      runs: t.arg.int({ defaultValue: DEFAULT_JOB_RUNS, description: RUNS }),
      format: t.arg({ type: GraphFormatEnum, defaultValue: "JSON", description: FORMAT }),
      expandComposites: t.arg.boolean({ defaultValue: false, description: EXPAND_COMPOSITES }),
      layout: t.arg.boolean({ defaultValue: false, description: LAYOUT }),
    },
    resolve: (_root, args, ctx) => {
      const of = graphOf(args);
      const options = { dot: args.format === "DOT", expandComposites: args.expandComposites ?? false, layout: args.layout ?? false };
      return heavyRead(ctx, "macroGraph", { ...of, runs: args.runs ?? DEFAULT_JOB_RUNS, options }, { shared: true });
    },
  }),
  microGraph: t.field({
    type: MicroGraphObject,
    description:
      "The micro graph of a pipeline (or an OpenLineage job): its executions with a step ≤ upToStep (all when omitted) and the artifacts they used or produced; a step below the first shows what the first step reads. " +
      "NOT_FOUND for a pipeline without steps (a job without runs); INVALID_ARGUMENT for upToStep < 0.",
    args: {
      pipeline: t.arg.string({ description: PIPELINE }),
      job: t.arg({ type: NameInput, description: JOB }),
      runs: t.arg.int({ defaultValue: DEFAULT_JOB_RUNS, description: RUNS }),
      upToStep: t.arg.int({
        description:
          "Draw only the executions with a step ≤ this (all when omitted); below the first step, what the first step reads. Negative is INVALID_ARGUMENT; a graph over the server's node limit is RESULT_TOO_LARGE, and a lower upToStep draws less.",
      }),
      format: t.arg({ type: GraphFormatEnum, defaultValue: "JSON", description: FORMAT }),
      expandComposites: t.arg.boolean({ defaultValue: false, description: EXPAND_COMPOSITES }),
      layout: t.arg.boolean({ defaultValue: false, description: LAYOUT }),
    },
    resolve: (_root, args, ctx) => {
      const of = graphOf(args);
      const options = { dot: args.format === "DOT", expandComposites: args.expandComposites ?? false, layout: args.layout ?? false };
      return heavyRead(ctx, "microGraph", { ...of, runs: args.runs ?? DEFAULT_JOB_RUNS, upToStep: args.upToStep ?? null, options }, { shared: true });
    },
  }),
}));

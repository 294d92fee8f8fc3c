import type { OperationId } from "../ids";
import type { Box, Point } from "./box-layout";
import type { ArtifactRecord, ExecutionRecord, OperationKind } from "../records";

/**
 * The shapes shared by the macro and micro graph: nodes placed in strict left-to-right columns,
 * ordered within each column, and edges flagged when they cannot be drawn as one hop rightwards.
 * The rules that place them are in column-rules.ts; the ordering in column-order.ts.
 */

export const GRAPH_NODE_KINDS = ["EXECUTION", "DATA"] as const;
export type GraphNodeKind = (typeof GRAPH_NODE_KINDS)[number];

/** Data flow in PROV terms, always drawn in the direction data moves (left to right). */
export const GRAPH_EDGE_KINDS = ["USED", "WAS_GENERATED_BY", "WAS_DERIVED_FROM"] as const;
export type GraphEdgeKind = (typeof GRAPH_EDGE_KINDS)[number];

/** What every node carries so a client can draw it without a layout engine. */
export interface NodePlacement {
  /** Unique within one graph: a runId or artifact id (micro), `step:…`/`data:…`/`input:…` (macro). */
  key: string;
  kind: GraphNodeKind;
  label: string;
  /** 0-based, left to right. */
  column: number;
  /** 0-based, top to bottom within the column. */
  order: number;
  /** The pipeline step at which the node appears; null = before the first step (a pipeline input). */
  step: number | null;
  /** With layout: its box (CSS pixels). */
  box?: Box | null;
}

/** Macro graph: one execution node per step of the pipeline. */
export interface PipelineStepNode extends NodePlacement {
  type: "PIPELINE_STEP";
  kind: "EXECUTION";
  step: number;
  operation: { id: OperationId; name: string; version: string; kind: OperationKind };
}

/** Macro graph: one data node per output role of a step, or per input role no step feeds (a pipeline input). */
export interface PipelineRoleNode extends NodePlacement {
  type: "PIPELINE_ROLE";
  kind: "DATA";
  role: string;
  artifactType: string;
  pipelineInput: boolean;
}

/** Micro graph: one node per execution of the pipeline. */
export interface ExecutionNode extends NodePlacement {
  type: "EXECUTION";
  kind: "EXECUTION";
  step: number;
  execution: ExecutionRecord;
  operationName: string;
  operationVersion: string;
}

/** Micro graph: one node per artifact those executions used or produced. */
export interface ArtifactNode extends NodePlacement {
  type: "ARTIFACT";
  kind: "DATA";
  artifact: ArtifactRecord;
  pipelineInput: boolean;
}

export type MacroGraphNode = PipelineStepNode | PipelineRoleNode;
export type MicroGraphNode = ExecutionNode | ArtifactNode;
export type GraphNode = MacroGraphNode | MicroGraphNode;

export interface GraphEdge {
  /** Key of the node the edge leaves (the upstream end). */
  from: string;
  /** Key of the node the edge enters (the downstream end). */
  to: string;
  kind: GraphEdgeKind;
  /** USED / WAS_GENERATED_BY: the role the data played; null for WAS_DERIVED_FROM. */
  role: string | null;
  /** WAS_DERIVED_FROM: the recorded derivation kind (INDEPENDENT, CO_INPUT, …); null otherwise. */
  derivation: string | null;
  /** The step at which the edge appears (the step of the execution it belongs to). */
  step: number;
  /** Drawn dashed: the edge is not one hop rightwards (see isBackwardEdge). */
  backward: boolean;
  /** With layout: its route, first point at `from`. */
  points?: Point[] | null;
}

export interface GraphColumn {
  index: number;
  kind: GraphNodeKind;
  /** The step whose execution or output data the column holds; null for the pipeline-input column. */
  step: number | null;
  /** The keys of the column's nodes, top to bottom (= by order). */
  nodeKeys: string[];
}

export interface LayeredGraph<N extends GraphNode> {
  pipeline: string;
  /** The pipeline's step numbers, in column order: what a client steps through to replay the graph. */
  steps: number[];
  columns: GraphColumn[];
  /** By column, then order. */
  nodes: N[];
  /** By the upstream node's (column, order), then the downstream node's, then kind and role. */
  edges: GraphEdge[];
  /** Graphviz DOT text when it was asked for, else null. */
  dot: string | null;
  /** The OpenLineage job drawn (its child jobs as steps), when the graph is a job's; `pipeline` is then `namespace/name`. */
  job?: { namespace: string; name: string } | null;
  /** With layout: the drawing's size. */
  width?: number | null;
  height?: number | null;
}

export type MacroGraph = LayeredGraph<MacroGraphNode>;
export type MicroGraph = LayeredGraph<MicroGraphNode> & { upToStep: number | null };

/** A node or edge before layout: everything but the fields the layout decides. */
export type DraftNode<N extends GraphNode> = N extends GraphNode ? Omit<N, "order"> : never;
export type DraftEdge = Omit<GraphEdge, "backward" | "points">;

import { Background, Controls, type Edge, MarkerType, type Node, ReactFlow } from "@xyflow/react";
import { useCallback, useMemo } from "react";
import { MacroGraphDocument, MicroGraphDocument, type PipelineEdgeFieldsFragment, type PipelineNodeFieldsFragment, request } from "../api/client";
import { Empty } from "../components/Empty";
import { MIN_ZOOM } from "../components/GraphCanvas";
import { ErrorNotice } from "../components/ErrorNotice";
import { Loading } from "../components/Loading";
import { PipelineNode, type PipelineNodeData } from "../components/PipelineNode";
import { Stepper } from "../components/Stepper";
import { onBoxKey } from "../graph/box-keys";
import { useQuery } from "../state/use-query";
import { hrefOf, navigate, updateParams, useLocation } from "./router";
import { useDocumentTitle } from "../state/document-title";

const NODE_TYPES = { pipeline: PipelineNode };
const COLUMN_WIDTH = 250;
const ROW_HEIGHT = 78;

/**
 * `/pipeline?name=…&view=macro|micro&step=k`: the macro graph (steps and roles) or the micro graph (every
 * run and artifact), laid out by the server's columns, with a stepper that replays it step by step.
 */
export function PipelineView() {
  const { params } = useLocation();
  const name = params.get("name") ?? "";
  const view = params.get("view") === "macro" ? "macro" : "micro";
  const expandComposites = params.get("composites") === "1";
  const result = useQuery(name ? `${name}|${view}|${expandComposites}` : undefined, async (signal) => {
    if (view === "macro") return (await request(MacroGraphDocument, { pipeline: name, expandComposites }, signal)).macroGraph;
    return (await request(MicroGraphDocument, { pipeline: name, expandComposites }, signal)).microGraph;
  });
  useDocumentTitle(name ? `Pipeline ${name}` : undefined);
  const graph = result.data;
  const steps = graph?.steps ?? [];
  const stepParam = params.get("step");
  // The stop index: 0 = the inputs, k = after the k-th step in column order; default the whole pipeline.
  const index = stepParam === null ? steps.length : Math.max(0, Math.min(steps.length, steps.indexOf(Number(stepParam)) + 1));
  const upTo = index === 0 ? -Infinity : steps[index - 1];
  const setIndex = useCallback((i: number) => updateParams({ step: i <= 0 ? "0" : steps[Math.min(i, steps.length) - 1] }, { replace: true }), [steps]);

  const { nodes, edges } = useMemo(() => elementsOf(graph?.nodes ?? [], graph?.edges ?? [], upTo), [graph, upTo]);
  /** A box clicked (or Enter on it): the neighbourhood of the artifact or run it stands for. */
  const open = (nodeId: string) => {
    const target = (nodes.find((n) => n.id === nodeId)?.data as (PipelineNodeData & { target?: string }) | undefined)?.target;
    if (target) navigate(hrefOf("/graph", { root: target }));
  };
  if (!name) return <Empty heading title="No pipeline chosen">Search for a pipeline by name.</Empty>;
  return (
    <div className="graph-view">
      <div className="toolbar">
        <h1 className="toolbar-title">Pipeline {name}</h1>
        <div className="segmented" role="radiogroup" aria-label="Graph">
          {(["macro", "micro"] as const).map((v) => (
            <button key={v} role="radio" aria-checked={view === v} className={view === v ? "on" : ""} onClick={() => updateParams({ view: v === "micro" ? null : v, step: null })}>
              {v === "macro" ? "Steps (macro)" : "Runs (micro)"}
            </button>
          ))}
        </div>
        <label className="control check">
          <input type="checkbox" checked={expandComposites} onChange={(e) => updateParams({ composites: e.target.checked })} /> Expand composites
        </label>
        {graph && <Stepper steps={steps} index={index} onChange={setIndex} />}
      </div>
      {result.error && <ErrorNotice error={result.error} onRetry={result.reload} />}
      <div className="graph-body">
        {!graph ? (
          !result.error && <Loading what={`pipeline ${name}`} />
        ) : nodes.length === 0 ? (
          <Empty title="Nothing at this step" />
        ) : (
          <div className="canvas" onKeyDown={onBoxKey(open)} data-testid="pipeline-canvas" data-node-count={nodes.length}>
            <ReactFlow
              nodes={nodes}
              edges={edges}
              nodeTypes={NODE_TYPES}
              fitView
              fitViewOptions={{ padding: 0.15, maxZoom: 1 }}
              minZoom={MIN_ZOOM}
              nodesDraggable={false}
              nodesConnectable={false}
              proOptions={{ hideAttribution: true }}
              colorMode="system"
              onNodeClick={(_, node) => open(node.id)}
            >
              <Background gap={24} color="var(--line)" />
              <Controls showInteractive={false} />
            </ReactFlow>
          </div>
        )}
      </div>
    </div>
  );
}

function elementsOf(all: readonly PipelineNodeFieldsFragment[], allEdges: readonly PipelineEdgeFieldsFragment[], upTo: number): { nodes: Node[]; edges: Edge[] } {
  const shown = all.filter((n) => n.step == null || n.step <= upTo);
  const keys = new Set(shown.map((n) => n.key));
  const nodes: Node[] = shown.map((n) => {
    const execution = n.kind === "EXECUTION";
    const target = "artifact" in n && n.artifact ? n.artifact.id : "execution" in n && n.execution ? n.execution.runId : undefined;
    const sub = "operation" in n && n.operation ? `${n.operation.name} ${n.operation.version}` : "artifactType" in n ? n.artifactType : "artifact" in n ? n.artifact?.artifactType : undefined;
    return {
      id: n.key,
      type: "pipeline",
      position: { x: n.column * COLUMN_WIDTH, y: n.order * ROW_HEIGHT },
      width: execution ? 180 : 210,
      height: execution ? 44 : 56,
      data: {
        label: n.label,
        sub: n.step != null ? `${sub ?? ""}${sub ? " · " : ""}step ${n.step}` : sub ?? "pipeline input",
        execution,
        status: "execution" in n ? n.execution?.status.toLowerCase() : undefined,
        appearing: n.step != null && n.step === upTo,
        pipelineInput: "pipelineInput" in n && !!n.pipelineInput,
        target,
      } satisfies PipelineNodeData & { target?: string },
    };
  });
  const edges: Edge[] = allEdges
    .filter((e) => e.step <= upTo && keys.has(e.from) && keys.has(e.to))
    .map((e, i) => {
      const derived = e.kind === "WAS_DERIVED_FROM";
      const stroke = derived ? "var(--edge-derived)" : e.step === upTo ? "var(--fresh)" : "var(--edge)";
      return {
        id: `${e.from}>${e.to}>${e.kind}>${i}`,
        source: e.from,
        target: e.to,
        className: `edge-${e.kind.toLowerCase()}${e.backward ? " backward" : ""}`,
        style: { stroke, strokeWidth: 1.5, strokeDasharray: e.backward ? "6 4" : derived ? "2 3" : undefined },
        markerEnd: { type: MarkerType.ArrowClosed, color: stroke, width: 14, height: 14 },
        label: e.role ?? undefined,
        labelStyle: { fontSize: 10, fill: "var(--muted)" },
      };
    });
  return { nodes, edges };
}

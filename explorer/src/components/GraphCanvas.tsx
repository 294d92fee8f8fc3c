import { Background, Controls, type Edge, MiniMap, type Node, type NodeMouseHandler, ReactFlow, type ReactFlowInstance, useStore } from "@xyflow/react";
import { memo, useCallback, useEffect, useMemo, useRef } from "react";
import { type BoxData, FlowCache, flowEdges, flowNodes, type Highlights } from "../graph/flow-elements";
import type { GraphModel } from "../graph/graph-model";
import { ArtifactNode } from "./ArtifactNode";
import { ColumnNode } from "./ColumnNode";
import { RunNode } from "./RunNode";

const NODE_TYPES = { artifact: ArtifactNode, run: RunNode, column: ColumnNode };
const miniMapColour = (n: Node) => (n.type === "run" ? "#cbd5e1" : "#94a3b8");

/**
 * The dotted grid, only where its dots are far enough apart to help: zoomed out over a big graph its gap
 * shrinks to a pixel or two and repainting that many dots on every frame of a pan costs more than the graph.
 */
function Grid() {
  const near = useStore((s) => s.transform[2] >= 0.5);
  return near ? <Background gap={24} color="#e2e8f0" /> : null;
}

/**
 * Below this zoom a box's 12 px text is drawn under 4 px: nobody reads it, yet painting it (and the boxes'
 * shadows, handles and every edge's arrowhead) is most of a frame's work over a big graph. The canvas then
 * gets the class `far` and styles.css draws boxes as plain tiles and edges as plain lines.
 */
export const FAR_ZOOM = 0.35;

/** Sets the canvas's `far` class when the zoom crosses FAR_ZOOM: no React render of the graph, only a class. */
function FarClass({ canvas }: { canvas: React.RefObject<HTMLDivElement | null> }) {
  const far = useStore((s) => s.transform[2] < FAR_ZOOM);
  useEffect(() => void canvas.current?.classList.toggle("far", far), [far, canvas]);
  return null;
}

/**
 * The minimap, only while zoomed in: far out the canvas is its own overview, and the minimap redraws every
 * one of its boxes on each frame of a pan (its viewport mask moves), which over 2,000 boxes costs more than
 * the pan itself.
 */
function NearMiniMap() {
  const near = useStore((s) => s.transform[2] >= FAR_ZOOM);
  return near ? <MiniMap pannable zoomable nodeStrokeWidth={2} nodeColor={miniMapColour} /> : null;
}

/** The neighbourhood drawn with React Flow: pan, zoom, click to select, a minimap for big graphs. */
export const GraphCanvas = memo(function GraphCanvas({
  model,
  highlights,
  onSelect,
  fitKey,
}: {
  model: GraphModel;
  highlights: Highlights;
  onSelect(nodeId: string | undefined, event?: React.MouseEvent): void;
  /** Changes when the view should fit the graph again (a new root, a new layout). */
  fitKey: string;
}) {
  const nodeCache = useRef(new FlowCache<Node<BoxData>>()).current;
  const edgeCache = useRef(new FlowCache<Edge>()).current;
  const nodes = useMemo<Node<BoxData>[]>(() => flowNodes(model, highlights, nodeCache), [model, highlights, nodeCache]);
  const edges = useMemo<Edge[]>(() => flowEdges(model, highlights, edgeCache), [model, highlights, edgeCache]);
  const flow = useRef<ReactFlowInstance<Node<BoxData>, Edge>>(undefined);
  useEffect(() => {
    // After paint: the new layout's boxes exist, fit them (at most 1:1, so a small graph is not blown up).
    const frame = requestAnimationFrame(() => void flow.current?.fitView({ padding: 0.15, maxZoom: 1, duration: 0 }));
    return () => cancelAnimationFrame(frame);
  }, [fitKey]);
  // A node chosen by keyboard, link or search may lie outside the view (or under the details panel): bring it in.
  useEffect(() => {
    const instance = flow.current;
    const id = highlights.selected;
    if (!instance || !id) return;
    const frame = requestAnimationFrame(() => {
      const node = instance.getInternalNode(id);
      const box = document.querySelector(".canvas")?.getBoundingClientRect();
      if (!node || !box) return;
      const { x, y, zoom } = instance.getViewport();
      const abs = node.internals.positionAbsolute;
      const [left, top] = [abs.x * zoom + x, abs.y * zoom + y];
      const [right, bottom] = [left + (node.measured.width ?? 0) * zoom, top + (node.measured.height ?? 0) * zoom];
      if (left >= 0 && top >= 0 && right <= box.width && bottom <= box.height) return;
      void instance.setCenter(abs.x + (node.measured.width ?? 0) / 2, abs.y + (node.measured.height ?? 0) / 2, { zoom, duration: 200 });
    });
    return () => cancelAnimationFrame(frame);
  }, [highlights.selected]);
  const onNodeClick: NodeMouseHandler<Node<BoxData>> = useCallback((event, node) => onSelect(node.id, event), [onSelect]);
  const onPaneClick = useCallback(() => onSelect(undefined), [onSelect]);
  const onInit = useCallback((instance: ReactFlowInstance<Node<BoxData>, Edge>) => {
    flow.current = instance;
    void instance.fitView({ padding: 0.15, maxZoom: 1 });
  }, []);
  const canvas = useRef<HTMLDivElement>(null);
  const moving = useMoving(canvas);
  return (
    <div ref={canvas} className="canvas" data-testid="graph-canvas" data-node-count={nodes.length} data-edge-count={edges.length}>
      <ReactFlow<Node<BoxData>, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onInit={onInit}
        onNodeClick={onNodeClick}
        onMoveStart={moving.start}
        onMoveEnd={moving.end}
        onPaneClick={onPaneClick}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable
        minZoom={0.05}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
        deleteKeyCode={null}
        selectionKeyCode={null}
        multiSelectionKeyCode={null}
      >
        <Grid />
        <FarClass canvas={canvas} />
        <Controls showInteractive={false} />
        {nodes.length > 40 && <NearMiniMap />}
      </ReactFlow>
    </div>
  );
});

/**
 * The canvas has the class `moving` from the start of a pan or zoom until the view has rested for a second
 * (drags in a row stay one layer). Set on the element, not through state: a pan renders nothing in React.
 */
function useMoving(canvas: React.RefObject<HTMLDivElement | null>): { start(): void; end(): void } {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const start = useCallback(() => {
    clearTimeout(timer.current);
    canvas.current?.classList.add("moving");
  }, [canvas]);
  const end = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => canvas.current?.classList.remove("moving"), 1000);
  }, [canvas]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return { start, end };
}

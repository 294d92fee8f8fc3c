import { Background, ControlButton, Controls, type Edge, getViewportForBounds, MiniMap, type Node, type NodeMouseHandler, ReactFlow, type ReactFlowInstance, useStore } from "@xyflow/react";
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { onBoxKey } from "../graph/box-keys";
import { absoluteBoxes, boxAt, boxesBounds } from "../graph/far-picture";
import { type BoxData, FlowCache, flowEdges, flowNodes, type Highlights } from "../graph/flow-elements";
import type { GraphModel } from "../graph/graph-model";
import { ArtifactNode } from "./ArtifactNode";
import { ColumnNode } from "./ColumnNode";
import { FarCanvas } from "./FarCanvas";
import { RunNode } from "./RunNode";

const NODE_TYPES = { artifact: ArtifactNode, run: RunNode, column: ColumnNode };
const miniMapColour = (n: Node) => (n.type === "run" ? "#cbd5e1" : "#94a3b8");

/**
 * The dotted grid, only where its dots are far enough apart to help: zoomed out over a big graph its gap
 * shrinks to a pixel or two and repainting that many dots on every frame of a pan costs more than the graph.
 */
function Grid() {
  const near = useStore((s) => s.transform[2] >= 0.5);
  return near ? <Background gap={24} color="var(--line)" /> : null;
}

/**
 * Below this zoom a box's 12 px text is drawn under 4 px: nobody reads it, yet keeping 2,000 boxes and 3,000
 * edges in the page makes every pan repaint them (far-picture.ts), and every step of it runs each box's and
 * edge's store subscription in React Flow. So far out React Flow is handed no boxes and no edges at all: the
 * canvas element gets the class `far` and FarCanvas draws the graph as one picture in their place. The boxes
 * are mounted again when the zoom comes back over this line.
 */
export const FAR_ZOOM = 0.35;
/**
 * Over this many boxes React Flow mounts only those in view. Zooming in over the line from a picture of
 * 2,000 boxes then mounts the few hundred on screen, not all of them (2.9 s at once, measured), and an
 * expansion of +98 in a neighbourhood of 200 mounts the few dozen that land in view (the expand bench,
 * interleaved at load ~3.5: p50 283 ms mounting all 299 boxes, 214 ms mounting the 42 in view).
 */
const VISIBLE_ONLY_OVER = 150;
const NO_NODES: Node<BoxData>[] = [];
const NO_EDGES: Edge[] = [];

/** Tells when the zoom crosses FAR_ZOOM (sets the `far` class) and draws the far picture while under it. */
function FarView({ canvas, nodes, edges, onFar }: { canvas: React.RefObject<HTMLDivElement | null>; nodes: Node<BoxData>[]; edges: Edge[]; onFar(far: boolean): void }) {
  const far = useStore((s) => s.transform[2] < FAR_ZOOM);
  useEffect(() => {
    canvas.current?.classList.toggle("far", far);
    onFar(far);
  }, [far, canvas, onFar]);
  return far ? <FarCanvas nodes={nodes} edges={edges} /> : null;
}

/** What "fit" fits: the boxes' own extent (their sizes are known), so it needs neither mounted nor measured boxes. */
const FIT = { padding: 0.15, maxZoom: 1 } as const;

/** How far out a graph may be zoomed; React Flow's own floor (0.5) cannot fit a long pipeline on a phone. */
export const MIN_ZOOM = 0.05;

/**
 * Where a fit of these bounds puts the view in this pane, by React Flow's own computation: at most 1:1, so a
 * small graph is not blown up. (Its fitBounds takes no maxZoom: it zoomed a graph of two boxes to 2:1.)
 */
function fitViewport(bounds: { x: number; y: number; width: number; height: number }, pane: { width: number; height: number }) {
  return getViewportForBounds(bounds, pane.width, pane.height, MIN_ZOOM, FIT.maxZoom, FIT.padding);
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
  /** A node chosen by a click, or by Enter or Space on its focused box (`event` says whether Shift was held). */
  onSelect(nodeId: string | undefined, event?: { shiftKey: boolean }): void;
  /** Changes when the view should fit the graph again (a new root, a new layout). */
  fitKey: string;
}) {
  const nodeCache = useRef(new FlowCache<Node<BoxData>>()).current;
  const edgeCache = useRef(new FlowCache<Edge>()).current;
  const nodes = useMemo<Node<BoxData>[]>(() => flowNodes(model, highlights, nodeCache), [model, highlights, nodeCache]);
  const edges = useMemo<Edge[]>(() => flowEdges(model, highlights, edgeCache), [model, highlights, edgeCache]);
  const flow = useRef<ReactFlowInstance<Node<BoxData>, Edge>>(undefined);
  const boxes = useMemo(() => absoluteBoxes(nodes), [nodes]);
  const boxesRef = useRef(boxes);
  boxesRef.current = boxes;
  const canvas = useRef<HTMLDivElement>(null);
  /** Fits the boxes in the pane; answers the zoom it lands on (known at once, while React Flow moves there later). */
  const fit = useCallback((): number | undefined => {
    const bounds = boxesBounds(boxesRef.current);
    const element = canvas.current;
    if (!bounds || !flow.current || !element) return undefined;
    const viewport = fitViewport(bounds, { width: element.clientWidth, height: element.clientHeight });
    void flow.current.setViewport(viewport);
    return viewport.zoom;
  }, []);
  // A new layout that will fit far out is not handed to React Flow as boxes first, only to be dropped a frame
  // later when the fit lands far out: until its fit, it is treated as far already.
  const [fittedKey, setFittedKey] = useState<string>();
  const [zoomedFar, setFar] = useState(false);
  // The pane's size, read before the first paint: on the canvas's first render its element does not exist
  // yet, and a guess from the window's size (larger than the pane) predicted near for a neighbourhood of
  // 200 whose fit lands just under FAR_ZOOM, so its boxes were mounted, measured and dropped again.
  const [pane, setPane] = useState<{ width: number; height: number }>();
  useLayoutEffect(() => {
    const element = canvas.current;
    if (!element) return;
    const [width, height] = [element.clientWidth, element.clientHeight];
    setPane((known) => (known?.width === width && known.height === height ? known : { width, height }));
  }, [fitKey]);
  const fitsFar = useMemo(() => {
    const bounds = boxesBounds(boxes);
    return !!bounds && !!pane && fitViewport(bounds, pane).zoom < FAR_ZOOM;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fitKey, pane]);
  // Fits the layout of `key` and ends its prediction. Far or near is said in the same render: left to
  // FarView's effect it came once React Flow had moved, a render later, and a layout that fits far out was
  // mounted as boxes for that render and dropped again (201 boxes mounted, measured and unmounted when a
  // neighbourhood opened). Before React Flow is ready (onInit) nothing is fitted and the prediction stands.
  const fitLayout = useCallback(
    (key: string) => {
      const zoom = fit();
      if (zoom === undefined) return;
      setFar(zoom < FAR_ZOOM);
      setFittedKey(key);
    },
    [fit],
  );
  const fitKeyRef = useRef(fitKey);
  fitKeyRef.current = fitKey;
  useEffect(() => {
    // After paint: fit the new layout (at most 1:1, so a small graph is not blown up).
    const frame = requestAnimationFrame(() => fitLayout(fitKey));
    return () => cancelAnimationFrame(frame);
  }, [fitKey, fitLayout]);
  // A node chosen by keyboard, link or search may lie outside the view (or under the details panel): bring it in.
  useEffect(() => {
    const instance = flow.current;
    const id = highlights.selected;
    if (!instance || !id) return;
    const frame = requestAnimationFrame(() => {
      // From the boxes' own positions: far out React Flow holds no boxes to ask.
      const node = boxesRef.current.find((b) => b.id === id);
      const box = document.querySelector(".canvas")?.getBoundingClientRect();
      if (!node || !box) return;
      // Focus follows a selection moved by the arrow keys from a focused box, so what a screen reader
      // announces and what the panel shows stay the same node.
      const focused = document.activeElement?.closest(".react-flow__node");
      if (focused && focused.getAttribute("data-id") !== id) document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true });
      const { x, y, zoom } = instance.getViewport();
      const [left, top] = [node.x * zoom + x, node.y * zoom + y];
      const [right, bottom] = [left + node.width * zoom, top + node.height * zoom];
      if (left >= 0 && top >= 0 && right <= box.width && bottom <= box.height) return;
      void instance.setCenter(node.x + node.width / 2, node.y + node.height / 2, { zoom, duration: reducedMotion() ? 0 : 200 });
    });
    return () => cancelAnimationFrame(frame);
  }, [highlights.selected]);
  const onNodeClick: NodeMouseHandler<Node<BoxData>> = useCallback((event, node) => onSelect(node.id, event), [onSelect]);
  const onKeyDown = useMemo(() => onBoxKey(onSelect), [onSelect]);
  // Far out the boxes are a picture, so a click on it lands on the pane: find the box under the pointer.
  const onPaneClick = useCallback(
    (event: React.MouseEvent) => {
      const instance = flow.current;
      const hit = instance && instance.getViewport().zoom < FAR_ZOOM ? boxAt(boxesRef.current, instance.screenToFlowPosition({ x: event.clientX, y: event.clientY })) : undefined;
      onSelect(hit, hit ? event : undefined);
    },
    [onSelect],
  );
  const onInit = useCallback(
    (instance: ReactFlowInstance<Node<BoxData>, Edge>) => {
      flow.current = instance;
      fitLayout(fitKeyRef.current);
    },
    [fitLayout],
  );
  const moving = useMoving(canvas);
  // Until the pane is measured (the first render, before paint) React Flow is handed no boxes either.
  const far = zoomedFar || !pane || (fitsFar && fittedKey !== fitKey);
  return (
    <div ref={canvas} className="canvas" onKeyDown={onKeyDown} data-testid="graph-canvas" data-node-count={nodes.length} data-edge-count={edges.length}>
      <ReactFlow<Node<BoxData>, Edge>
        nodes={far ? NO_NODES : nodes}
        edges={far ? NO_EDGES : edges}
        nodeTypes={NODE_TYPES}
        onInit={onInit}
        onNodeClick={onNodeClick}
        onMoveStart={moving.start}
        onMoveEnd={moving.end}
        onPaneClick={onPaneClick}
        onlyRenderVisibleElements={nodes.length > VISIBLE_ONLY_OVER}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable
        minZoom={MIN_ZOOM}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
        colorMode="system"
        deleteKeyCode={null}
        selectionKeyCode={null}
        multiSelectionKeyCode={null}
      >
        <Grid />
        <FarView canvas={canvas} nodes={nodes} edges={edges} onFar={setFar} />
        <Controls showInteractive={false} showFitView={false}>
          <ControlButton className="react-flow__controls-fitview" onClick={fit} title="Fit view" aria-label="Fit view">
            <svg viewBox="0 0 32 30" aria-hidden="true">
              <path d="M3.692 4.63c0-.53.4-.938.939-.938h5.215V0H4.708C2.13 0 0 2.054 0 4.63v5.216h3.692V4.631zM27.354 0h-5.2v3.692h5.17c.53 0 .984.4.984.939v5.215H32V4.631A4.624 4.624 0 0027.354 0zm.954 24.83c0 .532-.4.94-.939.94h-5.215v3.768h5.215c2.577 0 4.631-2.13 4.631-4.707v-5.139h-3.692v5.139zm-23.677.94c-.531 0-.939-.4-.939-.94v-5.138H0v5.139c0 2.577 2.13 4.707 4.708 4.707h5.138V25.77H4.631z" />
            </svg>
          </ControlButton>
        </Controls>
        {nodes.length > 40 && <NearMiniMap />}
      </ReactFlow>
    </div>
  );
});

/**
 * The canvas has the class `moving` from the start of a pan or zoom by the user until the view has rested
 * for a second (drags in a row stay one layer). Set on the element, not through state: a pan renders nothing
 * in React. Not for the page's own moves (fitting, bringing a selected node into view, the zoom buttons).
 * Boxes keep taking clicks while it is set: a press on a box starts a pan gesture too (boxes are not
 * draggable), so a box that stopped taking pointer events at that moment turned its own click into a click
 * on the pane, which clears the selection.
 */
function useMoving(canvas: React.RefObject<HTMLDivElement | null>): { start(event: MouseEvent | TouchEvent | null): void; end(): void } {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const start = useCallback(
    (event: MouseEvent | TouchEvent | null) => {
      if (!event) return;
      clearTimeout(timer.current);
      canvas.current?.classList.add("moving");
    },
    [canvas],
  );
  const end = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => canvas.current?.classList.remove("moving"), 1000);
  }, [canvas]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return { start, end };
}

/** The user asked the system for less motion: the view jumps instead of gliding. */
const reducedMotion = () => typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

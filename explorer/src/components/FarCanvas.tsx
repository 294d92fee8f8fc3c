import { type Edge, type Node, useStore, ViewportPortal } from "@xyflow/react";
import { memo, useEffect, useMemo, useRef } from "react";
import { colourResolver, drawFarScene, farScene, paletteOf, pictureScale } from "../graph/far-picture";
import type { BoxData } from "../graph/flow-elements";

/** Zoom in quarter octaves: the picture is drawn again when the zoom moves a step, not on every wheel tick. */
const zoomStep = (zoom: number) => Math.round(Math.log2(zoom) * 4);

/**
 * The graph as one picture while zoomed far out (far-picture.ts says why), laid in the flow's own viewport so
 * it pans and zooms with it. The boxes and edges it stands in for are hidden by styles.css (`.canvas.far`).
 */
export const FarCanvas = memo(function FarCanvas({ nodes, edges }: { nodes: Node<BoxData>[]; edges: Edge[] }) {
  const step = useStore((s) => zoomStep(s.transform[2]));
  const scene = useMemo(() => {
    const style = getComputedStyle(document.documentElement);
    return farScene(nodes, edges, paletteOf(style), colourResolver(style));
  }, [nodes, edges]);
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (canvas.current) drawFarScene(canvas.current, scene, pictureScale(scene, 2 ** (step / 4), window.devicePixelRatio || 1));
  }, [scene, step]);
  const { x, y, width, height } = scene.bounds;
  return (
    <ViewportPortal>
      <canvas ref={canvas} className="far-canvas" data-testid="far-canvas" aria-hidden="true" style={{ transform: `translate(${x}px, ${y}px)`, width, height }} />
    </ViewportPortal>
  );
});

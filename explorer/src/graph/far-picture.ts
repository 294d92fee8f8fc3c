/**
 * The graph zoomed far out, as one picture. Below FAR_ZOOM a box's text is drawn under 4 px and nobody reads
 * it, yet a pan over 2,000 boxes and 3,000 edges kept in the page makes Chromium repaint and re-layer all of
 * them whenever the view moves past the painted margin (a trace: ~150 ms frames several times a second). So
 * far out the boxes and edges are hidden and this picture stands in for them: tiles in each kind's colours,
 * highlight borders, edges as curves, drawn once on a canvas at the zoom's resolution. A pan then moves one
 * small bitmap; only a new graph, new highlights or a zoom step draws again.
 */
import type { Edge, Node } from "@xyflow/react";
import type { BoxData } from "./flow-elements";

export interface Box {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Tile extends Box {
  fill: string;
  stroke: string;
  /** The left band of an artifact box (its kind's colour). */
  band?: string;
  /** Border width, in CSS pixels near and in device pixels far out: a highlight stays visible however far out. */
  border: number;
  alpha: number;
}

interface Curve {
  from: { x: number; y: number };
  to: { x: number; y: number };
  stroke: string;
  /** In graph units (as the edge's SVG stroke), drawn at least one device pixel wide. */
  width: number;
  dash?: number[];
  alpha: number;
}

export interface FarScene {
  /** The graph's extent in flow coordinates (the canvas is laid over exactly this). */
  bounds: { x: number; y: number; width: number; height: number };
  tiles: Tile[];
  curves: Curve[];
}

/** Every box in flow coordinates, parents before their columns (so the last box containing a point is on top). */
export function absoluteBoxes(nodes: readonly Node<BoxData>[]): Box[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const at = (node: Node<BoxData>): { x: number; y: number } => {
    const parent = node.parentId ? byId.get(node.parentId) : undefined;
    if (!parent) return node.position;
    const origin = at(parent);
    return { x: origin.x + node.position.x, y: origin.y + node.position.y };
  };
  const boxes = nodes.map((n) => ({ id: n.id, ...at(n), width: n.width ?? 0, height: n.height ?? 0, child: !!n.parentId }));
  return [...boxes.filter((b) => !b.child), ...boxes.filter((b) => b.child)].map(({ child: _child, ...box }) => box);
}

/** The extent of the boxes in flow coordinates, or undefined when there are none. */
export function boxesBounds(boxes: readonly Box[]): { x: number; y: number; width: number; height: number } | undefined {
  if (!boxes.length) return undefined;
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const b of boxes) {
    minX = Math.min(minX, b.x);
    minY = Math.min(minY, b.y);
    maxX = Math.max(maxX, b.x + b.width);
    maxY = Math.max(maxY, b.y + b.height);
  }
  return { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
}

/** The box drawn at a point in flow coordinates (a column before its dataset), if any. */
export function boxAt(boxes: readonly Box[], point: { x: number; y: number }): string | undefined {
  for (let i = boxes.length - 1; i >= 0; i--) {
    const b = boxes[i];
    if (point.x >= b.x && point.x <= b.x + b.width && point.y >= b.y && point.y <= b.y + b.height) return b.id;
  }
  return undefined;
}

/**
 * The tiles' colours, as the stylesheet paints the boxes they stand for (a canvas takes no CSS variables:
 * FarCanvas reads them from the page, so a dark scheme draws dark tiles). The light scheme's by default.
 */
export interface FarPalette {
  surface: string;
  surface2: string;
  line: string;
  line2: string;
  runBg: string;
  runLine: string;
  runFailedBg: string;
  runFailedLine: string;
  artifactBand: string;
  datasetBand: string;
  focus: string;
  lit: string;
  fresh: string;
}

export const LIGHT_PALETTE: FarPalette = {
  surface: "#ffffff",
  surface2: "#f8fafc",
  line: "#e2e8f0",
  line2: "#cbd5e1",
  runBg: "#fffbeb",
  runLine: "#fcd34d",
  runFailedBg: "#fef2f2",
  runFailedLine: "#fca5a5",
  artifactBand: "#6366f1",
  datasetBand: "#0ea5e9",
  focus: "#2563eb",
  lit: "#e11d48",
  fresh: "#16a34a",
};

/** The palette the stylesheet's variables give on this element (`--surface` → surface, …), falling back to the light one. */
export function paletteOf(style: { getPropertyValue(name: string): string }): FarPalette {
  const palette = { ...LIGHT_PALETTE };
  for (const key of Object.keys(palette) as (keyof FarPalette)[]) {
    const value = style.getPropertyValue(`--${key.replace(/[A-Z0-9]/g, (c) => `-${c.toLowerCase()}`)}`).trim();
    if (value) palette[key] = value;
  }
  return palette;
}

function tileOf(box: Box, node: Node<BoxData>, palette: FarPalette): Tile {
  const { data } = node;
  let fill = palette.surface;
  let stroke = palette.line2;
  let band: string | undefined;
  if (node.type === "run") {
    const failed = /^(FAILED|ABORTED)$/.test(data.node.execution?.status ?? "");
    fill = failed ? palette.runFailedBg : palette.runBg;
    stroke = failed ? palette.runFailedLine : palette.runLine;
  } else if (node.type === "column") {
    fill = palette.surface2;
    stroke = palette.line;
  } else {
    band = data.node.artifact?.dataset ? palette.datasetBand : palette.artifactBand;
  }
  let border = 1;
  if (data.fresh) [stroke, border] = [palette.fresh, 2];
  if (node.selected) [stroke, border] = [palette.focus, 3];
  if (data.lit) [stroke, border] = [palette.lit, 3];
  return { ...box, fill, stroke, band, border, alpha: data.dim ? 0.3 : 1 };
}

/**
 * A colour a canvas can draw: an edge's `var(--edge)` as the page's stylesheet gives it (`style` is the
 * page's computed style; without one, the light scheme's value).
 */
export function colourResolver(style?: { getPropertyValue(name: string): string }): (colour: string) => string {
  return (colour) => {
    const name = /^var\((--[\w-]+)\)$/.exec(colour)?.[1];
    if (!name) return colour;
    return style?.getPropertyValue(name).trim() || LIGHT_EDGE_COLOURS[name] || "#7c8aa0";
  };
}

/** The light scheme's value of every variable an edge is coloured with (styles.css), co-input groups' included. */
const LIGHT_EDGE_COLOURS: Record<string, string> = {
  "--edge": "#7c8aa0",
  "--edge-direct": "#2563eb",
  "--edge-indirect": "#b45309",
  "--edge-derived": "#8b5cf6",
  "--lit": "#e11d48",
  "--fresh": "#16a34a",
  ...Object.fromEntries(["#7c3aed", "#0891b2", "#c2410c", "#15803d", "#be185d", "#4338ca"].map((colour, i) => [`--group-${i + 1}`, colour])),
};

export function farScene(nodes: readonly Node<BoxData>[], edges: readonly Edge[], palette: FarPalette = LIGHT_PALETTE, colour = colourResolver()): FarScene {
  const boxes = absoluteBoxes(nodes);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const boxById = new Map(boxes.map((b) => [b.id, b]));
  const tiles = boxes.map((b) => tileOf(b, byId.get(b.id)!, palette));
  const curves: Curve[] = [];
  for (const edge of edges) {
    const source = boxById.get(edge.source);
    const target = boxById.get(edge.target);
    if (!source || !target) continue;
    const style = edge.style ?? {};
    const dash = typeof style.strokeDasharray === "string" ? style.strokeDasharray.split(/[\s,]+/).map(Number).filter((n) => n > 0) : undefined;
    curves.push({
      // Handles: an edge leaves its source's right side and enters its target's left side.
      from: { x: source.x + source.width, y: source.y + source.height / 2 },
      to: { x: target.x, y: target.y + target.height / 2 },
      stroke: colour(String(style.stroke ?? "var(--edge)")),
      width: Number(style.strokeWidth ?? 1.5),
      dash: dash?.length ? dash : undefined,
      alpha: Number(style.opacity ?? 1),
    });
  }
  // A margin for borders and curves that leave the boxes' extent (a backward edge bends outwards).
  const margin = 40;
  const extent = boxesBounds(boxes);
  const bounds = extent ? { x: extent.x - margin, y: extent.y - margin, width: extent.width + 2 * margin, height: extent.height + 2 * margin } : { x: 0, y: 0, width: 1, height: 1 };
  return { bounds, tiles, curves };
}

/** Pixels per graph unit for a canvas over the scene at this zoom: the screen's, within a bitmap the browser keeps cheaply. */
export function pictureScale(scene: FarScene, zoom: number, devicePixelRatio: number): number {
  const { width, height } = scene.bounds;
  const MAX_SIDE = 8192;
  const MAX_PIXELS = 16_000_000;
  return Math.min(zoom * devicePixelRatio, MAX_SIDE / width, MAX_SIDE / height, Math.sqrt(MAX_PIXELS / (width * height)));
}

/** Draws the scene on a canvas whose bitmap is `scale` pixels per graph unit (sizing the bitmap itself). */
export function drawFarScene(canvas: HTMLCanvasElement, scene: FarScene, scale: number): void {
  const { bounds } = scene;
  canvas.width = Math.max(1, Math.ceil(bounds.width * scale));
  canvas.height = Math.max(1, Math.ceil(bounds.height * scale));
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.setTransform(scale, 0, 0, scale, -bounds.x * scale, -bounds.y * scale);
  const pixel = 1 / scale;
  ctx.lineCap = "round";
  for (const c of scene.curves) {
    const bend = Math.max(Math.abs(c.to.x - c.from.x) / 2, 25);
    ctx.globalAlpha = c.alpha * 0.8;
    ctx.strokeStyle = c.stroke;
    ctx.lineWidth = Math.max(c.width, pixel);
    ctx.setLineDash(c.dash ? c.dash.map((d) => Math.max(d, 3 * pixel)) : []);
    ctx.beginPath();
    ctx.moveTo(c.from.x, c.from.y);
    ctx.bezierCurveTo(c.from.x + bend, c.from.y, c.to.x - bend, c.to.y, c.to.x, c.to.y);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  for (const t of scene.tiles) {
    ctx.globalAlpha = t.alpha;
    ctx.fillStyle = t.fill;
    ctx.fillRect(t.x, t.y, t.width, t.height);
    if (t.band) {
      ctx.fillStyle = t.band;
      ctx.fillRect(t.x, t.y, Math.max(4, 2 * pixel), t.height);
    }
    ctx.strokeStyle = t.stroke;
    // As wide as the box's CSS border, and never under the border's width in device pixels.
    ctx.lineWidth = Math.max(t.border, t.border * pixel);
    ctx.strokeRect(t.x, t.y, t.width, t.height);
  }
  ctx.globalAlpha = 1;
}

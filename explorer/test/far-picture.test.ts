import type { Edge, Node } from "@xyflow/react";
import { absoluteBoxes, boxAt, boxesBounds, colourResolver, farScene, LIGHT_PALETTE, paletteOf, pictureScale } from "../src/graph/far-picture";
import type { BoxData } from "../src/graph/flow-elements";

/** The far picture's geometry: where each box is drawn, what a click hits, how edges leave and enter boxes. */
const data = (over: Partial<BoxData> = {}): BoxData =>
  ({ node: { id: "x", kind: "ARTIFACT", artifact: null, execution: null }, expandedUp: false, expandedDown: false, columnCount: 0, isRoot: false, dim: false, lit: false, fresh: false, ...over }) as unknown as BoxData;
const box = (id: string, x: number, y: number, over: Partial<Node<BoxData>> = {}): Node<BoxData> => ({ id, type: "artifact", position: { x, y }, width: 230, height: 64, data: data(), ...over });

describe("the far picture", () => {
  const dataset = box("ds", 100, 200, { height: 200 });
  const column = box("col", 8, 64, { type: "column", parentId: "ds", width: 214, height: 22 });
  const run = box("run", 400, 220, { type: "run", width: 150, height: 40 });

  test("a column is drawn at its dataset's position plus its own, after (above) every top-level box", () => {
    const boxes = absoluteBoxes([column, dataset, run]);
    expect(boxes.map((b) => b.id)).toEqual(["ds", "run", "col"]);
    expect(boxes.find((b) => b.id === "col")).toEqual({ id: "col", x: 108, y: 264, width: 214, height: 22 });
  });

  test("a click hits the column over its dataset, the dataset around it, and nothing between boxes", () => {
    const boxes = absoluteBoxes([dataset, column, run]);
    expect(boxAt(boxes, { x: 120, y: 270 })).toBe("col");
    expect(boxAt(boxes, { x: 120, y: 380 })).toBe("ds");
    expect(boxAt(boxes, { x: 360, y: 240 })).toBeUndefined();
    expect(boxAt(boxes, { x: 450, y: 240 })).toBe("run");
  });

  test("bounds cover every box; none for no boxes", () => {
    expect(boxesBounds(absoluteBoxes([dataset, column, run]))).toEqual({ x: 100, y: 200, width: 450, height: 200 });
    expect(boxesBounds([])).toBeUndefined();
  });

  test("an edge leaves its source's right side and enters its target's left side, with its stroke and dashes", () => {
    const edges: Edge[] = [{ id: "e", source: "ds", target: "run", style: { stroke: "#e11d48", strokeWidth: 3, strokeDasharray: "6 4", opacity: 0.18 } }];
    const scene = farScene([dataset, run], edges);
    expect(scene.curves).toEqual([{ from: { x: 330, y: 300 }, to: { x: 400, y: 240 }, stroke: "#e11d48", width: 3, dash: [6, 4], alpha: 0.18 }]);
    // An edge to a box not drawn is not drawn either.
    expect(farScene([dataset], edges).curves).toEqual([]);
  });

  test("tiles keep each kind's colours and the highlights: selected, lit, dimmed", () => {
    const scene = farScene(
      [
        box("a", 0, 0, { selected: true }),
        box("b", 0, 100, { data: data({ lit: true }) }),
        box("c", 0, 200, { data: data({ dim: true }) }),
        box("r", 300, 0, { type: "run", data: data({ node: { id: "r", kind: "RUN", execution: { status: "FAILED" } } as unknown as BoxData["node"] }) }),
      ],
      [],
    );
    const [a, b, c, r] = scene.tiles;
    expect([a.stroke, a.border]).toEqual(["#2563eb", 3]);
    expect([b.stroke, b.border]).toEqual(["#e11d48", 3]);
    expect(c.alpha).toBe(0.3);
    expect(a.band).toBe("#6366f1");
    expect([r.fill, r.stroke, r.band]).toEqual(["#fef2f2", "#fca5a5", undefined]);
  });

  test("tiles take the stylesheet's colours (a dark scheme's), read from its variables, the light ones where one is missing", () => {
    const variables: Record<string, string> = { "--surface": " #1a2332", "--run-bg": "#2a2212", "--run-line": "#a16207", "--artifact-band": "#818cf8", "--focus": "#60a5fa" };
    const palette = paletteOf({ getPropertyValue: (name) => variables[name] ?? "" });
    expect(palette).toEqual({ ...LIGHT_PALETTE, surface: "#1a2332", runBg: "#2a2212", runLine: "#a16207", artifactBand: "#818cf8", focus: "#60a5fa" });
    const [a, r] = farScene([box("a", 0, 0, { selected: true }), box("r", 300, 0, { type: "run" })], [], palette).tiles;
    expect([a.fill, a.band, a.stroke]).toEqual(["#1a2332", "#818cf8", "#60a5fa"]);
    expect([r.fill, r.stroke]).toEqual(["#2a2212", "#a16207"]);
  });

  test("an edge's colour, a stylesheet variable, is drawn as the page's stylesheet gives it (the light one without a page)", () => {
    const edges: Edge[] = [{ id: "e", source: "ds", target: "run", style: { stroke: "var(--edge-direct)" } }];
    expect(farScene([dataset, run], edges).curves[0].stroke).toBe("#2563eb");
    const dark = colourResolver({ getPropertyValue: (name) => (name === "--edge-direct" ? " #60a5fa" : "") });
    expect(farScene([dataset, run], edges, LIGHT_PALETTE, dark).curves[0].stroke).toBe("#60a5fa");
    expect(dark("#e11d48")).toBe("#e11d48");
  });

  test("the bitmap follows the zoom, and stays within 8,192 pixels a side and 16 million in all", () => {
    const scene = farScene([box("a", 0, 0), box("b", 9000, 25000)], []);
    expect(pictureScale(scene, 0.05, 1)).toBeCloseTo(0.05);
    expect(pictureScale(scene, 0.05, 2)).toBeCloseTo(0.1);
    const big = pictureScale(scene, 0.34, 2);
    expect(scene.bounds.height * big).toBeLessThanOrEqual(8192);
    expect(scene.bounds.width * scene.bounds.height * big * big).toBeLessThanOrEqual(16_000_000 + 1);
  });
});

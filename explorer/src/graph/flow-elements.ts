/**
 * The model as React Flow nodes and edges: artifact, run and column boxes, edges styled by kind (column
 * DIRECT solid, INDIRECT dashed, each labelled with its subtype; backward edges dashed; a co-input group in
 * one colour), and the highlights (a path, a column's lineage, what just arrived live).
 */
import type { Edge, Node } from "@xyflow/react";
import { MarkerType, type NodeHandle, Position } from "@xyflow/react";
import type { GraphEdgeFieldsFragment } from "../api/generated";
import { type GraphModel, type GraphNode, isBox } from "./graph-model";
import { COLUMN_HEADER, COLUMN_IN_BOX, COLUMN_ROW, HANDLE, handlesOf, sizeOf } from "./node-size";

export interface Highlights {
  selected?: string;
  /** Nodes and edges of the highlighted paths (or a selected column's lineage). */
  litNodes?: ReadonlySet<string>;
  litEdges?: ReadonlySet<string>;
  /** Arrived live a moment ago. */
  fresh?: ReadonlySet<string>;
}

export interface BoxData extends Record<string, unknown> {
  node: GraphNode;
  expandedUp: boolean;
  expandedDown: boolean;
  columnCount: number;
  isRoot: boolean;
  dim: boolean;
  lit: boolean;
  fresh: boolean;
}

/** Columns of each dataset node, in field order as the server sent them. */
export function columnsByParent(model: GraphModel): Map<string, GraphNode[]> {
  const byParent = new Map<string, GraphNode[]>();
  for (const node of model.nodes.values()) {
    if (isBox(node, model.nodes)) continue;
    const parent = node.artifact!.id;
    (byParent.get(parent) ?? byParent.set(parent, []).get(parent)!).push(node);
  }
  return byParent;
}

/**
 * React Flow re-measures and re-renders a node or edge whose object changed: one that did not change keeps
 * the object it had (an expansion of 50 nodes into 2,000 then renders 50 boxes, not 2,050).
 */
export class FlowCache<T> {
  private byId = new Map<string, { key: unknown[]; node: T }>();

  get(id: string, key: unknown[], make: () => T): T {
    const cached = this.byId.get(id);
    if (cached && cached.key.length === key.length && cached.key.every((k, i) => k === key[i])) return cached.node;
    const node = make();
    this.byId.set(id, { key, node });
    return node;
  }

  /** Forgets the boxes no longer drawn. */
  keep(ids: ReadonlySet<string>): void {
    for (const id of this.byId.keys()) if (!ids.has(id)) this.byId.delete(id);
  }
}

export function flowNodes(model: GraphModel, highlights: Highlights, cache = new FlowCache<Node<BoxData>>()): Node<BoxData>[] {
  const columns = columnsByParent(model);
  const roots = new Set(model.roots);
  const out: Node<BoxData>[] = [];
  const anyLit = !!highlights.litNodes?.size;
  const expanded = expandedSides(model);
  for (const node of model.nodes.values()) {
    if (!isBox(node, model.nodes)) continue;
    const count = columns.get(node.id)?.length ?? 0;
    const lit = !!highlights.litNodes?.has(node.id);
    const selected = highlights.selected === node.id;
    const expandedUp = expanded.has(`${node.id}|UPSTREAM`);
    const expandedDown = expanded.has(`${node.id}|DOWNSTREAM`);
    const isRoot = roots.has(node.id);
    const dim = anyLit && !lit && !(columns.get(node.id) ?? []).some((c) => highlights.litNodes!.has(c.id));
    const fresh = !!highlights.fresh?.has(node.id);
    out.push(
      cache.get(node.id, [node, count, lit, selected, expandedUp, expandedDown, isRoot, dim, fresh], () => {
        const size = sizeOf(node, count);
        return {
          id: node.id,
          type: node.kind === "RUN" ? "run" : node.kind === "COLUMN" ? "column" : "artifact",
          position: node.position ?? { x: 0, y: 0 },
          width: size.width,
          height: size.height,
          handles: flowHandles(node.kind, size),
          selected,
          data: { node, expandedUp, expandedDown, columnCount: count, isRoot, lit, dim, fresh },
        };
      }),
    );
  }
  for (const [parentId, list] of columns) {
    list.forEach((column, i) => {
      const lit = !!highlights.litNodes?.has(column.id);
      const selected = highlights.selected === column.id;
      const dim = anyLit && !lit;
      out.push(
        cache.get(column.id, [column, parentId, i, lit, selected, dim], () => ({
          id: column.id,
          type: "column",
          parentId,
          extent: "parent",
          draggable: false,
          position: { x: 8, y: COLUMN_HEADER + i * COLUMN_ROW },
          width: COLUMN_IN_BOX.width,
          height: COLUMN_IN_BOX.height,
          handles: flowHandles("COLUMN", COLUMN_IN_BOX),
          selected,
          data: { node: column, expandedUp: false, expandedDown: false, columnCount: 0, isRoot: false, lit, dim, fresh: false },
        })),
      );
    });
  }
  cache.keep(new Set(out.map((n) => n.id)));
  return out;
}

/**
 * A box's handles as React Flow takes them (node-size.ts says where they sit). With them and the box's size
 * React Flow draws a new box's edges in the same render as the box, and, mounting only the boxes in view
 * (GraphCanvas.tsx), it no longer mounts every new box to measure it first: an expansion of +98 into a
 * zoomed-in view mounts the ~20 that land in view, not all 98.
 */
function flowHandles(kind: GraphNode["kind"], size: { width: number; height: number }): NodeHandle[] {
  const { target, source } = handlesOf(kind, size);
  return [
    { type: "target", position: Position.Left, ...target, width: HANDLE, height: HANDLE },
    { type: "source", position: Position.Right, ...source, width: HANDLE, height: HANDLE },
  ];
}

/** `${nodeId}|${side}` of every expansion shown, looked up once instead of once per node. */
function expandedSides(model: GraphModel): Set<string> {
  return new Set(model.expansions.map((e) => `${e.nodeId}|${e.side}`));
}

/** Edge colours are the stylesheet's variables, so each scheme has its own (styles.css says their contrast). */
const GROUP_COLOURS = [1, 2, 3, 4, 5, 6].map((i) => `var(--group-${i})`);
function groupColour(groupId: string): string {
  let hash = 0;
  for (let i = 0; i < groupId.length; i++) hash = (hash * 31 + groupId.charCodeAt(i)) | 0;
  return GROUP_COLOURS[Math.abs(hash) % GROUP_COLOURS.length];
}

export function flowEdges(model: GraphModel, highlights: Highlights, cache = new FlowCache<Edge>()): Edge[] {
  const anyLit = !!highlights.litEdges?.size || !!highlights.litNodes?.size;
  const out: Edge[] = [];
  for (const edge of model.edges.values()) {
    if (!model.nodes.has(edge.source) || !model.nodes.has(edge.target)) continue;
    // A derivation whose run is drawn is already said by the run's used and generated edges.
    if (edge.kind === "DERIVED" && edge.runId && model.nodes.has(edge.runId)) continue;
    const lit = !!highlights.litEdges?.has(edge.id) || (!!highlights.litNodes?.has(edge.source) && !!highlights.litNodes?.has(edge.target) && isColumnEdge(edge));
    const dim = anyLit && !lit;
    const fresh = !!highlights.fresh?.has(edge.source) || !!highlights.fresh?.has(edge.target);
    out.push(cache.get(edge.id, [edge, lit, dim, fresh], () => styled(edge, lit, dim, fresh)));
  }
  cache.keep(new Set(out.map((e) => e.id)));
  return out;
}

const isColumnEdge = (edge: GraphEdgeFieldsFragment) => edge.kind === "COLUMN_DIRECT" || edge.kind === "COLUMN_INDIRECT";

function styled(edge: GraphEdgeFieldsFragment, lit: boolean, dim: boolean, fresh: boolean): Edge {
  const column = isColumnEdge(edge);
  let stroke = "var(--edge)";
  let dash: string | undefined = edge.backward ? "6 4" : undefined;
  let width = 1.5;
  let label: string | undefined;
  if (edge.kind === "COLUMN_DIRECT") {
    stroke = "var(--edge-direct)";
    label = edge.subtype ?? "DIRECT";
  } else if (edge.kind === "COLUMN_INDIRECT") {
    stroke = "var(--edge-indirect)";
    dash = "5 4";
    label = edge.subtype ?? "INDIRECT";
  } else if (edge.kind === "DERIVED") {
    stroke = "var(--edge-derived)";
    dash = edge.backward ? "6 4" : "2 3";
  } else if (edge.groupId && edge.kind === "USED") {
    // A co-input group: its inputs drawn in one colour, so the joint derivation reads as one.
    stroke = groupColour(edge.groupId);
    width = 2.25;
  }
  if (edge.masking) label = `${label ?? ""} · masked`;
  if (lit) {
    stroke = "var(--lit)";
    width = 3;
  }
  if (fresh) stroke = "var(--fresh)";
  return {
    id: edge.id,
    source: edge.source,
    target: edge.target,
    type: column ? "smoothstep" : "default",
    className: `edge-${edge.kind.toLowerCase()}${lit ? " lit" : ""}${dim ? " dim" : ""}${edge.backward ? " backward" : ""}`,
    label,
    // A dimmed edge's line fades; its label stays text (4.5:1), in the muted colour.
    labelStyle: column ? { fontSize: 10, fill: dim ? "var(--muted)" : stroke, fontWeight: 600 } : undefined,
    labelBgStyle: column ? { fill: "var(--surface)", fillOpacity: 0.9 } : undefined,
    labelBgPadding: [3, 1],
    style: { stroke, strokeWidth: width, strokeDasharray: dash, opacity: dim ? 0.18 : 1 },
    markerEnd: { type: MarkerType.ArrowClosed, color: stroke, width: 14, height: 14 },
    data: { kind: edge.kind, subtype: edge.subtype, groupId: edge.groupId },
  };
}

export { COLUMN_ROW };

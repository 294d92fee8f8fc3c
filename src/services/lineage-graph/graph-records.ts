import type { ProvenanceEdgeKind } from "../lineage";
import type { GraphNodeKind } from "./graph-node-ids";

/**
 * What the graph computations answer: plain data (strings, numbers, booleans, arrays, objects), so a
 * worker thread can hand it back as it is. The GraphQL layer resolves `artifact`, `execution` and
 * `column` from the ids through its loaders (redaction applies there, as everywhere).
 */

export const GRAPH_DIRECTIONS = ["UPSTREAM", "DOWNSTREAM", "BOTH"] as const;
export type GraphDirection = (typeof GRAPH_DIRECTIONS)[number];

export const GRAPH_EDGE_KINDS = ["USED", "GENERATED", "DERIVED", "COLUMN_DIRECT", "COLUMN_INDIRECT"] as const;
export type LineageGraphEdgeKind = (typeof GRAPH_EDGE_KINDS)[number];

/** A node's box and, for a dataset drawn with its columns, one port per column (layout: true). */
export interface NodeBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ColumnPort {
  columnId: string;
  field: string;
  x: number;
  y: number;
}

export interface LineageGraphNodeRecord {
  id: string;
  kind: GraphNodeKind;
  label: string;
  /** Signed hops from the nearest root (negative upstream); see lineage-graph.ts for runs and co-inputs. */
  depth: number;
  /** ARTIFACT: itself; COLUMN: its dataset version. */
  artifactId: string | null;
  /** RUN. */
  runId: string | null;
  /** COLUMN. */
  field: string | null;
  /** ARTIFACT: its type; COLUMN: its dataset version's. */
  artifactType: string | null;
  /** ARTIFACT / COLUMN of a dataset version. */
  dataset: { namespace: string; name: string; version: string | null } | null;
  /** RUN: its operation (job) and state. */
  run: { operation: string | null; operationVersion: string | null; status: string | null; pipeline: string | null; step: number | null } | null;
  upstreamCount: number;
  downstreamCount: number;
  hiddenUpstream: number;
  hiddenDownstream: number;
  box: NodeBox | null;
  ports: ColumnPort[] | null;
}

export interface LineageGraphEdgeRecord {
  id: string;
  kind: LineageGraphEdgeKind;
  source: string;
  target: string;
  runId: string | null;
  role: string | null;
  groupId: string | null;
  derivationKind: ProvenanceEdgeKind | null;
  subtype: string | null;
  masking: boolean | null;
  backward: boolean;
  points: { x: number; y: number }[] | null;
}

export interface LineageGraphRecord {
  roots: string[];
  nodes: LineageGraphNodeRecord[];
  edges: LineageGraphEdgeRecord[];
  truncated: boolean;
  width: number | null;
  height: number | null;
}

/** Stable edge ids: a derivation or column edge by its row id, a link by its ends and role. */
export const graphEdgeId = {
  derived: (edgeId: number) => `derived:${edgeId}`,
  column: (edgeId: number) => `column:${edgeId}`,
  used: (artifactId: string, runId: string, role: string | null) => `used:${artifactId}:${runId}:${encodeURIComponent(role ?? "")}`,
  generated: (runId: string, artifactId: string, role: string | null) => `generated:${runId}:${artifactId}:${encodeURIComponent(role ?? "")}`,
};

import { NotFoundError } from "../errors";
import { COLUMN_ROW_COLUMN_NAMES, columnWalkStatement, datasetColumnsStatement } from "./column-graph-sql";
import { GRAPH_WALK_BUDGET, MAX_GRAPH_COLUMNS } from "./graph-limits";
import { columnNodeId, type GraphNodeRef } from "./graph-node-ids";
import { graphEdgeId, type LineageGraphEdgeRecord, type LineageGraphNodeRecord } from "./graph-records";
import type { LineageFilters } from "./lineage-filters";
import { asBoolean, asNumber, asText, type GraphReadClient } from "./read-client";
import { columnIndex } from "./union-rows";
import { appendTo } from "../grouping";

/** Column nodes and edges added to a graph, and whether some were left out. */
export interface ColumnGraphPart {
  nodes: LineageGraphNodeRecord[];
  edges: LineageGraphEdgeRecord[];
  truncated: boolean;
}

interface ColumnEdgeFact {
  id: number;
  sourceId: string;
  sourceField: string;
  targetId: string;
  targetField: string | null;
  runId: string;
  type: string;
  subtype: string | null;
  masking: boolean;
}

function readRows(result: { columnNames: string[]; rows: unknown[][] }) {
  const at = columnIndex(result.columnNames, COLUMN_ROW_COLUMN_NAMES);
  return result.rows.map((row) => ({
    row: row[at.row] as string,
    artifact: asText(row[at.artifact]),
    field: asText(row[at.field]),
    otherArtifact: asText(row[at.otherArtifact]),
    otherField: asText(row[at.otherField]),
    runId: asText(row[at.runId]),
    type: asText(row[at.type]),
    subtype: asText(row[at.subtype]),
    label: asText(row[at.label]),
    namespace: asText(row[at.namespace]),
    name: asText(row[at.name]),
    version: asText(row[at.version]),
    n: row[at.n] === null || row[at.n] === undefined ? null : asNumber(row[at.n]),
    up: asNumber(row[at.up]),
    down: asNumber(row[at.down]),
    masking: asBoolean(row[at.masking]),
  }));
}

const toEdge = (r: ReturnType<typeof readRows>[number]): ColumnEdgeFact => ({
  id: r.n!,
  sourceId: r.artifact!,
  sourceField: r.field!,
  targetId: r.otherArtifact!,
  targetField: r.otherField,
  runId: r.runId!,
  type: r.type!,
  subtype: r.subtype,
  masking: r.masking,
});

/** The drawn edge of a column edge into `target` (a column node, or a whole version's artifact node). */
function columnGraphEdge(edge: ColumnEdgeFact, target: string, datasetWideInto: string | null): LineageGraphEdgeRecord {
  return {
    id: datasetWideInto === null ? graphEdgeId.column(edge.id) : `${graphEdgeId.column(edge.id)}:${encodeURIComponent(datasetWideInto)}`,
    kind: edge.type === "INDIRECT" ? "COLUMN_INDIRECT" : "COLUMN_DIRECT",
    source: columnNodeId(edge.sourceId, edge.sourceField),
    target,
    runId: edge.runId,
    role: null,
    groupId: null,
    derivationKind: null,
    subtype: edge.subtype,
    masking: edge.masking,
    backward: false,
    points: null,
  };
}

/**
 * Hidden counts of column nodes: an upstream neighbour is shown when a drawn edge joins it to the
 * column (a dataset-wide edge drawn into the version counts for each of its columns), a downstream
 * one when a drawn edge leads from the column to it.
 */
function countColumnHidden(nodes: Map<string, LineageGraphNodeRecord>, edges: readonly ColumnEdgeFact[]): void {
  const up = new Map<string, Set<string>>();
  const down = new Map<string, Set<string>>();
  const add = (into: Map<string, Set<string>>, node: string, neighbour: string) => {
    if (!nodes.has(node)) return;
    const set = into.get(node) ?? new Set<string>();
    into.set(node, set);
    set.add(neighbour);
  };
  const columnsOf = new Map<string, string[]>();
  for (const node of nodes.values()) if (node.kind === "COLUMN") appendTo(columnsOf, node.artifactId!, node.id);
  for (const edge of edges) {
    const source = columnNodeId(edge.sourceId, edge.sourceField);
    const target = edge.targetField === null ? edge.targetId : columnNodeId(edge.targetId, edge.targetField);
    const targetShown = nodes.has(target) || (edge.targetField === null && (columnsOf.get(edge.targetId)?.length ?? 0) > 0);
    if (!nodes.has(source) || !targetShown) continue;
    add(down, source, target);
    if (edge.targetField === null) for (const column of columnsOf.get(edge.targetId) ?? []) add(up, column, source);
    else add(up, target, source);
  }
  for (const node of nodes.values()) {
    if (node.kind !== "COLUMN") continue;
    node.hiddenUpstream = Math.max(0, node.upstreamCount - (up.get(node.id)?.size ?? 0));
    node.hiddenDownstream = Math.max(0, node.downstreamCount - (down.get(node.id)?.size ?? 0));
  }
}

/**
 * `columns: true` on an artifact graph: the columns of its dataset versions (nearest the roots first,
 * at most MAX_GRAPH_COLUMNS), each at its version's depth, and the column edges among them; a
 * dataset-wide edge is drawn into the version's node. One statement.
 */
export async function columnsOfGraph(reader: GraphReadClient, o: { nodes: readonly LineageGraphNodeRecord[]; filters: LineageFilters }): Promise<ColumnGraphPart> {
  const datasets = o.nodes.filter((n) => n.kind === "ARTIFACT" && n.dataset !== null).sort((a, b) => Math.abs(a.depth) - Math.abs(b.depth) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (datasets.length === 0) return { nodes: [], edges: [], truncated: false };
  const { sql, params } = datasetColumnsStatement(reader.provider, { artifacts: datasets.map((d) => d.id), limit: MAX_GRAPH_COLUMNS, filters: o.filters });
  const rows = readRows(await reader.readRows(sql, params));
  const byId = new Map(datasets.map((d) => [d.id, d]));
  const columns = rows.filter((r) => r.row === "col");
  const truncated = columns.length > MAX_GRAPH_COLUMNS;
  const nodes = new Map<string, LineageGraphNodeRecord>();
  for (const c of columns.slice(0, MAX_GRAPH_COLUMNS)) {
    const dataset = byId.get(c.artifact!)!;
    nodes.set(columnNodeId(c.artifact!, c.field!), columnNode(c.artifact!, c.field!, dataset.depth, dataset.artifactType, dataset.dataset, c.up, c.down));
  }
  const edges = rows.filter((r) => r.row === "edge").map(toEdge).sort((a, b) => a.id - b.id);
  const drawn: LineageGraphEdgeRecord[] = [];
  for (const edge of edges) {
    if (!nodes.has(columnNodeId(edge.sourceId, edge.sourceField))) continue;
    if (edge.targetField === null) drawn.push(columnGraphEdge(edge, edge.targetId, null));
    else if (nodes.has(columnNodeId(edge.targetId, edge.targetField))) drawn.push(columnGraphEdge(edge, columnNodeId(edge.targetId, edge.targetField), null));
  }
  // Whole-version targets are the dataset nodes already in the graph: count them as shown.
  const all = new Map([...nodes, ...datasets.map((d) => [d.id, d] as const)]);
  countColumnHidden(all, edges);
  return { nodes: [...nodes.values()], edges: drawn, truncated };
}

/**
 * A graph from root columns: the columns within `depth` column hops (upstream along the edges into a
 * column and the dataset-wide edges into its version; downstream along the edges out of it, a
 * dataset-wide one ending at the whole version, drawn as that version's artifact node), nearest
 * first, at most `first` besides the roots. One statement.
 */
export async function columnRootsGraph(
  reader: GraphReadClient,
  o: { roots: readonly Extract<GraphNodeRef, { kind: "COLUMN" }>[]; up: boolean; down: boolean; depth: number; first: number; filters: LineageFilters },
): Promise<ColumnGraphPart> {
  const { sql, params } = columnWalkStatement(reader.provider, {
    roots: o.roots.map((r) => [r.artifactId, r.field] as const),
    up: o.up,
    down: o.down,
    depth: o.depth,
    keep: o.first + 1,
    budget: GRAPH_WALK_BUDGET,
    filters: o.filters,
  });
  const rows = readRows(await reader.readRows(sql, params));
  const found = new Set(rows.filter((r) => r.row === "root").map((r) => columnNodeId(r.artifact!, r.field!)));
  const missing = o.roots.find((r) => !found.has(r.id));
  if (missing) throw new NotFoundError("column", missing.id, "roots");
  let truncated = rows.some((r) => r.row === "meta" && (r.n! > o.first || r.up >= GRAPH_WALK_BUDGET));
  const members = new Map(rows.filter((r) => r.row === "member").map((r) => [`${r.artifact}\u0000${r.field ?? ""}`, r]));
  const nodes = new Map<string, LineageGraphNodeRecord>();
  const add = (artifact: string, field: string | null, depth: number) => {
    const m = members.get(`${artifact}\u0000${field ?? ""}`);
    const dataset = m?.namespace && m.name ? { namespace: m.namespace, name: m.name, version: m.version } : null;
    if (field === null) {
      nodes.set(artifact, {
        ...columnNode(artifact, "", depth, null, dataset, m?.up ?? 0, m?.down ?? 0),
        id: artifact,
        kind: "ARTIFACT",
        field: null,
        label: dataset ? `${dataset.namespace}/${dataset.name}` : (m?.label ?? artifact),
        hiddenUpstream: m?.up ?? 0,
        hiddenDownstream: m?.down ?? 0,
      });
    } else nodes.set(columnNodeId(artifact, field), columnNode(artifact, field, depth, null, dataset, m?.up ?? 0, m?.down ?? 0));
  };
  for (const root of o.roots) if (!nodes.has(root.id)) add(root.artifactId, root.field, 0);
  const walked = rows
    .filter((r) => r.row === "up" || r.row === "down")
    .map((r) => ({ artifact: r.artifact!, field: r.field, depth: (r.row === "up" ? -1 : 1) * r.n! }))
    .sort((a, b) => Math.abs(a.depth) - Math.abs(b.depth) || a.depth - b.depth || (a.artifact < b.artifact ? -1 : a.artifact > b.artifact ? 1 : 0) || ((a.field ?? "") < (b.field ?? "") ? -1 : 1));
  let budget = o.first;
  for (const w of walked) {
    const id = w.field === null ? w.artifact : columnNodeId(w.artifact, w.field);
    if (nodes.has(id)) continue;
    if (budget === 0) {
      truncated = true;
      break;
    }
    budget -= 1;
    add(w.artifact, w.field, w.depth);
  }
  const edges = rows.filter((r) => r.row === "edge").map(toEdge).sort((a, b) => a.id - b.id);
  const drawn: LineageGraphEdgeRecord[] = [];
  for (const edge of edges) {
    if (!nodes.has(columnNodeId(edge.sourceId, edge.sourceField))) continue;
    if (edge.targetField !== null) {
      if (nodes.has(columnNodeId(edge.targetId, edge.targetField))) drawn.push(columnGraphEdge(edge, columnNodeId(edge.targetId, edge.targetField), null));
    } else if (nodes.has(edge.targetId)) {
      drawn.push(columnGraphEdge(edge, edge.targetId, null));
    } else {
      // Dataset-wide into a version whose columns are shown: it shapes each of them.
      for (const node of nodes.values()) if (node.kind === "COLUMN" && node.artifactId === edge.targetId) drawn.push(columnGraphEdge(edge, node.id, node.field));
    }
  }
  countColumnHidden(nodes, edges);
  return { nodes: [...nodes.values()], edges: drawn, truncated };
}

function columnNode(
  artifactId: string,
  field: string,
  depth: number,
  artifactType: string | null,
  dataset: LineageGraphNodeRecord["dataset"],
  up: number,
  down: number,
): LineageGraphNodeRecord {
  return {
    id: columnNodeId(artifactId, field),
    kind: "COLUMN",
    label: field,
    depth,
    artifactId,
    runId: null,
    field,
    artifactType,
    dataset,
    run: null,
    upstreamCount: up,
    downstreamCount: down,
    hiddenUpstream: up,
    hiddenDownstream: down,
    box: null,
    ports: null,
  };
}

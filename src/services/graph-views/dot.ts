import type { GraphEdge, GraphNode, LayeredGraph } from "./layered-graph";

/**
 * Renders a laid-out graph as Graphviz DOT (`dot -Tsvg`, `-Tpng`, …):
 * - `rankdir=LR`; each column is a `rank=same` group holding an invisible anchor node, and the
 *   anchors are chained left to right, so dot keeps our columns exactly (empty ones included);
 * - nodes are listed column by column in our order (dot may still reorder within a column);
 * - executions are boxes, data are ellipses (PROV's activity/entity shapes and colours);
 *   pipeline inputs are drawn with a dashed outline;
 * - backward edges are dashed; those that point right to left or stay in their column are also
 *   `constraint=false` so they cannot bend the columns; WAS_DERIVED_FROM edges are grey, labelled
 *   with nothing (they overlay the execution edges), the others with their role.
 */
export function toDot(title: string, graph: Pick<LayeredGraph<GraphNode>, "columns" | "nodes" | "edges">): string {
  const byKey = new Map(graph.nodes.map((node) => [node.key, node]));
  const lines: string[] = [];
  lines.push(`digraph ${quote(title)} {`);
  lines.push("  rankdir=LR;");
  lines.push("  nodesep=0.3;");
  lines.push("  ranksep=0.6;");
  lines.push('  node [fontname="Helvetica", fontsize=10];');
  lines.push('  edge [fontname="Helvetica", fontsize=8];');
  for (const column of graph.columns) {
    lines.push("");
    lines.push(`  // column ${column.index}: ${column.kind.toLowerCase()}${column.step === null ? " (pipeline inputs)" : ` of step ${column.step}`}`);
    lines.push(`  { rank=same; ${quote(anchorKey(column.index))} [shape=point, style=invis, width=0, height=0, label=""];`);
    for (const key of column.nodeKeys) lines.push(`    ${quote(key)} [${nodeAttributes(byKey.get(key)!)}];`);
    lines.push("  }");
  }
  if (graph.columns.length > 1) {
    lines.push("");
    lines.push(`  ${graph.columns.map((column) => quote(anchorKey(column.index))).join(" -> ")} [style=invis, weight=100];`);
  }
  lines.push("");
  for (const edge of graph.edges) {
    lines.push(`  ${quote(edge.from)} -> ${quote(edge.to)} [${edgeAttributes(edge, byKey.get(edge.from)!.column, byKey.get(edge.to)!.column)}];`);
  }
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

/** Not a key any node can have: node keys are ids (art_…, run_…) or step:/data:/input: keys. */
function anchorKey(column: number): string {
  return `__column_${column}`;
}

function nodeAttributes(node: GraphNode): string {
  const attributes: string[] = [`label=${quote(nodeLabel(node).join("\n"))}`];
  if (node.kind === "EXECUTION") {
    attributes.push("shape=box", 'style="filled"', 'fillcolor="#9FB1FC"');
  } else {
    const pipelineInput = (node.type === "PIPELINE_ROLE" || node.type === "ARTIFACT") && node.pipelineInput;
    attributes.push("shape=ellipse", pipelineInput ? 'style="filled,dashed"' : 'style="filled"', 'fillcolor="#FFFC87"');
  }
  return attributes.join(", ");
}

function nodeLabel(node: GraphNode): string[] {
  switch (node.type) {
    case "PIPELINE_STEP":
      return [node.operation.name, `step ${node.step}`];
    case "PIPELINE_ROLE":
      return [node.role, node.artifactType];
    case "EXECUTION":
      return [`${node.operationName}@${node.operationVersion}`, `step ${node.step} · ${node.execution.status.toLowerCase()}`];
    case "ARTIFACT":
      return [node.artifact.originalName, node.artifact.artifactType];
  }
}

function edgeAttributes(edge: GraphEdge, fromColumn: number, toColumn: number): string {
  const attributes: string[] = [];
  if (edge.kind === "WAS_DERIVED_FROM") attributes.push('color="#8C8C8C"', "arrowhead=empty");
  else if (edge.role !== null) attributes.push(`label=${quote(edge.role)}`);
  if (edge.backward) attributes.push("style=dashed");
  if (toColumn <= fromColumn) attributes.push("constraint=false");
  return attributes.join(", ");
}

/** A DOT double-quoted string: `"` and `\` escaped, line breaks as DOT's centred `\n`. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\r?\n/g, "\\n")}"`;
}

import { ApiClient, type RemoteOptions } from "../api-client";
import { CliError, ExitCode } from "../exit-codes";
import type { Output } from "../output";
import { formatTable } from "../table";

export const LINEAGE_FORMATS = ["table", "json", "dot", "prov-json"] as const;
export type LineageFormat = (typeof LINEAGE_FORMATS)[number];
type Direction = "UPSTREAM" | "DOWNSTREAM";

export interface LineageOptions extends RemoteOptions {
  up?: boolean;
  down?: boolean;
  both?: boolean;
  depth?: number;
  first?: number;
  format: LineageFormat;
}

interface ArtifactSummary {
  id: string;
  artifactType: string;
  originalName: string;
}

interface Closure {
  truncated: boolean;
  nodes: { depth: number; artifact: ArtifactSummary }[];
  edges: { sourceId: string; targetId: string; kind: string; groupId: string | null; runId: string }[];
}

const CLOSURE = `query Lineage($artifactId: ID!, $direction: LineageDirection!, $maxDepth: Int, $first: Int) {
  lineage(artifactId: $artifactId, direction: $direction, maxDepth: $maxDepth, first: $first) {
    root { id artifactType originalName }
    truncated
    nodes { depth artifact { id artifactType originalName } }
    edges { sourceId targetId kind groupId runId }
  }
}`;

const PROV_JSON = `query ProvJson($artifactId: ID!, $direction: LineageDirection!, $maxDepth: Int, $first: Int) {
  provJson(artifactId: $artifactId, direction: $direction, maxDepth: $maxDepth, first: $first)
}`;

/**
 * `provgraph lineage <artifactId>`: the closure upstream (--up, the default), downstream (--down) or both,
 * as a table, JSON, Graphviz DOT or W3C PROV-JSON (the server's own export; both directions merged into
 * one document).
 */
export async function lineage(artifactId: string, options: LineageOptions, out: Output): Promise<number> {
  const directions = directionsOf(options);
  const client = new ApiClient(options);
  const variables = (direction: Direction) => ({ artifactId, direction, maxDepth: options.depth ?? null, first: options.first ?? null });
  if (options.format === "prov-json") {
    const documents = await Promise.all(directions.map((direction) => client.graphql<{ provJson: ProvDocument }>(PROV_JSON, variables(direction)).then((data) => data.provJson)));
    out.stdout(JSON.stringify(mergeProvDocuments(documents), null, 2));
    return ExitCode.OK;
  }
  const answers = await Promise.all(directions.map((direction) => client.graphql<{ lineage: Closure & { root: ArtifactSummary } }>(CLOSURE, variables(direction)).then((data) => [direction, data.lineage] as const)));
  const root = answers[0][1].root;
  const closures = new Map<Direction, Closure>(answers);
  if (options.format === "json") out.stdout(JSON.stringify(asJson(root, closures), null, 2));
  else if (options.format === "dot") out.stdout(asDot(root, closures));
  else out.stdout(asTable(root, closures));
  if ([...closures.values()].some((closure) => closure.truncated)) out.stderr("provgraph: the closure was cut (more artifacts than --first): the nearest are shown");
  return ExitCode.OK;
}

function directionsOf(options: LineageOptions): Direction[] {
  const chosen = [options.up, options.down, options.both].filter(Boolean).length;
  if (chosen > 1) throw new CliError("choose one of --up, --down and --both", ExitCode.USAGE);
  if (options.both) return ["UPSTREAM", "DOWNSTREAM"];
  return options.down ? ["DOWNSTREAM"] : ["UPSTREAM"];
}

const label = (direction: Direction) => (direction === "UPSTREAM" ? "upstream" : "downstream");

function asJson(root: ArtifactSummary, closures: Map<Direction, Closure>) {
  const without = ({ truncated, nodes, edges }: Closure) => ({ truncated, nodes, edges });
  return { root, ...Object.fromEntries([...closures].map(([direction, closure]) => [label(direction), without(closure)])) };
}

function asTable(root: ArtifactSummary, closures: Map<Direction, Closure>): string {
  const lines = [`${root.id}  ${root.originalName} (${root.artifactType})`, ""];
  const nodes = [...closures].flatMap(([direction, closure]) => closure.nodes.map((node) => [label(direction), String(node.depth), node.artifact.id, node.artifact.artifactType, node.artifact.originalName]));
  lines.push(nodes.length ? formatTable(["DIRECTION", "DEPTH", "ARTIFACT", "TYPE", "NAME"], nodes) : "no lineage recorded in that direction");
  const names = new Map<string, string>([[root.id, root.originalName], ...[...closures.values()].flatMap((closure) => closure.nodes.map((node) => [node.artifact.id, node.artifact.originalName] as [string, string]))]);
  const edges = [...closures.values()].flatMap((closure) => closure.edges.map((edge) => [names.get(edge.sourceId) ?? edge.sourceId, names.get(edge.targetId) ?? edge.targetId, edge.kind, edge.runId]));
  if (edges.length) lines.push("", formatTable(["SOURCE", "TARGET", "KIND", "RUN"], edges));
  return lines.join("\n");
}

/** Graphviz: artifacts as boxes labelled with name and type, the root bold, edges source → target (render with `dot -Tsvg`). */
function asDot(root: ArtifactSummary, closures: Map<Direction, Closure>): string {
  const quote = (text: string) => `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
  const artifacts = new Map<string, ArtifactSummary>([[root.id, root]]);
  for (const closure of closures.values()) for (const node of closure.nodes) artifacts.set(node.artifact.id, node.artifact);
  const edges = new Map<string, Closure["edges"][number]>();
  for (const closure of closures.values()) for (const edge of closure.edges) edges.set(`${edge.sourceId} ${edge.targetId} ${edge.runId} ${edge.kind}`, edge);
  const lines = ["digraph lineage {", "  rankdir=LR;", "  node [shape=box, fontname=Helvetica];"];
  for (const artifact of artifacts.values()) {
    lines.push(`  ${quote(artifact.id)} [label=${quote(`${artifact.originalName}\n${artifact.artifactType}`)}${artifact.id === root.id ? ", style=bold" : ""}];`);
  }
  for (const edge of edges.values()) lines.push(`  ${quote(edge.sourceId)} -> ${quote(edge.targetId)} [label=${quote(edge.kind)}${edge.kind === "CONFIG_REFERENCE" ? ", style=dashed" : ""}];`);
  lines.push("}");
  return lines.join("\n");
}

type ProvDocument = Record<string, Record<string, unknown>>;

/** PROV-JSON bundles merge by key: the same entity or activity in both closures is one. */
function mergeProvDocuments(documents: readonly ProvDocument[]): ProvDocument {
  const merged: ProvDocument = {};
  for (const document of documents) {
    for (const [section, entries] of Object.entries(document)) {
      const target = (merged[section] ??= {});
      for (const [key, value] of Object.entries(entries ?? {})) {
        // Relations are keyed by blank nodes numbered per document (_:use1…): keep both sides' under distinct keys.
        const distinct = key.startsWith("_:") && key in target && JSON.stringify(target[key]) !== JSON.stringify(value) ? `${key}-${documents.indexOf(document)}` : key;
        target[distinct] = typeof value === "object" && value !== null && typeof target[distinct] === "object" ? { ...(target[distinct] as object), ...(value as object) } : value;
      }
    }
  }
  return merged;
}

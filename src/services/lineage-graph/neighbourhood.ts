import type { ProvenanceEdgeKind } from "../lineage";
import { columnIndex } from "./union-rows";
import { asNumber, asText, type GraphReadClient } from "./read-client";
import { NEIGHBOURHOOD_COLUMN_NAMES, neighbourhoodStatement, type NeighbourhoodOptions, WALK_COLUMN_NAMES, walkStatement, type WalkOptions } from "./neighbourhood-sql";

/**
 * The stored facts around a neighbourhood, read with the two statements of neighbourhood-sql.ts and
 * indexed for the assembly (lineage-graph.ts): what the walk reached, which runs stand beside which
 * artifacts, the derivation edges, the links, and every node's labels and neighbour counts.
 */
export interface WalkResult {
  artifactRoots: Set<string>;
  runRoots: Set<string>;
  /** Hops from the roots of each artifact the walks kept, per direction. */
  up: Map<string, number>;
  down: Map<string, number>;
  /** More candidates than kept, or a walk stopped by its budget. */
  cut: boolean;
}

export async function readWalk(reader: GraphReadClient, options: WalkOptions): Promise<WalkResult> {
  const { sql, params } = walkStatement(reader.provider, options);
  const result = await reader.readRows(sql, params);
  const at = columnIndex(result.columnNames, WALK_COLUMN_NAMES);
  const walk: WalkResult = { artifactRoots: new Set(), runRoots: new Set(), up: new Map(), down: new Map(), cut: false };
  for (const row of result.rows) {
    const id = row[at.id] as string;
    switch (row[at.row]) {
      case "root":
        walk.artifactRoots.add(id);
        break;
      case "runroot":
        walk.runRoots.add(id);
        break;
      case "up":
        walk.up.set(id, asNumber(row[at.n]));
        break;
      case "down":
        walk.down.set(id, asNumber(row[at.n]));
        break;
      case "meta":
        walk.cut =
          (options.up && (asNumber(row[at.n]) > options.keep || asNumber(row[at.n2]) >= options.budget)) ||
          (options.down && (asNumber(row[at.n3]) > options.keep || asNumber(row[at.n4]) >= options.budget));
        break;
    }
  }
  return walk;
}

export interface DerivationEdgeFact {
  id: number;
  sourceId: string;
  targetId: string;
  runId: string;
  kind: ProvenanceEdgeKind;
  groupId: string | null;
}

export interface ArtifactFact {
  label: string | null;
  artifactType: string | null;
  dataset: { namespace: string; name: string; version: string | null } | null;
  up: number;
  down: number;
}

export interface RunFact {
  operation: string | null;
  operationVersion: string | null;
  status: string | null;
  pipeline: string | null;
  step: number | null;
  up: number;
  down: number;
}

export interface NeighbourhoodFacts {
  /** Runs beside each artifact, by id (one more than `runsPerArtifact` when there were more). */
  producers: Map<string, string[]>;
  consumers: Map<string, string[]>;
  edges: DerivationEdgeFact[];
  artifacts: Map<string, ArtifactFact>;
  runs: Map<string, RunFact>;
  /** `${runId}\u0000${artifactId}` → the roles of its links (empty: known from a derivation edge only). */
  used: Map<string, Set<string>>;
  generated: Map<string, Set<string>>;
}

export const pairKey = (runId: string, artifactId: string) => `${runId}\u0000${artifactId}`;

export async function readNeighbourhood(reader: GraphReadClient, options: NeighbourhoodOptions): Promise<NeighbourhoodFacts> {
  const { sql, params } = neighbourhoodStatement(reader.provider, options);
  const result = await reader.readRows(sql, params);
  const at = columnIndex(result.columnNames, NEIGHBOURHOOD_COLUMN_NAMES);
  const facts: NeighbourhoodFacts = { producers: new Map(), consumers: new Map(), edges: [], artifacts: new Map(), runs: new Map(), used: new Map(), generated: new Map() };
  const text = (row: unknown[], column: keyof typeof at) => asText(row[at[column]]);
  const relate = (into: Map<string, Set<string>>, runId: string, artifactId: string, role: string | null) => {
    const key = pairKey(runId, artifactId);
    const roles = into.get(key) ?? new Set<string>();
    into.set(key, roles);
    if (role !== null) roles.add(role);
  };
  const adjacency: [string, number, unknown[]][] = [];
  for (const row of result.rows) {
    switch (row[at.row]) {
      case "adjup":
      case "adjdown":
        adjacency.push([row[at.row] as string, asNumber(row[at.n]), row]);
        break;
      case "edge":
        facts.edges.push({
          id: asNumber(row[at.n]),
          sourceId: text(row, "id")!,
          targetId: text(row, "other")!,
          runId: text(row, "runId")!,
          kind: text(row, "kind") as ProvenanceEdgeKind,
          groupId: text(row, "groupId"),
        });
        break;
      case "art": {
        const namespace = text(row, "namespace");
        const name = text(row, "name");
        facts.artifacts.set(text(row, "id")!, {
          label: text(row, "label"),
          artifactType: text(row, "artifactType"),
          dataset: namespace !== null && name !== null ? { namespace, name, version: text(row, "version") } : null,
          up: asNumber(row[at.up]),
          down: asNumber(row[at.down]),
        });
        break;
      }
      case "run":
        facts.runs.set(text(row, "id")!, {
          operation: text(row, "label"),
          operationVersion: text(row, "version"),
          status: text(row, "status"),
          pipeline: text(row, "pipeline"),
          step: row[at.n] === null || row[at.n] === undefined ? null : asNumber(row[at.n]),
          up: asNumber(row[at.up]),
          down: asNumber(row[at.down]),
        });
        break;
      case "link":
        relate(text(row, "kind") === "CONSUMED" ? facts.used : facts.generated, text(row, "id")!, text(row, "other")!, text(row, "label"));
        break;
      case "pair":
        relate(text(row, "kind") === "CONSUMED" ? facts.used : facts.generated, text(row, "id")!, text(row, "other")!, null);
        break;
    }
  }
  for (const [kind, , row] of adjacency) {
    const into = kind === "adjup" ? facts.producers : facts.consumers;
    const artifact = text(row, "id")!;
    const runs = into.get(artifact) ?? [];
    into.set(artifact, runs);
    runs.push(text(row, "other")!);
  }
  // In code-unit order, the same on both databases (their text collations differ).
  for (const runs of [...facts.producers.values(), ...facts.consumers.values()]) runs.sort(compareIds);
  facts.edges.sort((a, b) => a.id - b.id);
  return facts;
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

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
  /** Run → artifact → the roles of its links (empty: known from a derivation edge only). */
  used: Relation;
  generated: Relation;
}

/** Run → artifact → roles: nested maps, not one map of joined keys (building and hashing those keys cost more than the rest). */
export type Relation = Map<string, Map<string, Set<string>>>;

/** Whether a run is related to an artifact. */
export function related(relation: Relation, runId: string, artifactId: string): boolean {
  return relation.get(runId)?.has(artifactId) ?? false;
}

export async function readNeighbourhood(reader: GraphReadClient, options: NeighbourhoodOptions): Promise<NeighbourhoodFacts> {
  const { sql, params } = neighbourhoodStatement(reader.provider, options);
  const result = await reader.readRows(sql, params);
  const at = columnIndex(result.columnNames, NEIGHBOURHOOD_COLUMN_NAMES);
  const facts: NeighbourhoodFacts = { producers: new Map(), consumers: new Map(), edges: [], artifacts: new Map(), runs: new Map(), used: new Map(), generated: new Map() };
  // Each artifact's runs by side, as the links and pairs relate them (see 'adjup' / 'adjdown' below).
  const usedBy = new Map<string, string[]>();
  const generatedBy = new Map<string, string[]>();
  const relate = (direction: unknown, runId: string, artifactId: string, role: string | null) => {
    const consumed = direction === "CONSUMED";
    const into = consumed ? facts.used : facts.generated;
    let ofRun = into.get(runId);
    if (!ofRun) into.set(runId, (ofRun = new Map()));
    let roles = ofRun.get(artifactId);
    if (!roles) {
      ofRun.set(artifactId, (roles = new Set<string>()));
      const byArtifact = consumed ? usedBy : generatedBy;
      const runs = byArtifact.get(artifactId);
      if (runs) runs.push(runId);
      else byArtifact.set(artifactId, [runId]);
    }
    if (role !== null) roles.add(role);
  };
  const [A, B, C, D, E, F] = [at.a, at.b, at.c, at.d, at.e, at.f];
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  for (const row of result.rows) {
    switch (row[at.row]) {
      case "edge":
        facts.edges.push({ id: asNumber(row[at.n]), sourceId: row[A] as string, targetId: row[B] as string, runId: row[C] as string, kind: row[D] as ProvenanceEdgeKind, groupId: text(row[E]) });
        break;
      case "art": {
        const namespace = text(row[D]);
        const name = text(row[E]);
        facts.artifacts.set(row[A] as string, {
          label: text(row[B]),
          artifactType: text(row[C]),
          dataset: namespace !== null && name !== null ? { namespace, name, version: text(row[F]) } : null,
          up: asNumber(row[at.up]),
          down: asNumber(row[at.down]),
        });
        break;
      }
      case "run":
        facts.runs.set(row[A] as string, {
          operation: text(row[B]),
          operationVersion: text(row[C]),
          status: text(row[D]),
          pipeline: text(row[E]),
          step: row[at.n] === null || row[at.n] === undefined ? null : asNumber(row[at.n]),
          up: asNumber(row[at.up]),
          down: asNumber(row[at.down]),
        });
        break;
      case "link":
        relate(row[C], row[A] as string, row[B] as string, text(row[D]));
        break;
      case "pair":
        relate(row[C], row[A] as string, row[B] as string, null);
        break;
      case "adjup":
      case "adjdown": {
        const into = row[at.row] === "adjup" ? facts.producers : facts.consumers;
        const runs = into.get(row[A] as string);
        if (runs) runs.push(row[B] as string);
        else into.set(row[A] as string, [row[B] as string]);
        break;
      }
    }
  }
  // A frontier artifact without adjacency rows has all its runs on that side among those read.
  for (const [frontier, into, byArtifact] of [
    [options.upFrontier, facts.producers, generatedBy],
    [options.downFrontier, facts.consumers, usedBy],
  ] as const) {
    for (const artifactId of frontier) {
      const runs = byArtifact.get(artifactId);
      if (runs && !into.has(artifactId)) into.set(artifactId, [...runs]);
    }
  }
  // In code-unit order, the same on both databases (their text collations differ).
  for (const runs of [...facts.producers.values(), ...facts.consumers.values()]) runs.sort(compareIds);
  facts.edges.sort((a, b) => a.id - b.id);
  return facts;
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

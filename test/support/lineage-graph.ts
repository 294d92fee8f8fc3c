import type { Db } from "../../src/db/client";
import { type ArtifactId, newRunId, type RunId } from "../../src/services/ids";
import type { ProvenanceEdgeKind } from "../../src/services/lineage";
import { seedArtifactRow } from "./seed";

/**
 * Hand-built provenance graphs written straight into the Artifact and ProvenanceEdge tables (no
 * recording pipeline, no validation), so read tests can state exact answers, cycles included.
 * Artifacts are named; `prefix` keeps the names of several graphs in one database apart.
 */
export interface EdgeSpec {
  from: string;
  to: string;
  kind?: ProvenanceEdgeKind;
  /** Edges of one joint derivation share a group; defaults to one group per edge. */
  group?: string;
  run?: RunId;
  stepBoundary?: boolean;
  /** When the edge was recorded (default: now). */
  at?: Date;
}

export interface SeededGraph {
  id(name: string): ArtifactId;
  name(id: string): string;
  names(ids: readonly string[]): string[];
  run: RunId;
}

export async function seedGraph(db: Db, prefix: string, artifacts: Record<string, string>, edges: readonly EdgeSpec[]): Promise<SeededGraph> {
  const rows = Object.entries(artifacts).map(([name, type]) => ({ name, row: seedArtifactRow(`${prefix}/${name}`, type) }));
  await db.artifact.createMany({ data: rows.map((r) => r.row) });
  const byName = new Map(rows.map((r) => [r.name, r.row]));
  const byId = new Map(rows.map((r) => [r.row.id, r.name]));
  const run = newRunId();
  const artifact = (name: string) => {
    const row = byName.get(name);
    if (!row) throw new Error(`seedGraph(${prefix}): no artifact named ${name}`);
    return row;
  };
  for (const edge of edges) {
    // One at a time so ids follow the list (tests rely on recording order).
    await db.provenanceEdge.create({
      data: {
        sourceId: artifact(edge.from).id,
        targetId: artifact(edge.to).id,
        runId: edge.run ?? run,
        kind: edge.kind ?? "INDEPENDENT",
        groupId: `grp_${prefix}_${edge.group ?? `${edge.from}_${edge.to}`}`,
        stepBoundary: edge.stepBoundary ?? true,
        sourceType: artifact(edge.from).artifactType,
        targetType: artifact(edge.to).artifactType,
        ...(edge.at ? { createdAt: edge.at } : {}),
      },
    });
  }
  return {
    id: (name) => artifact(name).id,
    name: (id) => byId.get(id as ArtifactId) ?? `?${id}`,
    names: (ids) => ids.map((id) => byId.get(id as ArtifactId) ?? `?${id}`),
    run,
  };
}

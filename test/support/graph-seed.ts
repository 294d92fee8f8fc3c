import type { Db } from "../../src/db/client";
import { type ArtifactId, newRunId, type RunId, specIdFrom } from "../../src/services/ids";
import { seedOperation, seedArtifactRow } from "./seed";

/**
 * Lineage written straight into the tables, run by run — each run with its execution links (roles)
 * and the derivation edges it recorded — so graph tests can state exact answers. Names stand for ids
 * in expectations (`named`).
 */
export interface RunSpec {
  name: string;
  operation?: string;
  inputs?: [artifact: string, role: string][];
  outputs?: [artifact: string, role: string][];
  /** source → target; edges of one joint derivation share a group (default: one per edge). */
  derivations?: { from: string; to: string; kind?: string; group?: string; stepBoundary?: boolean }[];
  /** When the run and its edges were recorded (default now). */
  at?: Date;
  pipeline?: string;
}

export interface SeededRuns {
  id(name: string): string;
  name(id: string): string;
  /** The same value with every id replaced by its name (for exact expectations). */
  named<T>(value: T): T;
}

export async function seedRuns(db: Db, prefix: string, artifacts: Record<string, string | { type: string; dataset: [string, string] }>, runs: readonly RunSpec[]): Promise<SeededRuns> {
  const ids = new Map<string, string>();
  const rows = Object.entries(artifacts).map(([name, spec]) => {
    const type = typeof spec === "string" ? spec : spec.type;
    const row = seedArtifactRow(`${prefix}/${name}`, type);
    ids.set(name, row.id);
    const dataset = typeof spec === "string" ? {} : { datasetNamespace: spec.dataset[0], datasetName: spec.dataset[1], datasetVersion: "1" };
    return { ...row, originalName: name, ...dataset };
  });
  await db.artifact.createMany({ data: rows });
  const artifact = (name: string) => {
    const id = ids.get(name);
    if (!id) throw new Error(`seedRuns(${prefix}): no artifact named ${name}`);
    return id as ArtifactId;
  };
  for (const run of runs) {
    const runId: RunId = newRunId();
    ids.set(run.name, runId);
    const operationId = await seedOperation(db, run.operation ?? run.name);
    const at = run.at ?? new Date();
    const links = [
      ...(run.inputs ?? []).map(([name, role], position) => ({ artifactId: artifact(name), direction: "CONSUMED", role, position })),
      ...(run.outputs ?? []).map(([name, role], position) => ({ artifactId: artifact(name), direction: "PRODUCED", role, position })),
    ];
    await db.execution.create({
      data: { runId, specId: specIdFrom(`${prefix}/${run.name}`), operationId, status: "COMPLETED", recordedAt: at, pipeline: run.pipeline ?? null, links: { create: links } },
    });
    for (const d of run.derivations ?? []) {
      await db.provenanceEdge.create({
        data: {
          sourceId: artifact(d.from),
          targetId: artifact(d.to),
          runId,
          kind: d.kind ?? "INDEPENDENT",
          groupId: `grp_${prefix}_${run.name}_${d.group ?? `${d.from}_${d.to}`}`,
          stepBoundary: d.stepBoundary ?? true,
          sourceType: rows.find((r) => r.id === artifact(d.from))!.artifactType,
          targetType: rows.find((r) => r.id === artifact(d.to))!.artifactType,
          createdAt: at,
        },
      });
    }
  }
  const names = new Map([...ids].map(([name, id]) => [id, name]));
  const rename = (text: string) => text.replace(/art_[0-9a-f]{40}|run_[0-9a-f-]{36}/g, (id) => names.get(id) ?? id);
  return {
    id: (name) => {
      const id = ids.get(name);
      if (!id) throw new Error(`seedRuns(${prefix}): nothing named ${name}`);
      return id;
    },
    name: (id) => names.get(id) ?? id,
    named: <T>(value: T) => JSON.parse(rename(JSON.stringify(value))) as T,
  };
}

import type { Db } from "../../src/db/client";
import { type ArtifactId, artifactIdFor, newRunId, operationIdFor, type RunId, specIdFrom } from "../../src/services/ids";
import { sha256Of } from "./content-hash";

/** Writes provenance rows directly through Prisma, so read tests do not depend on the recording pipeline. */

export async function seedOperation(db: Db, name: string, version = "1") {
  const id = operationIdFor(name, version);
  await db.operation.upsert({
    where: { id },
    update: {},
    create: {
      id,
      name,
      version,
      kind: "CREATOR",
      declaration: "{}",
      roles: {
        create: [
          { direction: "INPUT", role: "data", position: 0, artifactType: "csv" },
          { direction: "OUTPUT", role: "result", position: 0, artifactType: "csv", lineageFrom: "INPUTS", lineageRoles: '["data"]' },
        ],
      },
    },
  });
  return id;
}

export function seedArtifactRow(name: string, type = "csv") {
  const contentHash = sha256Of(`${type}/${name}`);
  return { id: artifactIdFor(type, contentHash), artifactType: type, contentHash, originalName: name };
}

export interface SeededExecution {
  runId: RunId;
  inputs: ArtifactId[];
  outputs: ArtifactId[];
}

/** One execution of `operation` consuming and producing freshly named artifacts. */
export async function seedExecution(
  db: Db,
  options: { operation: string; label: string; inputs?: number; outputs?: number; pipeline?: string; status?: string },
): Promise<SeededExecution> {
  const operationId = await seedOperation(db, options.operation);
  const inputs = Array.from({ length: options.inputs ?? 1 }, (_, i) => seedArtifactRow(`${options.label}_in_${i}.csv`));
  const outputs = Array.from({ length: options.outputs ?? 1 }, (_, i) => seedArtifactRow(`${options.label}_in_${i}_out.csv`));
  const runId = newRunId();
  await db.artifact.createMany({ data: [...inputs, ...outputs] });
  await db.execution.create({
    data: {
      runId,
      specId: specIdFrom(`${options.operation}/${options.label}`),
      operationId,
      status: options.status ?? "COMPLETED",
      params: JSON.stringify({ label: options.label }),
      pipeline: options.pipeline ?? null,
      links: {
        create: [
          ...inputs.map((a, position) => ({ artifactId: a.id, direction: "CONSUMED", role: "data", position })),
          ...outputs.map((a, position) => ({ artifactId: a.id, direction: "PRODUCED", role: "result", position })),
        ],
      },
    },
  });
  return { runId, inputs: inputs.map((a) => a.id), outputs: outputs.map((a) => a.id) };
}

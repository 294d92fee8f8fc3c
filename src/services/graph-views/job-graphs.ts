import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { InvalidArgumentError } from "../errors";
import type { ArtifactId, RunId } from "../ids";
import { type LinkDirection, toArtifactRecord, toExecutionRecord } from "../records";
import { compareText } from "./column-layout";
import { toDot } from "./dot";
import type { GraphViewOptions } from "./graph-views";
import { jobSteps, type JobName } from "./job-steps";
import type { MacroGraph, MicroGraph } from "./layered-graph";
import { buildMacroGraph, type PipelineFlowInput, type PipelineStepInput } from "./macro-graph";
import { buildMicroGraph, type MicroDerivationInput } from "./micro-graph";
import { appendTo } from "../grouping";

/** What a job graph is called where a pipeline graph gives its pipeline's name. */
export const jobGraphName = (job: JobName) => `${job.namespace}/${job.name}`;

/**
 * The macro graph of an OpenLineage job: its steps (job-steps.ts), each with its operation's roles,
 * and a flow wherever a run of one step used what a run of another produced. A fixed number of
 * statements, whatever the job's size.
 */
export async function jobMacroGraph(db: Db, job: JobName, runs: number, options: GraphViewOptions): Promise<MacroGraph> {
  const { steps, stepOf } = await jobSteps(db, job, runs);
  const [roles, links] = await Promise.all([
    inChunks(new Set(steps.map((s) => s.operation.id as string)), (chunk) => db.operationRole.findMany({ where: { operationId: { in: chunk } }, orderBy: [{ direction: "asc" }, { position: "asc" }] })),
    inChunks(stepOf.keys(), (chunk) => db.executionArtifact.findMany({ where: { runId: { in: chunk } }, select: { runId: true, artifactId: true, direction: true, role: true } })),
  ]);
  const rolesOf = (operationId: string, direction: string) => roles.filter((r) => r.operationId === operationId && r.direction === direction).map((r) => ({ role: r.role, artifactType: r.artifactType }));
  const stepInputs: PipelineStepInput[] = steps.map((s) => ({ step: s.step, operation: s.operation, inputRoles: rolesOf(s.operation.id, "INPUT"), outputRoles: rolesOf(s.operation.id, "OUTPUT") }));
  const producers = new Map<string, { step: number; role: string }[]>();
  for (const link of links) if (link.direction === "PRODUCED") appendTo(producers, link.artifactId, { step: stepOf.get(link.runId)!, role: link.role });
  const flows = new Map<string, PipelineFlowInput>();
  for (const link of links) {
    if (link.direction !== "CONSUMED") continue;
    const step = stepOf.get(link.runId)!;
    for (const producer of producers.get(link.artifactId) ?? []) {
      if (producer.step === step) continue;
      const flow = { step, inputRole: link.role, sourceStep: producer.step, sourceRole: producer.role };
      flows.set(JSON.stringify(flow), flow);
    }
  }
  const graph = buildMacroGraph(jobGraphName(job), stepInputs, [...flows.values()]);
  return { ...graph, dot: options.dot ? toDot(`macro graph of ${jobGraphName(job)}`, graph) : null };
}

/** The micro graph of an OpenLineage job: the runs drawn at their steps (≤ upToStep), their artifacts and derivations. */
export async function jobMicroGraph(db: Db, job: JobName, runs: number, upToStep: number | null, options: GraphViewOptions): Promise<MicroGraph> {
  if (upToStep !== null && (!Number.isInteger(upToStep) || upToStep < 0)) throw new InvalidArgumentError("upToStep", `must be a step number of 0 or more, got ${upToStep}`);
  const { steps, stepOf } = await jobSteps(db, job, runs);
  const within = [...stepOf].filter(([, step]) => upToStep === null || step <= upToStep).map(([runId]) => runId);
  const before = upToStep !== null && within.length === 0;
  // A frame before the first step: what the first step reads.
  const linkRuns = before ? [...stepOf].filter(([, step]) => step === 1).map(([runId]) => runId) : within;
  const [executionRows, linkRows, derivationRows] = await Promise.all([
    inChunks(within, (chunk) => db.execution.findMany({ where: { runId: { in: chunk } }, include: { operation: { select: { name: true, version: true } } } })),
    inChunks(linkRuns, (chunk) => db.executionArtifact.findMany({ where: { runId: { in: chunk } } })),
    within.length === 0
      ? Promise.resolve([])
      : inChunks(within, (chunk) => db.provenanceEdge.findMany({ where: { runId: { in: chunk } }, select: { id: true, sourceId: true, targetId: true, runId: true, kind: true } })).then((rows) => rows.sort((a, b) => a.id - b.id)),
  ]);
  const artifactRows = (await inChunks(new Set(linkRows.map((l) => l.artifactId)), (chunk) => db.artifact.findMany({ where: { id: { in: chunk } } }))).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const artifacts = artifactRows.map(toArtifactRecord);
  const graph = buildMicroGraph({
    pipeline: jobGraphName(job),
    upToStep,
    steps: steps.map((s) => s.step).filter((step) => upToStep === null || step <= upToStep),
    executions: executionRows
      .map((row) => ({ execution: toExecutionRecord(row), step: stepOf.get(row.runId)!, operationName: row.operation.name, operationVersion: row.operation.version }))
      .sort((a, b) => a.step - b.step || compareText(a.execution.runId, b.execution.runId)),
    links: before ? [] : linkRows.map((row) => ({ runId: row.runId as RunId, artifactId: row.artifactId as ArtifactId, direction: row.direction as LinkDirection, role: row.role, position: row.position })),
    artifacts,
    derivations: derivationRows as MicroDerivationInput[],
    frameInputs: before ? artifacts.filter((a) => linkRows.some((l) => l.artifactId === a.id && l.direction === "CONSUMED")) : [],
  });
  return { ...graph, dot: options.dot ? toDot(`micro graph of ${jobGraphName(job)}`, graph) : null };
}

import type { Db } from "../../db/client";
import { InvalidArgumentError, NotFoundError } from "../errors";
import type { ArtifactId, OperationId, RunId } from "../ids";
import { type LinkDirection, type OperationKind, toArtifactRecord, toExecutionRecord } from "../records";
import { compareText } from "./column-layout";
import { toDot } from "./dot";
import type { MacroGraph, MicroGraph } from "./layered-graph";
import { buildMacroGraph, type StepRole } from "./macro-graph";
import { buildMicroGraph, type MicroDerivationInput } from "./micro-graph";

export interface GraphViewOptions {
  /** Also render the graph as Graphviz DOT text (`dot`), else `dot` is null. */
  dot?: boolean;
}

/**
 * The macro and micro graph of a pipeline, each loaded with a fixed number of SQL statements
 * (macro: 3, micro: 6) whatever the pipeline's size, then laid out in memory.
 */
export class GraphViews {
  constructor(private readonly db: Db) {}

  /** Steps → role nodes, from PipelineStep and PipelineFlow alone. NOT_FOUND when the pipeline has no steps. */
  async macroGraph(pipeline: string, options: GraphViewOptions = {}): Promise<MacroGraph> {
    const [stepRows, flowRows] = await Promise.all([
      this.db.pipelineStep.findMany({ where: { pipeline }, include: { operation: true }, orderBy: { step: "asc" } }),
      // Ordered in memory: text collation differs between SQLite and PostgreSQL.
      this.db.pipelineFlow.findMany({ where: { pipeline } }),
    ]);
    if (stepRows.length === 0) throw new NotFoundError("pipeline", pipeline, "pipeline");
    const steps = stepRows.map((row) => ({
      step: row.step,
      operation: {
        id: row.operation.id as OperationId,
        name: row.operation.name,
        version: row.operation.version,
        kind: row.operation.kind as OperationKind,
      },
      inputRoles: parseRoles(row.inputRoles),
      outputRoles: parseRoles(row.outputRoles),
    }));
    const graph = buildMacroGraph(pipeline, steps, flowRows);
    return { ...graph, dot: options.dot ? toDot(`macro graph of ${pipeline}`, graph) : null };
  }

  /**
   * Every execution of the pipeline with a step ≤ upToStep (all when null) and every artifact they
   * used or produced. NOT_FOUND when the pipeline has no steps; INVALID_ARGUMENT when upToStep < 0.
   */
  async microGraph(pipeline: string, upToStep: number | null, options: GraphViewOptions = {}): Promise<MicroGraph> {
    if (upToStep !== null && (!Number.isInteger(upToStep) || upToStep < 0)) {
      throw new InvalidArgumentError("upToStep", `must be a step number of 0 or more, got ${upToStep}`);
    }
    const inPipeline = { pipeline, step: upToStep === null ? { not: null } : { lte: upToStep } };
    const [stepRows, executionRows, linkRows, artifactRows, derivationRows] = await Promise.all([
      this.db.pipelineStep.findMany({ where: { pipeline }, select: { step: true }, orderBy: { step: "asc" } }),
      this.db.execution.findMany({ where: inPipeline, include: { operation: { select: { name: true, version: true } } } }),
      this.db.executionArtifact.findMany({ where: { execution: inPipeline } }), // ordered in memory (buildMicroGraph)
      this.db.artifact.findMany({ where: { links: { some: { execution: inPipeline } } }, orderBy: { id: "asc" } }),
      this.derivationsRecordedIn(pipeline, upToStep),
    ]);
    if (stepRows.length === 0 && executionRows.length === 0) throw new NotFoundError("pipeline", pipeline, "pipeline");

    const steps = [...new Set([...stepRows.map((row) => row.step), ...executionRows.map((row) => row.step!)])]
      .filter((step) => upToStep === null || step <= upToStep)
      .sort((a, b) => a - b);
    const graph = buildMicroGraph({
      pipeline,
      upToStep,
      steps,
      executions: executionRows
        .sort((a, b) => a.step! - b.step! || compareText(a.runId, b.runId))
        .map((row) => ({
          execution: { ...toExecutionRecord(row), step: row.step! },
          operationName: row.operation.name,
          operationVersion: row.operation.version,
        })),
      links: linkRows.map((row) => ({
        runId: row.runId as RunId,
        artifactId: row.artifactId as ArtifactId,
        direction: row.direction as LinkDirection,
        role: row.role,
        position: row.position,
      })),
      artifacts: artifactRows.map(toArtifactRecord),
      derivations: derivationRows,
    });
    return { ...graph, dot: options.dot ? toDot(`micro graph of ${pipeline}`, graph) : null };
  }

  /** ProvenanceEdge has no relation to Execution, so this one join is written in SQL (the same on SQLite and PostgreSQL). */
  private derivationsRecordedIn(pipeline: string, upToStep: number | null): Promise<MicroDerivationInput[]> {
    return upToStep === null
      ? this.db.$queryRaw<MicroDerivationInput[]>`
          SELECT pe."sourceId", pe."targetId", pe."runId", pe."kind"
          FROM "ProvenanceEdge" pe JOIN "Execution" e ON e."runId" = pe."runId"
          WHERE e."pipeline" = ${pipeline} AND e."step" IS NOT NULL
          ORDER BY pe."id"`
      : this.db.$queryRaw<MicroDerivationInput[]>`
          SELECT pe."sourceId", pe."targetId", pe."runId", pe."kind"
          FROM "ProvenanceEdge" pe JOIN "Execution" e ON e."runId" = pe."runId"
          WHERE e."pipeline" = ${pipeline} AND e."step" <= ${upToStep}
          ORDER BY pe."id"`;
  }
}

/** PipelineStep.inputRoles / outputRoles: JSON `[{ role, artifactType }]`. */
function parseRoles(text: string): StepRole[] {
  const parsed = JSON.parse(text) as unknown;
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((entry): entry is { role: unknown; artifactType?: unknown } => typeof entry === "object" && entry !== null && "role" in entry)
    .map((entry) => ({ role: String(entry.role), artifactType: entry.artifactType == null ? "" : String(entry.artifactType) }));
}

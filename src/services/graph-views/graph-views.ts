import type { Db } from "../../db/client";
import { InvalidArgumentError, NotFoundError } from "../errors";
import type { ArtifactId, OperationId, RunId } from "../ids";
import { type LinkDirection, type OperationKind, toArtifactRecord, toExecutionRecord } from "../records";
import { compareText } from "./column-layout";
import { toDot } from "./dot";
import type { MacroGraph, MicroGraph } from "./layered-graph";
import { buildMacroGraph, type StepRole } from "./macro-graph";
import { buildMicroGraph, type MicroDerivationInput, type MicroExecutionInput } from "./micro-graph";
import { type ExpandedComposite, levelsOf } from "./composite-stages";
import { CompositeReader } from "../composites";
import { Prisma } from "../../generated/sqlite/client";

export interface GraphViewOptions {
  /** Also render the graph as Graphviz DOT text (`dot`), else `dot` is null. */
  dot?: boolean;
  /** Draw each composite run (step) as the steps it ran, instead of as one step. */
  expandComposites?: boolean;
}

/**
 * The macro and micro graph of a pipeline, each loaded with a fixed number of SQL statements
 * (macro: 3, micro: 6; expanding composites adds at most 2 and 6) whatever the pipeline's size,
 * then laid out in memory.
 */
export class GraphViews {
  private readonly composites: CompositeReader;

  constructor(private readonly db: Db) {
    this.composites = new CompositeReader(db);
  }

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
    const expanded = options.expandComposites ? await this.expansions(steps.filter((s) => s.operation.kind === "COMPOSITE").map((s) => [s.step, s.operation.id] as const)) : new Map();
    const graph = buildMacroGraph(pipeline, steps, flowRows, expanded);
    return { ...graph, dot: options.dot ? toDot(`macro graph of ${pipeline}`, graph) : null };
  }

  /** The definitions of the composites these steps run, as the graphs expand them (two statements). */
  private async expansions(steps: readonly (readonly [number, OperationId])[]): Promise<Map<number, ExpandedComposite>> {
    if (steps.length === 0) return new Map();
    const definitions = await this.composites.definitionsByIds(steps.map(([, id]) => id));
    const operationIds = [...new Set(definitions.flatMap((d) => d?.steps.map((s) => s.operationId) ?? []))];
    const operations = new Map((await this.db.operation.findMany({ where: { id: { in: operationIds } } })).map((o) => [o.id, o]));
    const expanded = new Map<number, ExpandedComposite>();
    steps.forEach(([step], i) => {
      const definition = definitions[i];
      if (!definition) return;
      expanded.set(step, {
        steps: definition.steps.map((s) => {
          const operation = operations.get(s.operationId)!;
          return {
            name: s.name,
            operation: { id: s.operationId, name: operation.name, version: operation.version, kind: operation.kind as OperationKind },
            inputRoles: s.inputs.map((r) => r.role),
            outputRoles: s.outputs.map((r) => ({ role: r.role, artifactType: r.artifactType })),
          };
        }),
        wires: definition.wires.map((w) => ({ source: w.source, target: w.target })),
      });
    });
    return expanded;
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
      this.db.execution.findMany({ where: inPipeline, include: { operation: { select: { name: true, version: true, kind: true } } } }),
      this.db.executionArtifact.findMany({ where: { execution: inPipeline } }), // ordered in memory (buildMicroGraph)
      this.db.artifact.findMany({ where: { links: { some: { execution: inPipeline } } }, orderBy: { id: "asc" } }),
      this.derivationsRecordedIn(pipeline, upToStep),
    ]);
    if (stepRows.length === 0 && executionRows.length === 0) throw new NotFoundError("pipeline", pipeline, "pipeline");

    const steps = [...new Set([...stepRows.map((row) => row.step), ...executionRows.map((row) => row.step!)])]
      .filter((step) => upToStep === null || step <= upToStep)
      .sort((a, b) => a - b);
    let executions: MicroExecutionInput[] = executionRows.map((row) => ({
      execution: toExecutionRecord(row),
      step: row.step!,
      operationName: row.operation.name,
      operationVersion: row.operation.version,
    }));
    let links = linkRows.map((row) => ({ runId: row.runId as RunId, artifactId: row.artifactId as ArtifactId, direction: row.direction as LinkDirection, role: row.role, position: row.position }));
    let artifacts = artifactRows.map(toArtifactRecord);
    let derivations = derivationRows;
    const depths = new Map<number, number>();
    const composites = executionRows.filter((row) => row.operation.kind === "COMPOSITE");
    if (options.expandComposites && composites.length > 0) {
      // A composite run is replaced by the executions of its steps: their links and their own (internal) edges.
      const expanded = await this.expansions(composites.map((row) => [row.step!, row.operationId as OperationId] as const));
      const parents = new Map(composites.map((row) => [row.runId, row.step!]));
      const [childRows, stepRuns, childLinks, childDerivations] = await Promise.all([
        this.db.execution.findMany({ where: { parentRunId: { in: [...parents.keys()] } }, include: { operation: { select: { name: true, version: true } } } }),
        this.db.compositeStepRun.findMany({ where: { compositeRunId: { in: [...parents.keys()] } } }),
        this.db.executionArtifact.findMany({ where: { execution: { parentRunId: { in: [...parents.keys()] } } } }),
        this.db.$queryRaw<MicroDerivationInput[]>`
          SELECT pe."sourceId", pe."targetId", pe."runId", pe."kind"
          FROM "ProvenanceEdge" pe JOIN "Execution" e ON e."runId" = pe."runId"
          WHERE e."parentRunId" IN (${Prisma.join([...parents.keys()])})
          ORDER BY pe."id"`,
      ]);
      const stepNameOf = new Map(stepRuns.map((row) => [row.runId, row.step]));
      const levels = new Map([...expanded].map(([step, composite]) => [step, levelsOf(composite)] as const));
      for (const [step, level] of levels) depths.set(step, Math.max(1, ...level.values()));
      const drawnChildren = childRows.filter((row) => parents.has(row.parentRunId!));
      executions = [
        ...executions.filter((e) => !parents.has(e.execution.runId)),
        ...drawnChildren.map((row) => {
          const step = parents.get(row.parentRunId!)!;
          return { execution: toExecutionRecord(row), step, level: levels.get(step)?.get(stepNameOf.get(row.runId) ?? "") ?? 1, operationName: row.operation.name, operationVersion: row.operation.version };
        }),
      ];
      links = [
        ...links.filter((l) => !parents.has(l.runId)),
        ...childLinks.map((row) => ({ runId: row.runId as RunId, artifactId: row.artifactId as ArtifactId, direction: row.direction as LinkDirection, role: row.role, position: row.position })),
      ];
      derivations = [...derivations.filter((d) => !parents.has(d.runId)), ...childDerivations];
      const known = new Set(artifacts.map((a) => a.id as string));
      const missing = [...new Set(childLinks.map((l) => l.artifactId))].filter((id) => !known.has(id));
      if (missing.length > 0) artifacts = [...artifacts, ...(await this.db.artifact.findMany({ where: { id: { in: missing } } })).map(toArtifactRecord)].sort((a, b) => compareText(a.id, b.id));
    }
    const graph = buildMicroGraph({
      pipeline,
      upToStep,
      steps,
      executions: executions.sort((a, b) => a.step - b.step || (a.level ?? 1) - (b.level ?? 1) || compareText(a.execution.runId, b.execution.runId)),
      links,
      artifacts,
      derivations,
      depths,
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

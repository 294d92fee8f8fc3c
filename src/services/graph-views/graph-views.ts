import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { InvalidArgumentError, NotFoundError, ResultTooLargeError } from "../errors";
import type { ArtifactId, OperationId, RunId } from "../ids";
import { type LinkDirection, type OperationKind, toArtifactRecord, toExecutionRecord } from "../records";
import { compareText } from "./column-layout";
import { toDot } from "./dot";
import type { MacroGraph, MicroGraph } from "./layered-graph";
import { buildMacroGraph, type StepRole } from "./macro-graph";
import { buildMicroGraph, type MicroDerivationInput, type MicroExecutionInput } from "./micro-graph";
import { type ExpandedComposite, exposedOutputAliases, levelsOf } from "./composite-stages";
import { CompositeReader } from "../composites";
import { Prisma } from "../../generated/sqlite/client";
import { jobMacroGraph, jobMicroGraph } from "./job-graphs";
import type { JobName } from "./job-steps";
import { withLayout } from "./pipeline-layout";

export interface GraphViewOptions {
  /** Also render the graph as Graphviz DOT text (`dot`), else `dot` is null. */
  dot?: boolean;
  /** Draw each composite run (step) as the steps it ran, instead of as one step. */
  expandComposites?: boolean;
  /** The most nodes a graph may have (RESULT_MAX_NODES); a larger one is RESULT_TOO_LARGE, refused before it is laid out. */
  maxNodes?: number;
  /** Give every node a box and every edge a route (pipeline-layout.ts). */
  layout?: boolean;
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
    // Composite steps' definitions: to expand them, and to draw an EXPOSE composite's aliases of its outputs once.
    const composites = await this.expansions(steps.filter((s) => s.operation.kind === "COMPOSITE").map((s) => [s.step, s.operation.id] as const));
    const aliases = new Map([...composites].map(([step, composite]) => [step, exposedOutputAliases(composite)] as const));
    const graph = buildMacroGraph(pipeline, steps, flowRows, options.expandComposites ? composites : new Map(), aliases);
    if (options.maxNodes !== undefined && graph.nodes.length > options.maxNodes) throw new ResultTooLargeError(`the macro graph of ${pipeline}`, graph.nodes.length, options.maxNodes, "nodes", { field: "macroGraph" });
    return finish({ ...graph, dot: options.dot ? toDot(`macro graph of ${pipeline}`, graph) : null }, options);
  }

  /** The macro graph of an OpenLineage job: its child jobs as steps (job-steps.ts), over its latest `runs` runs. */
  async macroGraphOfJob(job: JobName, runs: number, options: GraphViewOptions = {}): Promise<MacroGraph> {
    return finish({ ...(await jobMacroGraph(this.db, job, runs, options)), job }, options);
  }

  /** The micro graph of an OpenLineage job: the runs of its child jobs at their steps (≤ upToStep), their artifacts and derivations. */
  async microGraphOfJob(job: JobName, runs: number, upToStep: number | null, options: GraphViewOptions = {}): Promise<MicroGraph> {
    return finish({ ...(await jobMicroGraph(this.db, job, runs, upToStep, options)), job }, options);
  }

  /** The definitions of the composites these steps run, as the graphs expand them (two statements). */
  private async expansions(steps: readonly (readonly [number, OperationId])[]): Promise<Map<number, ExpandedComposite>> {
    if (steps.length === 0) return new Map();
    const definitions = await this.composites.definitionsByIds(steps.map(([, id]) => id));
    const operationIds = [...new Set(definitions.flatMap((d) => d?.steps.map((s) => s.operationId) ?? []))];
    const operations = new Map((await inChunks(operationIds, (chunk) => this.db.operation.findMany({ where: { id: { in: chunk } } }))).map((o) => [o.id, o]));
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
    // Too many nodes to draw is known from the links, before the artifacts are read.
    const tooLarge = (nodes: number) =>
      new ResultTooLargeError(`the micro graph of ${pipeline}${upToStep === null ? "" : ` up to step ${upToStep}`}`, nodes, options.maxNodes!, "nodes", { field: "microGraph", argument: "upToStep" });
    const executionsRead = this.db.execution.findMany({ where: inPipeline, include: { operation: { select: { name: true, version: true, kind: true } } } });
    const [stepRows, executionRows, [linkRows, artifactRows], derivationRows] = await Promise.all([
      this.db.pipelineStep.findMany({ where: { pipeline }, select: { step: true }, orderBy: { step: "asc" } }),
      executionsRead,
      this.linksAndArtifacts(inPipeline, async (artifacts) => {
        const nodes = (await executionsRead).length + artifacts;
        if (options.maxNodes !== undefined && nodes > options.maxNodes) throw tooLarge(nodes);
      }),
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
      const parentIds = [...parents.keys()];
      const [childRows, stepRuns, childLinks, childEdges] = await Promise.all([
        inChunks(parentIds, (chunk) => this.db.execution.findMany({ where: { parentRunId: { in: chunk } }, include: { operation: { select: { name: true, version: true } } } })),
        inChunks(parentIds, (chunk) => this.db.compositeStepRun.findMany({ where: { compositeRunId: { in: chunk } } })),
        inChunks(parentIds, (chunk) => this.db.executionArtifact.findMany({ where: { execution: { parentRunId: { in: chunk } } } })),
        inChunks(parentIds, (chunk) =>
          this.db.$queryRaw<(MicroDerivationInput & { id: number })[]>`
            SELECT pe."id", pe."sourceId", pe."targetId", pe."runId", pe."kind"
            FROM "ProvenanceEdge" pe JOIN "Execution" e ON e."runId" = pe."runId"
            WHERE e."parentRunId" IN (${Prisma.join(chunk)})`,
        ),
      ]);
      // In recording order, whichever chunk an edge came from.
      const childDerivations: MicroDerivationInput[] = childEdges.sort((a, b) => Number(a.id) - Number(b.id)).map(({ id: _id, ...edge }) => edge);
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
      // The composite's own edges give way to its steps' — except where its steps recorded none into
      // an artifact (DISCARD keeps only the shortcuts): there they stay, drawn at the composite's step.
      const derivedByChildren = new Set(childDerivations.map((d) => d.targetId));
      derivations = [
        ...derivations.filter((d) => !parents.has(d.runId)),
        ...derivations.filter((d) => parents.has(d.runId) && !derivedByChildren.has(d.targetId)).map((d) => ({ ...d, step: parents.get(d.runId)! })),
        ...childDerivations,
      ];
      const known = new Set(artifacts.map((a) => a.id as string));
      const missing = [...new Set(childLinks.map((l) => l.artifactId))].filter((id) => !known.has(id));
      if (missing.length > 0) artifacts = [...artifacts, ...(await inChunks(missing, (chunk) => this.db.artifact.findMany({ where: { id: { in: chunk } } }))).map(toArtifactRecord)].sort((a, b) => compareText(a.id, b.id));
    }
    if (options.maxNodes !== undefined && executions.length + artifacts.length > options.maxNodes) throw tooLarge(executions.length + artifacts.length);
    // A frame before the first step shows what the first step reads.
    const firstStep = Math.min(...stepRows.map((row) => row.step), ...executionRows.map((row) => row.step!));
    const frameInputs =
      upToStep !== null && executionRows.length === 0 && Number.isFinite(firstStep) && upToStep < firstStep
        ? (await this.db.artifact.findMany({ where: { links: { some: { direction: "CONSUMED", execution: { pipeline, step: firstStep } } } }, orderBy: { id: "asc" } })).map(toArtifactRecord)
        : [];
    const graph = buildMicroGraph({
      pipeline,
      upToStep,
      steps,
      frameInputs,
      executions: executions.sort((a, b) => a.step - b.step || (a.level ?? 1) - (b.level ?? 1) || compareText(a.execution.runId, b.execution.runId)),
      links,
      artifacts,
      derivations,
      depths,
    });
    return finish({ ...graph, dot: options.dot ? toDot(`micro graph of ${pipeline}`, graph) : null }, options);
  }

  /**
   * The executions' links (ordered in memory by buildMicroGraph), then the artifacts they name, by
   * id. Read by the ids the links name rather than as "artifacts with a link in the pipeline": SQLite
   * plans that filter as a probe of every link of the pipeline per artifact, quadratic in the links.
   */
  private async linksAndArtifacts(inPipeline: Prisma.ExecutionWhereInput, check: (artifacts: number) => Promise<void>) {
    const links = await this.db.executionArtifact.findMany({ where: { execution: inPipeline } });
    const ids = [...new Set(links.map((link) => link.artifactId))];
    await check(ids.length);
    const artifacts = ids.length === 0 ? [] : await inChunks(ids, (chunk) => this.db.artifact.findMany({ where: { id: { in: chunk } } }));
    return [links, artifacts.sort((a, b) => compareText(a.id, b.id))] as const;
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

function finish<G extends MacroGraph | MicroGraph>(graph: G, options: GraphViewOptions): G {
  return options.layout ? withLayout(graph) : graph;
}

/** PipelineStep.inputRoles / outputRoles: JSON `[{ role, artifactType }]`. */
function parseRoles(text: string): StepRole[] {
  const parsed = JSON.parse(text) as unknown;
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((entry): entry is { role: unknown; artifactType?: unknown } => typeof entry === "object" && entry !== null && "role" in entry)
    .map((entry) => ({ role: String(entry.role), artifactType: entry.artifactType == null ? "" : String(entry.artifactType) }));
}

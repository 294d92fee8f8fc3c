import type { ArtifactId, RunId } from "../ids";
import type { ArtifactRecord, ExecutionRecord, LinkDirection } from "../records";
import { compareText, layOutColumns } from "./column-layout";
import { dataColumn, executionColumn, PIPELINE_INPUT_COLUMN } from "./column-rules";
import { stagesOf } from "./composite-stages";
import type { DraftEdge, DraftNode, MicroGraph, MicroGraphNode } from "./layered-graph";

export interface MicroExecutionInput {
  execution: ExecutionRecord;
  /** The pipeline step it is drawn at (a composite's step for the steps of an expanded composite run). */
  step: number;
  /** Within an expanded composite run: the level of the step it ran as (1 otherwise). */
  level?: number;
  operationName: string;
  operationVersion: string;
}

export interface MicroLinkInput {
  runId: RunId;
  artifactId: ArtifactId;
  direction: LinkDirection;
  role: string;
  position: number;
}

/** One ProvenanceEdge row: source (parent) → target (derived), recorded by runId. */
export interface MicroDerivationInput {
  sourceId: string;
  targetId: string;
  runId: string;
  kind: string;
  /** Drawn at this step when its run is not drawn itself (a composite run whose steps are drawn instead). */
  step?: number;
}

export interface MicroGraphInput {
  pipeline: string;
  upToStep: number | null;
  /** The pipeline's step numbers (≤ upToStep), ascending and distinct. */
  steps: readonly number[];
  /** The executions drawn, by step then runId. */
  executions: readonly MicroExecutionInput[];
  /** Their artifact links. */
  links: readonly MicroLinkInput[];
  artifacts: readonly ArtifactRecord[];
  /** Derivation edges recorded by those executions. */
  derivations: readonly MicroDerivationInput[];
  /** Levels per pipeline step that runs an expanded composite (one column pair each); 1 for other steps. */
  depths?: ReadonlyMap<number, number>;
  /** A frame before the first step: the artifacts the first step reads, drawn as pipeline inputs. */
  frameInputs?: readonly ArtifactRecord[];
}

/**
 * Seed rule: "Micro graphs show individual artifacts and executions. Every artifact and execution
 * record appears as its own node, with both execution edges (artifact-to-execution links) and
 * lineage edges (artifact-to-artifact derivations) overlaid."
 *
 * - an EXECUTION node per execution (key = runId) in its step's execution column;
 * - an ARTIFACT node per artifact (key = artifact id) in the data column of the first step that
 *   produced it (step = that step), or — produced by none of these executions — in column 0 as a
 *   pipeline input (step null). One node per artifact, however many steps re-emit it: that is what
 *   makes a passthrough's edges backward;
 * - USED (artifact → execution) and WAS_GENERATED_BY (execution → artifact) edges per link, with
 *   the role, at the execution's step;
 * - WAS_DERIVED_FROM (parent → derived) per ProvenanceEdge row recorded by one of these
 *   executions between two of these artifacts, with its derivation kind, at the recording step.
 *
 * The steps of an expanded composite run (expandComposites) are executions like the others, drawn
 * at their composite's step, a column pair per level of its wiring (`depths`, `level`).
 *
 * A frame before the first step (upToStep below it) draws what the first step reads (`frameInputs`)
 * in column 0: the replay starts from the pipeline's inputs, not from an empty page.
 */
export function buildMicroGraph(input: MicroGraphInput): Omit<MicroGraph, "dot"> {
  const { stages, indexOf } = stagesOf(input.steps, input.depths ?? new Map());
  const executions = new Map(input.executions.map((e) => [e.execution.runId as string, e]));
  const artifacts = new Map(input.artifacts.map((a) => [a.id as string, a]));
  const executionRank = new Map(input.executions.map((e, i) => [e.execution.runId as string, i]));
  const links = input.links
    .filter((link) => executions.has(link.runId) && artifacts.has(link.artifactId))
    .sort(
      (a, b) =>
        executionRank.get(a.runId)! - executionRank.get(b.runId)! ||
        compareText(a.direction, b.direction) ||
        compareText(a.role, b.role) ||
        a.position - b.position,
    );

  // Where each artifact first appears (drawing order) and the first stage (step, level) that produced it.
  const stageOf = (runId: string) => {
    const e = executions.get(runId)!;
    return indexOf(e.step, e.level);
  };
  const firstSeen = new Map<string, number>();
  const firstProducedAt = new Map<string, number>();
  links.forEach((link, i) => {
    if (!firstSeen.has(link.artifactId)) firstSeen.set(link.artifactId, i);
    if (link.direction !== "PRODUCED") return;
    const stage = stageOf(link.runId);
    const earliest = firstProducedAt.get(link.artifactId);
    if (earliest === undefined || stage < earliest) firstProducedAt.set(link.artifactId, stage);
  });

  const nodes: DraftNode<MicroGraphNode>[] = [];
  for (const { execution, step, level, operationName, operationVersion } of input.executions) {
    nodes.push({
      type: "EXECUTION",
      kind: "EXECUTION",
      key: execution.runId,
      label: operationName,
      column: executionColumn(indexOf(step, level)),
      step,
      execution,
      operationName,
      operationVersion,
    });
  }
  const drawnArtifacts = [...firstSeen.keys()].sort((a, b) => firstSeen.get(a)! - firstSeen.get(b)!);
  for (const id of drawnArtifacts) {
    const artifact = artifacts.get(id)!;
    const producedAt = firstProducedAt.get(id);
    nodes.push({
      type: "ARTIFACT",
      kind: "DATA",
      key: id,
      label: artifact.originalName,
      column: producedAt === undefined ? PIPELINE_INPUT_COLUMN : dataColumn(producedAt),
      step: producedAt === undefined ? null : stages[producedAt],
      artifact,
      pipelineInput: producedAt === undefined,
    });
  }

  for (const artifact of input.frameInputs ?? []) {
    if (firstSeen.has(artifact.id)) continue;
    firstSeen.set(artifact.id, firstSeen.size);
    nodes.push({ type: "ARTIFACT", kind: "DATA", key: artifact.id, label: artifact.originalName, column: PIPELINE_INPUT_COLUMN, step: null, artifact, pipelineInput: true });
  }

  const edges: DraftEdge[] = links.map((link) => {
    const step = executions.get(link.runId)!.step;
    return link.direction === "CONSUMED"
      ? { from: link.artifactId, to: link.runId, kind: "USED", role: link.role, derivation: null, step }
      : { from: link.runId, to: link.artifactId, kind: "WAS_GENERATED_BY", role: link.role, derivation: null, step };
  });
  for (const derivation of input.derivations) {
    const step = executions.get(derivation.runId)?.step ?? derivation.step;
    if (step === undefined || !firstSeen.has(derivation.sourceId) || !firstSeen.has(derivation.targetId)) continue;
    edges.push({
      from: derivation.sourceId,
      to: derivation.targetId,
      kind: "WAS_DERIVED_FROM",
      role: null,
      derivation: derivation.kind,
      step,
    });
  }

  return {
    pipeline: input.pipeline,
    upToStep: input.upToStep,
    steps: [...input.steps],
    ...layOutColumns<MicroGraphNode>(stages, nodes, edges),
  };
}

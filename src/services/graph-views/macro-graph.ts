import type { OperationId } from "../ids";
import type { OperationKind } from "../records";
import { compareText, layOutColumns } from "./column-layout";
import { dataColumn, executionColumn, PIPELINE_INPUT_COLUMN, stepIndexer } from "./column-rules";
import type { DraftEdge, DraftNode, MacroGraph, MacroGraphNode } from "./layered-graph";

/** A role as the steps table stores it (JSON `[{ role, artifactType }]`). */
export interface StepRole {
  role: string;
  artifactType: string;
}

/** One row of PipelineStep with its operation, roles parsed. */
export interface PipelineStepInput {
  step: number;
  operation: { id: OperationId; name: string; version: string; kind: OperationKind };
  inputRoles: StepRole[];
  outputRoles: StepRole[];
}

/** One row of PipelineFlow: `inputRole` of `step` was fed by `sourceRole` of `sourceStep`. */
export interface PipelineFlowInput {
  step: number;
  inputRole: string;
  sourceStep: number;
  sourceRole: string;
}

export const macroNodeKey = {
  step: (step: number) => `step:${step}`,
  output: (step: number, role: string) => `data:${step}:${role}`,
  input: (step: number, role: string) => `input:${step}:${role}`,
};

/**
 * Seed rule: "Macro graphs show the pipeline at the step level. Each step appears as an execution
 * node, each output role as a data node, and edges trace the data flow between steps … from the
 * steps table alone."
 *
 * - a PIPELINE_STEP node per step (`step:<n>`), in the step's execution column;
 * - a PIPELINE_ROLE node per output role of each step (`data:<n>:<role>`), in that step's data
 *   column, with an edge step → role (WAS_GENERATED_BY);
 * - an edge role → step (USED) per PipelineFlow row, carrying the consuming input role; a
 *   passthrough shows as two flows into one input role (from the producer and from the curator);
 * - an input role that no flow feeds (or whose flow names an output role no step declares) is a
 *   pipeline input: a PIPELINE_ROLE node `input:<n>:<role>` in column 0, step null, USED by its step.
 *
 * Steps must be given in ascending order of step number; flows may come in any order.
 */
export function buildMacroGraph(pipeline: string, steps: readonly PipelineStepInput[], flows: readonly PipelineFlowInput[]): Omit<MacroGraph, "dot"> {
  const stepNumbers = steps.map((s) => s.step);
  const indexOf = stepIndexer(stepNumbers);
  const nodes: DraftNode<MacroGraphNode>[] = [];
  const edges: DraftEdge[] = [];
  const keys = new Set<string>();
  /** Adds a role's data node once; false when the key is taken already. */
  const addRoleNode = (key: string, role: StepRole, column: number, step: number | null): boolean => {
    if (keys.has(key)) return false;
    keys.add(key);
    nodes.push({ type: "PIPELINE_ROLE", kind: "DATA", key, label: role.role, column, step, role: role.role, artifactType: role.artifactType, pipelineInput: step === null });
    return true;
  };

  for (const step of steps) {
    const i = indexOf(step.step);
    const stepKey = macroNodeKey.step(step.step);
    nodes.push({
      type: "PIPELINE_STEP",
      kind: "EXECUTION",
      key: stepKey,
      label: step.operation.name,
      column: executionColumn(i),
      step: step.step,
      operation: step.operation,
    });
    for (const output of step.outputRoles) {
      const key = macroNodeKey.output(step.step, output.role);
      if (!addRoleNode(key, output, dataColumn(i), step.step)) continue;
      edges.push({ from: stepKey, to: key, kind: "WAS_GENERATED_BY", role: output.role, derivation: null, step: step.step });
    }
  }

  const fedRoles = new Set<string>();
  const knownSteps = new Set(stepNumbers);
  const orderedFlows = [...flows].sort(
    (a, b) => a.step - b.step || compareText(a.inputRole, b.inputRole) || a.sourceStep - b.sourceStep || compareText(a.sourceRole, b.sourceRole),
  );
  for (const flow of orderedFlows) {
    const source = macroNodeKey.output(flow.sourceStep, flow.sourceRole);
    if (!knownSteps.has(flow.step) || !keys.has(source)) continue;
    fedRoles.add(`${flow.step}\u0000${flow.inputRole}`);
    edges.push({ from: source, to: macroNodeKey.step(flow.step), kind: "USED", role: flow.inputRole, derivation: null, step: flow.step });
  }

  for (const step of steps) {
    for (const input of step.inputRoles) {
      if (fedRoles.has(`${step.step}\u0000${input.role}`)) continue;
      const key = macroNodeKey.input(step.step, input.role);
      if (!addRoleNode(key, input, PIPELINE_INPUT_COLUMN, null)) continue;
      edges.push({ from: key, to: macroNodeKey.step(step.step), kind: "USED", role: input.role, derivation: null, step: step.step });
    }
  }

  return { pipeline, steps: stepNumbers, ...layOutColumns<MacroGraphNode>(stepNumbers, nodes, edges) };
}

import type { OperationId } from "../ids";

export const INTERMEDIATES_MODES = ["DISCARD", "PERSIST", "EXPOSE"] as const;
/**
 * What a composite run keeps of its intermediates (artifacts its steps produce that are not its outputs):
 * DISCARD nothing (no intermediate artifacts, no internal edges: only shortcut edges, the step executions
 * kept as the record of what ran); PERSIST everything, internal edges not step-boundary; EXPOSE
 * everything, and intermediates also outputs of the composite execution, with step-boundary shortcuts.
 */
export type IntermediatesMode = (typeof INTERMEDIATES_MODES)[number];

/** A composite as a client declares it (GraphQL RegisterCompositeInput). */
export interface CompositeDefinitionInput {
  name: string;
  version: string;
  inputs: { role: string; artifactType: string; required?: boolean | null }[];
  outputs: { role: string; artifactType: string }[];
  steps: { name: string; operation: string; operationVersion: string; when?: StepCondition | null }[];
  wires: { from: string; to: string }[];
  flags?: readonly string[] | null;
  intermediates: IntermediatesMode;
  allowUnsound?: boolean | null;
}

/** A conditional step runs only when the flag has this value. */
export interface StepCondition {
  flag: string;
  equals: boolean;
}

/** Where a wire takes artifacts from: a composite input role, or an output role of a step. */
export type WireSource = { kind: "input"; role: string } | { kind: "step"; step: string; role: string };
/** Where a wire delivers them: an input role of a step, or a composite output role. */
export type WireTarget = { kind: "step"; step: string; role: string } | { kind: "output"; role: string };

export interface Wire {
  /** As registered: `in.<role>` or `<step>.<output role>`. */
  from: string;
  /** As registered: `<step>.<input role>` or `out.<role>`. */
  to: string;
  source: WireSource;
  target: WireTarget;
}

/** A role of a step's operation, as the wiring sees it. */
export interface StepRole {
  role: string;
  artifactType: string;
  required: boolean;
  /** Outputs: generative ({inputs: []}), so an artifact of it derives from nothing. */
  generative: boolean;
}

export interface CompositeStep {
  name: string;
  operation: string;
  operationVersion: string;
  operationId: OperationId;
  when: StepCondition | null;
  inputs: StepRole[];
  outputs: StepRole[];
}

/** A registered composite, its wiring normalised (roles, steps and wires in the order declared). */
export interface CompositeDefinition {
  id: OperationId;
  name: string;
  version: string;
  inputs: { role: string; artifactType: string; required: boolean }[];
  outputs: { role: string; artifactType: string }[];
  steps: CompositeStep[];
  wires: Wire[];
  flags: string[];
  intermediates: IntermediatesMode;
  allowUnsound: boolean;
  sound: boolean;
  createdAt: Date;
}

/** The role an EXPOSE composite lists an intermediate in: the step's name and its output role. */
export function exposedRoleOf(step: string, role: string): string {
  return `${step}.${role}`;
}

/** `in.x` / `out.x` / `<step>.<role>`: the part before the first dot and the rest. */
export function splitWireEnd(end: string): { head: string; role: string } | undefined {
  const dot = end.indexOf(".");
  if (dot <= 0 || dot === end.length - 1) return undefined;
  return { head: end.slice(0, dot), role: end.slice(dot + 1) };
}

/** The steps that feed each step (through wires), by name. */
export function feedersOf(definition: Pick<CompositeDefinition, "wires">): Map<string, Set<string>> {
  const feeders = new Map<string, Set<string>>();
  for (const wire of definition.wires) {
    if (wire.target.kind !== "step" || wire.source.kind !== "step") continue;
    const set = feeders.get(wire.target.step) ?? new Set<string>();
    set.add(wire.source.step);
    feeders.set(wire.target.step, set);
  }
  return feeders;
}

/** Whether a step runs under these flag values (an unconditional step always does). */
export function isActive(step: Pick<CompositeStep, "when">, flags: Readonly<Record<string, boolean>>): boolean {
  return step.when === null || flags[step.when.flag] === step.when.equals;
}

import type { OperationId } from "../ids";
import type { OperationKind } from "../records";
import { stepIndexer } from "./column-rules";

/** A composite as the graphs expand it: its steps, their roles and its wiring (from its definition). */
export interface ExpandedComposite {
  steps: { name: string; operation: { id: OperationId; name: string; version: string; kind: OperationKind }; inputRoles: string[]; outputRoles: { role: string; artifactType: string }[] }[];
  wires: { source: { kind: "input"; role: string } | { kind: "step"; step: string; role: string }; target: { kind: "step"; step: string; role: string } | { kind: "output"; role: string } }[];
}

/**
 * The level of each step of a composite: 1 for a step fed by composite inputs alone, else one more
 * than the highest level of the steps feeding it. An expanded composite takes one execution column
 * and one data column per level, all at the pipeline step it ran as.
 */
export function levelsOf(composite: ExpandedComposite): Map<string, number> {
  const levels = new Map<string, number>();
  const level = (step: string, seen: Set<string>): number => {
    const known = levels.get(step);
    if (known !== undefined) return known;
    if (seen.has(step)) return 1; // registration refuses cycles; stay finite anyway
    seen.add(step);
    const feeders = composite.wires.flatMap((w) => (w.target.kind === "step" && w.target.step === step && w.source.kind === "step" ? [w.source.step] : []));
    const value = 1 + Math.max(0, ...feeders.map((f) => level(f, seen)));
    levels.set(step, value);
    return value;
  };
  for (const step of composite.steps) level(step.name, new Set());
  return levels;
}

/**
 * Columns come in stages: one per pipeline step, or one per level of an expanded composite's steps.
 * `stages` lists the pipeline step of each stage, in column order (what layOutColumns lays out);
 * `indexOf(step, level)` is the 0-based stage of a step (level 1 for a step that is not expanded).
 */
export function stagesOf(steps: readonly number[], depths: ReadonlyMap<number, number>): { stages: number[]; indexOf: (step: number, level?: number) => number } {
  const stepIndex = stepIndexer(steps);
  const first: number[] = [];
  const stages: number[] = [];
  for (const step of steps) {
    first.push(stages.length);
    for (let level = 1; level <= (depths.get(step) ?? 1); level++) stages.push(step);
  }
  return { stages, indexOf: (step, level = 1) => first[stepIndex(step)] + Math.min(level, depths.get(step) ?? 1) - 1 };
}

/**
 * An EXPOSE composite lists every step output as a role `<step>.<role>`; an intermediate that is
 * wired to a composite output is that output (it is recorded under the output's role, never under
 * its own), so the graphs draw the two names as one node: `<step>.<role>` → the output role.
 */
export function exposedOutputAliases(composite: ExpandedComposite): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const wire of composite.wires) {
    if (wire.source.kind === "step" && wire.target.kind === "output" && !aliases.has(`${wire.source.step}.${wire.source.role}`)) {
      aliases.set(`${wire.source.step}.${wire.source.role}`, wire.target.role);
    }
  }
  return aliases;
}

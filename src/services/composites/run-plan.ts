import type { RecordExecutionRequest } from "../recording";
import type { ExecutionStatus } from "../records";
import { type CompositeDefinition, type CompositeStep, feedersOf, isActive } from "./definition";
import { CompositeExecutionError } from "./errors";

/** One step of a composite run as the pipeline reports it; its inputs follow from the wires. */
export interface CompositeStepRunRequest {
  step: string;
  params?: unknown;
  outputs: RecordExecutionRequest["outputs"];
  lineage?: RecordExecutionRequest["lineage"];
  status?: ExecutionStatus | null;
  startedAt?: Date | null;
  endedAt?: Date | null;
  pins?: RecordExecutionRequest["pins"];
}

export interface PlannedStep {
  definition: CompositeStep;
  run: CompositeStepRunRequest;
  /** Its position in the request's `steps` (for error fields). */
  index: number;
}

/**
 * Every declared flag with its value for this run: `flags` is a JSON object of booleans naming
 * declared flags; a flag left out is false.
 */
export function flagValuesOf(definition: Pick<CompositeDefinition, "flags">, flags: unknown): Record<string, boolean> {
  if (flags !== null && flags !== undefined && (typeof flags !== "object" || Array.isArray(flags))) {
    throw new CompositeExecutionError("flags must be a JSON object of booleans, e.g. {\"dryRun\": true}", { rule: "INVALID_FLAGS", candidates: definition.flags });
  }
  const given = (flags ?? {}) as Record<string, unknown>;
  for (const [flag, value] of Object.entries(given)) {
    if (!definition.flags.includes(flag)) throw new CompositeExecutionError(`flag '${flag}' is not declared by the composite`, { rule: "UNKNOWN_FLAG", candidates: definition.flags });
    if (typeof value !== "boolean") throw new CompositeExecutionError(`flag '${flag}' must be true or false, got ${JSON.stringify(value)}`, { rule: "FLAG_NOT_BOOLEAN", candidates: [flag] });
  }
  return Object.fromEntries(definition.flags.map((flag) => [flag, given[flag] === true]));
}

/**
 * The reported steps in the order they ran, checked against the definition: each names a declared
 * step, once; only steps whose condition holds under the flags ran; a step ran after every step that
 * feeds it (and runs under these flags) — its inputs are what those steps produced.
 */
export function planSteps(definition: CompositeDefinition, flags: Readonly<Record<string, boolean>>, steps: readonly CompositeStepRunRequest[]): PlannedStep[] {
  if (steps.length === 0) throw new CompositeExecutionError("a composite run reports the steps that ran; none are given", { rule: "NO_STEPS", candidates: definition.steps.map((s) => s.name) });
  const byName = new Map(definition.steps.map((s) => [s.name, s]));
  const feeders = feedersOf(definition);
  const ran = new Set<string>();
  return steps.map((run, index) => {
    const step = byName.get(run.step);
    if (!step) throw new CompositeExecutionError(`steps[${index}]: the composite has no step '${run.step}'`, { rule: "UNKNOWN_STEP", step: run.step, candidates: [...byName.keys()] });
    if (ran.has(step.name)) throw new CompositeExecutionError(`steps[${index}]: step '${step.name}' is reported twice`, { rule: "DUPLICATE_STEP", step: step.name });
    if (!isActive(step, flags)) {
      throw new CompositeExecutionError(`steps[${index}]: step '${step.name}' runs only when flag '${step.when!.flag}' is ${step.when!.equals}, and it is ${flags[step.when!.flag]} in this run`, {
        rule: "STEP_NOT_ACTIVE",
        step: step.name,
        candidates: [step.when!.flag],
      });
    }
    const waiting = [...(feeders.get(step.name) ?? [])].filter((feeder) => isActive(byName.get(feeder)!, flags) && !ran.has(feeder));
    if (waiting.length > 0) {
      throw new CompositeExecutionError(`steps[${index}]: step '${step.name}' takes what ${waiting.map((s) => `'${s}'`).join(", ")} produce${waiting.length > 1 ? "" : "s"}, which must be reported before it`, {
        rule: "STEP_ORDER",
        step: step.name,
        candidates: waiting,
      });
    }
    ran.add(step.name);
    return { definition: step, run, index };
  });
}

/**
 * A composite run's status, from its steps': FAILED if one failed, else ABORTED if one was aborted,
 * else COMPLETED when every step that runs under the flags completed, else RUNNING.
 */
export function compositeStatusOf(definition: CompositeDefinition, flags: Readonly<Record<string, boolean>>, planned: readonly PlannedStep[]): ExecutionStatus {
  const statuses = planned.map((p) => p.run.status ?? "COMPLETED");
  if (statuses.includes("FAILED")) return "FAILED";
  if (statuses.includes("ABORTED")) return "ABORTED";
  const active = definition.steps.filter((s) => isActive(s, flags)).length;
  return statuses.every((s) => s === "COMPLETED") && planned.length === active ? "COMPLETED" : "RUNNING";
}

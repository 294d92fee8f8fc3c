import { CONFIG_INPUT_ROLE } from "../../../plugins/types";
import { operationIdFor } from "../ids";
import type { OperationRecord } from "../records";
import { brokenNameRule } from "../safe-text";
import { type CompositeDefinition, type CompositeDefinitionInput, type CompositeStep, exposedRoleOf, INTERMEDIATES_MODES, splitWireEnd, type Wire, type WireSource, type WireTarget } from "./definition";
import { type CompositeViolation, CompositeDeclarationError } from "./errors";
import { MAX_FLAGS } from "./soundness";
import { FINISH_TRANSITION, START_TRANSITION } from "./workflow-net";

export type NormalisedDefinition = Omit<CompositeDefinition, "sound" | "createdAt">;

/**
 * Issue 9, "Registration, validated": roles and names well formed; every step's operation registered
 * (and not itself a composite); every wire connects existing roles of matching artifact types, from a
 * composite input or a step output to a step input or a composite output; no step feeds itself or
 * forms a cycle; every required input of every step and every composite output is fed. Several wires
 * may feed one role (two alternative, conditional steps; whether both can deliver at once is the
 * soundness check's business). `operations` finds the registered operations the steps name.
 */
export function validateDefinition(input: CompositeDefinitionInput, operations: ReadonlyMap<string, OperationRecord>): NormalisedDefinition {
  const where = `${input.name}@${input.version}`;
  const fail = (message: string, violation: CompositeViolation): never => {
    throw new CompositeDeclarationError(`composite ${where}: ${message}`, violation);
  };
  const text = (what: string, value: string, violation: Omit<CompositeViolation, "rule"> = {}, emptyRule = "EMPTY_NAME") => {
    if (!value.trim()) fail(`${what} is empty`, { rule: emptyRule, ...violation });
    const broken = brokenNameRule(value);
    if (broken) fail(`${what} ${broken.reason}`, { rule: broken.rule, ...violation });
  };
  text("the composite name", input.name);
  text("the version", input.version);
  if (!INTERMEDIATES_MODES.includes(input.intermediates)) fail(`intermediates must be one of ${INTERMEDIATES_MODES.join(", ")}`, { rule: "UNKNOWN_INTERMEDIATES" });

  for (const [roles, side] of [
    [input.inputs, "input"],
    [input.outputs, "output"],
  ] as const) {
    const names = roles.map((r) => r.role);
    for (const role of roles) {
      text(`a composite ${side} role name`, role.role, { role: role.role }, "EMPTY_ROLE");
      text(`the artifact type of composite ${side} role '${role.role}'`, role.artifactType, { role: role.role }, "EMPTY_ARTIFACT_TYPE");
      if (role.role.startsWith("$")) fail(`composite ${side} role '${role.role}' starts with '$', which is reserved (e.g. ${CONFIG_INPUT_ROLE})`, { rule: "RESERVED_ROLE", role: role.role });
    }
    const repeated = names.find((name, i) => names.indexOf(name) !== i);
    if (repeated !== undefined) fail(`composite ${side} role '${repeated}' is declared twice`, { rule: "DUPLICATE_ROLE", role: repeated });
  }
  if (input.outputs.length === 0) fail("a composite declares at least one output role", { rule: "NO_OUTPUTS" });
  if (input.steps.length === 0) fail("a composite has at least one step", { rule: "NO_STEPS" });

  const flags = [...(input.flags ?? [])];
  for (const flag of flags) text("a flag name", flag);
  const repeatedFlag = flags.find((flag, i) => flags.indexOf(flag) !== i);
  if (repeatedFlag !== undefined) fail(`flag '${repeatedFlag}' is declared twice`, { rule: "DUPLICATE_FLAG", candidates: [repeatedFlag] });
  if (flags.length > MAX_FLAGS) fail(`at most ${MAX_FLAGS} flags (every combination of their values is checked), got ${flags.length}`, { rule: "TOO_MANY_FLAGS", candidates: flags });

  const steps: CompositeStep[] = [];
  for (const step of input.steps) {
    text("a step name", step.name, { step: step.name });
    if (step.name === START_TRANSITION || step.name === FINISH_TRANSITION || step.name.includes(".")) {
      fail(`step name '${step.name}' is reserved or contains '.' (wires read 'in.<role>', '<step>.<role>', 'out.<role>')`, { rule: "RESERVED_STEP_NAME", step: step.name });
    }
    if (steps.some((s) => s.name === step.name)) fail(`step '${step.name}' is declared twice`, { rule: "DUPLICATE_STEP", step: step.name });
    const operation = operations.get(`${step.operation}\u0000${step.operationVersion}`);
    if (!operation) fail(`step '${step.name}' runs ${step.operation}@${step.operationVersion}, which is not registered`, { rule: "UNKNOWN_OPERATION", step: step.name, candidates: [`${step.operation}@${step.operationVersion}`] });
    if (operation!.kind === "COMPOSITE") fail(`step '${step.name}' runs the composite ${step.operation}@${step.operationVersion}; composites do not nest`, { rule: "NESTED_COMPOSITE", step: step.name });
    if (step.when && !flags.includes(step.when.flag)) fail(`step '${step.name}' runs when flag '${step.when.flag}', which is not declared`, { rule: "UNKNOWN_FLAG", step: step.name, candidates: flags });
    steps.push({
      name: step.name,
      operation: step.operation,
      operationVersion: step.operationVersion,
      operationId: operationIdFor(step.operation, step.operationVersion),
      when: step.when ? { flag: step.when.flag, equals: step.when.equals } : null,
      inputs: operation!.inputs.map((r) => ({ role: r.role, artifactType: r.artifactType, required: r.required, generative: false })),
      outputs: operation!.outputs.map((r) => ({ role: r.role, artifactType: r.artifactType, required: r.required, generative: r.inferLineageFrom?.from === "INPUTS" && r.inferLineageFrom.roles.length === 0 })),
    });
  }
  const stepNamed = new Map(steps.map((s) => [s.name, s]));

  const wires: Wire[] = [];
  for (const { from, to } of input.wires) {
    const label = `${from} → ${to}`;
    const bad = (message: string, rule: string, extra: Omit<CompositeViolation, "rule" | "wire"> = {}): never => fail(`wire ${label}: ${message}`, { rule, wire: label, ...extra });
    const source = splitWireEnd(from);
    const target = splitWireEnd(to);
    if (!source || source.head === FINISH_TRANSITION) bad(`'from' must be 'in.<composite input role>' or '<step>.<output role>'`, "BAD_WIRE_END");
    if (!target || target.head === START_TRANSITION) bad(`'to' must be '<step>.<input role>' or 'out.<composite output role>'`, "BAD_WIRE_END");
    const sourceOf = (end: { head: string; role: string }): [WireSource, string] => {
      if (end.head === START_TRANSITION) {
        const role = input.inputs.find((r) => r.role === end.role);
        if (!role) bad(`the composite has no input role '${end.role}'`, "UNKNOWN_ROLE", { role: end.role, candidates: input.inputs.map((r) => r.role) });
        return [{ kind: "input", role: end.role }, role!.artifactType];
      }
      const step = stepNamed.get(end.head);
      if (!step) bad(`there is no step '${end.head}'`, "UNKNOWN_STEP", { step: end.head, candidates: steps.map((s) => s.name) });
      const role = step!.outputs.find((r) => r.role === end.role);
      if (!role) bad(`step '${step!.name}' (${step!.operation}@${step!.operationVersion}) has no output role '${end.role}'`, "UNKNOWN_ROLE", { step: step!.name, role: end.role, candidates: step!.outputs.map((r) => r.role) });
      return [{ kind: "step", step: step!.name, role: end.role }, role!.artifactType];
    };
    const targetOf = (end: { head: string; role: string }, from: WireSource): [WireTarget, string] => {
      if (end.head === FINISH_TRANSITION) {
        const role = input.outputs.find((r) => r.role === end.role);
        if (!role) bad(`the composite has no output role '${end.role}'`, "UNKNOWN_ROLE", { role: end.role, candidates: input.outputs.map((r) => r.role) });
        if (from.kind === "input") bad("a composite output comes from a step, not straight from a composite input", "PASSTHROUGH_WIRE", { role: end.role });
        return [{ kind: "output", role: end.role }, role!.artifactType];
      }
      const step = stepNamed.get(end.head);
      if (!step) bad(`there is no step '${end.head}'`, "UNKNOWN_STEP", { step: end.head, candidates: steps.map((s) => s.name) });
      const role = step!.inputs.find((r) => r.role === end.role);
      if (!role) bad(`step '${step!.name}' (${step!.operation}@${step!.operationVersion}) has no input role '${end.role}'`, "UNKNOWN_ROLE", { step: step!.name, role: end.role, candidates: step!.inputs.map((r) => r.role) });
      if (from.kind === "step" && from.step === step!.name) bad(`step '${step!.name}' feeds itself`, "SELF_LOOP", { step: step!.name });
      return [{ kind: "step", step: step!.name, role: end.role }, role!.artifactType];
    };
    const [wireSource, sourceType] = sourceOf(source!);
    const [wireTarget, targetType] = targetOf(target!, wireSource);
    const wire: Wire = { from, to, source: wireSource, target: wireTarget };
    if (sourceType !== targetType) bad(`'${from}' holds ${sourceType} artifacts, '${to}' takes ${targetType}`, "TYPE_MISMATCH", { candidates: [sourceType, targetType] });
    if (wires.some((w) => w.from === from && w.to === to)) bad("is declared twice", "DUPLICATE_WIRE");
    wires.push(wire);
  }

  assertNoCycle(steps, wires, fail);
  for (const step of steps) {
    for (const role of step.inputs) {
      if (role.required && !wires.some((w) => w.target.kind === "step" && w.target.step === step.name && w.target.role === role.role)) {
        fail(`required input role '${role.role}' of step '${step.name}' is fed by no wire`, { rule: "UNFED_INPUT", step: step.name, role: role.role });
      }
    }
  }
  for (const output of input.outputs) {
    if (!wires.some((w) => w.target.kind === "output" && w.target.role === output.role)) fail(`composite output role '${output.role}' is fed by no wire`, { rule: "UNFED_OUTPUT", role: output.role });
  }

  if (input.intermediates === "EXPOSE") {
    const exposed = steps.flatMap((s) => s.outputs.map((o) => exposedRoleOf(s.name, o.role)));
    const clash = input.outputs.find((o) => exposed.includes(o.role));
    if (clash) fail(`composite output role '${clash.role}' is also the role EXPOSE lists that step output in; rename it`, { rule: "DUPLICATE_ROLE", role: clash.role });
  }
  return {
    id: operationIdFor(input.name, input.version),
    name: input.name,
    version: input.version,
    inputs: input.inputs.map((r) => ({ role: r.role, artifactType: r.artifactType, required: r.required ?? true })),
    outputs: input.outputs.map((r) => ({ role: r.role, artifactType: r.artifactType })),
    steps,
    wires,
    flags,
    intermediates: input.intermediates,
    allowUnsound: input.allowUnsound ?? false,
  };
}

/** Steps wired in a loop (a → b → a) can never run: refused, naming the loop. */
function assertNoCycle(steps: CompositeStep[], wires: Wire[], fail: (message: string, violation: CompositeViolation) => never): void {
  const next = new Map(steps.map((s) => [s.name, [] as string[]]));
  for (const wire of wires) if (wire.source.kind === "step" && wire.target.kind === "step") next.get(wire.source.step)!.push(wire.target.step);
  const state = new Map<string, "visiting" | "done">();
  const visit = (step: string, path: string[]): void => {
    if (state.get(step) === "done") return;
    if (state.get(step) === "visiting") {
      const loop = [...path.slice(path.indexOf(step)), step];
      fail(`steps feed each other in a cycle: ${loop.join(" → ")}`, { rule: "CYCLE", step, candidates: loop.slice(0, -1) });
    }
    state.set(step, "visiting");
    for (const n of next.get(step)!) visit(n, [...path, step]);
    state.set(step, "done");
  };
  for (const step of steps) visit(step.name, []);
}

/** The wiring as stored: what identifies the definition (allowUnsound is not part of it). */
export function storedDefinitionOf(definition: NormalisedDefinition): unknown {
  return {
    inputs: definition.inputs,
    outputs: definition.outputs,
    steps: definition.steps.map((s) => ({ name: s.name, operation: s.operation, operationVersion: s.operationVersion, when: s.when })),
    wires: definition.wires.map((w) => ({ from: w.from, to: w.to })),
    flags: definition.flags,
    intermediates: definition.intermediates,
  };
}

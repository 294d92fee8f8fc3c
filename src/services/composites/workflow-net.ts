import { type CompositeDefinition, isActive } from "./definition";

/** The part of a composite the workflow net is built from. */
export type NetDefinition = Pick<CompositeDefinition, "steps" | "wires" | "outputs" | "flags">;

export const SOURCE_PLACE = "source";
export const SINK_PLACE = "sink";
/** The transitions that start and finish a run; step names may not take these names. */
export const START_TRANSITION = "in";
export const FINISH_TRANSITION = "out";

export interface Transition {
  name: string;
  /** Places it takes one token from each. */
  consumes: string[];
  /** Places it puts one token into each. */
  produces: string[];
}

export interface WorkflowNet {
  places: string[];
  transitions: Transition[];
  /** Steps not in the net: their condition does not hold under these flags. */
  inactiveSteps: string[];
}

/**
 * The composite as a workflow net under one combination of flag values (the model, after van
 * der Aalst): a place per role end a wire delivers to (`<step>.<input role>`, `out.<role>`; wires into
 * one role share its place, so two steps feeding one role put two tokens there), a source place, a
 * sink place; transition `in` takes the source and feeds the places the composite inputs are wired
 * to; a transition per step takes one token from each of its input places and puts one into each place
 * its outputs are wired to; transition `out` takes one token from each composite output place and
 * marks the sink.
 *
 * A conditional step whose condition does not hold is left out, and so are the wires into and out of
 * it (nothing is delivered to a step that does not run). An optional input role all of whose feeders
 * are left out is not waited for; a required one still is (so the step can never fire: dead). A step
 * with nothing to wait for is started by `in` through a place `<step>.ready`, so it fires once; a step
 * whose outputs deliver nowhere marks a place `<step>.done` that `out` waits for, so every node is on a
 * path from the source to the sink (a workflow net) and a run completes only when all its steps have.
 */
export function workflowNetOf(definition: NetDefinition, flags: Readonly<Record<string, boolean>>): WorkflowNet {
  const active = new Set(definition.steps.filter((step) => isActive(step, flags)).map((step) => step.name));
  const delivers = (wire: NetDefinition["wires"][number]) =>
    (wire.source.kind === "input" || active.has(wire.source.step)) && (wire.target.kind === "output" || active.has(wire.target.step));
  const placeOf = (target: NetDefinition["wires"][number]["target"]) => (target.kind === "output" ? `out.${target.role}` : `${target.step}.${target.role}`);
  const places = new Set<string>([SOURCE_PLACE]);
  const start: Transition = { name: START_TRANSITION, consumes: [SOURCE_PLACE], produces: [] };
  const transitions: Transition[] = [start];
  const produceInto = (transition: Transition, place: string) => {
    places.add(place);
    if (!transition.produces.includes(place)) transition.produces.push(place);
  };

  const stepTransitions = new Map<string, Transition>();
  for (const step of definition.steps) {
    if (!active.has(step.name)) continue;
    const transition: Transition = { name: step.name, consumes: [], produces: [] };
    for (const role of step.inputs) {
      const wires = definition.wires.filter((w) => w.target.kind === "step" && w.target.step === step.name && w.target.role === role.role);
      if (wires.length === 0) continue; // unfed optional roles (unfed required ones are refused at registration)
      if (!wires.some(delivers) && !role.required) continue;
      const place = `${step.name}.${role.role}`;
      places.add(place);
      transition.consumes.push(place);
    }
    if (transition.consumes.length === 0) {
      const ready = `${step.name}.ready`;
      transition.consumes.push(ready);
      produceInto(start, ready);
    }
    stepTransitions.set(step.name, transition);
    transitions.push(transition);
  }
  for (const wire of definition.wires) {
    if (!delivers(wire)) continue;
    produceInto(wire.source.kind === "input" ? start : stepTransitions.get(wire.source.step)!, placeOf(wire.target));
  }
  const finish: Transition = { name: FINISH_TRANSITION, consumes: definition.outputs.map((o) => `out.${o.role}`), produces: [SINK_PLACE] };
  for (const transition of stepTransitions.values()) {
    if (transition.produces.length > 0) continue;
    const done = `${transition.name}.done`;
    produceInto(transition, done);
    finish.consumes.push(done);
  }
  for (const place of finish.consumes) places.add(place);
  places.add(SINK_PLACE);
  transitions.push(finish);
  return { places: [...places], transitions, inactiveSteps: definition.steps.filter((step) => !active.has(step.name)).map((step) => step.name) };
}

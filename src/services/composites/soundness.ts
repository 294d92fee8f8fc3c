import { FINISH_TRANSITION, type NetDefinition, SINK_PLACE, SOURCE_PLACE, START_TRANSITION, type WorkflowNet, workflowNetOf } from "./workflow-net";

/** The most markings explored per flag combination; beyond it the answer for that combination is inconclusive. */
export const MARKING_BOUND = 10_000;
/** The most markings explored over all combinations of one check (so a check stays well under seconds). */
export const TOTAL_MARKING_BUDGET = 200_000;
/** The most flags a composite may declare (2^10 combinations are checked). */
export const MAX_FLAGS = 10;

export interface PlaceTokens {
  place: string;
  tokens: number;
}

/** How a property fails: the transitions fired from the initial marking, and the marking they reach. */
export interface SoundnessWitness {
  firingSequence: string[];
  marking: PlaceTokens[];
  /** The marked places besides one token in the sink: what is left over (or stuck). */
  leftoverPlaces: string[];
}

export interface CombinationSoundness {
  flags: { flag: string; value: boolean }[];
  inactiveSteps: string[];
  /** From every reachable marking, one marking the sink is reachable. */
  optionToComplete: boolean;
  /** A reachable marking the sink cannot be reached from (a deadlock when nothing is enabled there). */
  optionToCompleteWitness: SoundnessWitness | null;
  /** Whenever the sink is marked, nothing else is (one token, no leftovers). */
  properCompletion: boolean;
  properCompletionWitness: SoundnessWitness | null;
  /** Every step of the net fires in some run. */
  noDeadTransitions: boolean;
  deadSteps: string[];
  markingsExplored: number;
  /** The exploration stopped at MARKING_BOUND: the booleans describe the explored part only. */
  boundHit: boolean;
  sound: boolean;
}

export interface WorkflowSoundness {
  /** Every combination sound and fully explored. */
  sound: boolean;
  /** The most markings explored per combination (and TOTAL_MARKING_BUDGET over all of them). */
  bound: number;
  boundHit: boolean;
  combinations: CombinationSoundness[];
}

/** Classical workflow-net soundness (van der Aalst; as Woflan and ProM check it) for every combination of flag values. */
export function checkSoundness(definition: NetDefinition, bound = MARKING_BOUND, total = TOTAL_MARKING_BUDGET): WorkflowSoundness {
  const combinations: CombinationSoundness[] = [];
  let budget = total;
  for (let mask = 0; mask < 2 ** definition.flags.length; mask++) {
    // Flags in declared order, the first one the most significant: all false first.
    const values = definition.flags.map((flag, i) => ({ flag, value: (mask & (1 << (definition.flags.length - 1 - i))) !== 0 }));
    const flags = Object.fromEntries(values.map(({ flag, value }) => [flag, value]));
    // Once the total budget is spent, the remaining combinations are explored no further than their initial marking.
    const checked = checkNet(workflowNetOf(definition, flags), Math.max(1, Math.min(bound, budget)));
    budget -= checked.markingsExplored;
    combinations.push({ flags: values, ...checked });
  }
  return {
    sound: combinations.every((c) => c.sound),
    bound,
    boundHit: combinations.some((c) => c.boundHit),
    combinations,
  };
}

/**
 * Explores the reachable markings breadth first (so every witness is a shortest firing sequence),
 * then decides the three properties over the reachability graph.
 */
export function checkNet(net: WorkflowNet, bound: number): Omit<CombinationSoundness, "flags"> {
  const index = new Map(net.places.map((place, i) => [place, i]));
  const transitions = net.transitions.map((t) => ({ name: t.name, consumes: t.consumes.map((p) => index.get(p)!), produces: t.produces.map((p) => index.get(p)!) }));
  const sink = index.get(SINK_PLACE)!;
  const initial = net.places.map((place) => (place === SOURCE_PLACE ? 1 : 0));
  const markings: number[][] = [initial];
  const parent: { from: number; via: string }[] = [{ from: -1, via: "" }];
  const successors: number[][] = [];
  const seen = new Map<string, number>([[initial.join(","), 0]]);
  const fired = new Set<string>();
  const truncated = new Set<number>();
  for (let m = 0; m < markings.length; m++) {
    successors[m] = [];
    const marking = markings[m];
    for (const t of transitions) {
      if (!t.consumes.every((p) => marking[p] > 0)) continue;
      fired.add(t.name);
      const next = [...marking];
      for (const p of t.consumes) next[p] -= 1;
      for (const p of t.produces) next[p] += 1;
      const key = next.join(",");
      let n = seen.get(key);
      if (n === undefined) {
        if (markings.length >= bound) {
          truncated.add(m);
          continue;
        }
        n = markings.length;
        seen.set(key, n);
        markings.push(next);
        parent.push({ from: m, via: t.name });
      }
      successors[m].push(n);
    }
  }

  const boundHit = truncated.size > 0;
  // Option to complete: backwards from the markings with the sink marked. A marking whose successors
  // the bound cut off counts as able to complete (the report says the bound was hit).
  const canComplete = markings.map((marking, m) => marking[sink] > 0 || truncated.has(m));
  for (let changed = true; changed; ) {
    changed = false;
    for (let m = markings.length - 1; m >= 0; m--) {
      if (!canComplete[m] && successors[m].some((n) => canComplete[n])) canComplete[m] = changed = true;
    }
  }
  const stuck = markings.map((_, m) => m).filter((m) => !canComplete[m]);
  // The witness: the nearest deadlock (nothing enabled) when there is one, else the nearest stuck marking.
  const deadlock = stuck.find((m) => successors[m].length === 0 && !truncated.has(m)) ?? stuck[0];
  // The witness: the nearest run that ended improperly (nothing enabled: what is left when it is over), else the nearest improper marking.
  const improperAt = markings.map((_, m) => m).filter((m) => markings[m][sink] > 0 && markings[m].some((tokens, p) => (p === sink ? tokens > 1 : tokens > 0)));
  const improper = improperAt.find((m) => successors[m].length === 0 && !truncated.has(m)) ?? improperAt[0] ?? -1;

  const witness = (m: number): SoundnessWitness => {
    const sequence: string[] = [];
    for (let at = m; parent[at].from !== -1; at = parent[at].from) sequence.unshift(parent[at].via);
    const marking = markings[m].flatMap((tokens, p) => (tokens > 0 ? [{ place: net.places[p], tokens }] : []));
    const leftoverPlaces = marking.filter(({ place, tokens }) => place !== SINK_PLACE || tokens > 1).map(({ place }) => place);
    return { firingSequence: sequence, marking, leftoverPlaces };
  };
  const deadSteps = net.transitions.map((t) => t.name).filter((name) => name !== START_TRANSITION && name !== FINISH_TRANSITION && !fired.has(name));
  const result = {
    inactiveSteps: net.inactiveSteps,
    optionToComplete: deadlock === undefined,
    optionToCompleteWitness: deadlock === undefined ? null : witness(deadlock),
    properCompletion: improper === -1,
    properCompletionWitness: improper === -1 ? null : witness(improper),
    noDeadTransitions: deadSteps.length === 0,
    deadSteps,
    markingsExplored: markings.length,
    boundHit,
  };
  return { ...result, sound: result.optionToComplete && result.properCompletion && result.noDeadTransitions && !boundHit };
}

/** One line for an error message: the first unsound combination and how it fails. */
export function describeUnsoundness(report: WorkflowSoundness): string {
  const failing = report.combinations.find((c) => !c.sound);
  if (!failing) return "sound";
  const under = failing.flags.length === 0 ? "" : ` under ${failing.flags.map((f) => `${f.flag}=${f.value}`).join(", ")}`;
  const reasons: string[] = [];
  if (failing.optionToCompleteWitness) {
    const w = failing.optionToCompleteWitness;
    reasons.push(`no option to complete: after [${w.firingSequence.join(", ")}] the run is stuck with tokens in ${w.leftoverPlaces.join(", ") || "no place"}`);
  }
  if (failing.properCompletionWitness) {
    const w = failing.properCompletionWitness;
    reasons.push(`improper completion: after [${w.firingSequence.join(", ")}] the sink is marked and ${w.leftoverPlaces.join(", ")} still hold tokens`);
  }
  if (!failing.noDeadTransitions) reasons.push(`${failing.deadSteps.length > 1 ? "dead steps" : "dead step"} ${failing.deadSteps.map((s) => `'${s}'`).join(", ")} never ${failing.deadSteps.length > 1 ? "fire" : "fires"}`);
  if (failing.boundHit) reasons.push(`the exploration stopped at ${report.bound} markings, so soundness is not established`);
  return `unsound${under}: ${reasons.join("; ")}`;
}

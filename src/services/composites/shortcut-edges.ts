import type { EdgeKind, ProvenanceEdgeDraft } from "../../../plugins/types";
import { groupIdFor } from "../recording";
import { CompositeExecutionError } from "./errors";
import { appendTo } from "../grouping";

/** The most shortcut derivations one output may have (they multiply along INDEPENDENT alternatives). */
export const MAX_SHORTCUT_DERIVATIONS = 1_000;

export interface ShortcutInput {
  /** The composite's run: every shortcut edge carries it, step-boundary. */
  runId: string;
  compositeInputs: ReadonlySet<string>;
  /** What gets shortcuts: the composite outputs (and, with EXPOSE, the intermediates). */
  targets: readonly string[];
  /** Every edge the steps recorded (internal edges), whatever the mode keeps of them. */
  internalEdges: readonly ProvenanceEdgeDraft[];
  /** Artifacts produced in a generative role ({inputs: []}): they derive from nothing. */
  generative: ReadonlySet<string>;
  /** Artifacts the steps produced that are neither composite inputs nor outputs. */
  intermediates: ReadonlySet<string>;
  artifactTypes: ReadonlyMap<string, string>;
}

/**
 * Issue 9, shortcut edges: a shortcut derivation of an output is each way of explaining it from
 * composite inputs alone — every intermediate source of one of its derivations (a groupId of one
 * step's run) replaced by one derivation of that source, recursively. The union of the sources is one
 * joint derivation: CO_INPUT edges sharing the groupId of those sources, or one INDEPENDENT edge when
 * there is a single source. So a join stays joint (A0, B0 → O0 → F0 gives F0 ← {A0, B0}), a composite
 * input first consumed by a later step is reached like any other, and output-to-output edges are
 * followed to the input behind them. Derivations with the same sources are one; an output that is a
 * composite input itself gets no edge to itself. Config references are not derivations: one into an
 * output from anything but an intermediate is carried over as it is, a CONFIG_REFERENCE shortcut.
 */
export function composeShortcuts(input: ShortcutInput): ProvenanceEdgeDraft[] {
  const derivations = new Map<string, string[][]>();
  const byGroup = new Map<string, { target: string; sources: string[] }>();
  for (const edge of input.internalEdges) {
    if (edge.kind === "CONFIG_REFERENCE") continue;
    const key = `${edge.runId}\u0000${edge.targetId}\u0000${edge.groupId}`;
    const group = byGroup.get(key) ?? { target: edge.targetId, sources: [] };
    if (!group.sources.includes(edge.sourceId)) group.sources.push(edge.sourceId);
    byGroup.set(key, group);
  }
  for (const { target, sources } of byGroup.values()) appendTo(derivations, target, sources);

  const memo = new Map<string, string[][]>();
  const visiting = new Set<string>();
  const expand = (id: string): string[][] => {
    if (input.compositeInputs.has(id)) return [[id]];
    const known = memo.get(id);
    if (known) return known;
    if (visiting.has(id)) return []; // a content-addressed round trip inside the composite: no way out through here
    const own = derivations.get(id);
    if (!own) return input.generative.has(id) ? [[]] : [];
    visiting.add(id);
    const found = new Map<string, string[]>();
    for (const derivation of own) {
      let partial: string[][] = [[]];
      for (const source of derivation) {
        const options = expand(source);
        const next = new Map<string, string[]>();
        for (const sofar of partial) {
          for (const option of options) {
            const union = [...new Set([...sofar, ...option])].sort();
            next.set(union.join("\u0000"), union);
          }
        }
        partial = [...next.values()];
        if (partial.length > MAX_SHORTCUT_DERIVATIONS) throw tooMany(id);
        if (partial.length === 0) break;
      }
      for (const sources of partial) found.set(sources.join("\u0000"), sources);
      if (found.size > MAX_SHORTCUT_DERIVATIONS) throw tooMany(id);
    }
    visiting.delete(id);
    const result = [...found.values()];
    memo.set(id, result);
    return result;
  };

  const edges: ProvenanceEdgeDraft[] = [];
  const seen = new Set<string>();
  const push = (sourceId: string, targetId: string, kind: EdgeKind, groupId: string, sourceType = input.artifactTypes.get(sourceId)!) => {
    const key = `${sourceId}\u0000${targetId}\u0000${groupId}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push({ sourceId, targetId, runId: input.runId, kind, groupId, stepBoundary: true, sourceType, targetType: input.artifactTypes.get(targetId)! });
  };
  for (const target of input.targets) {
    for (const derivation of expand(target)) {
      const sources = derivation.filter((id) => id !== target);
      if (sources.length === 0) continue;
      const groupId = groupIdFor(sources);
      for (const source of sources) push(source, target, sources.length > 1 ? "CO_INPUT" : "INDEPENDENT", groupId);
    }
  }
  const targets = new Set(input.targets);
  for (const edge of input.internalEdges) {
    if (edge.kind !== "CONFIG_REFERENCE" || !targets.has(edge.targetId) || input.intermediates.has(edge.sourceId)) continue;
    push(edge.sourceId, edge.targetId, "CONFIG_REFERENCE", edge.groupId, edge.sourceType);
  }
  return edges;
}

function tooMany(id: string): CompositeExecutionError {
  return new CompositeExecutionError(`artifact ${id} has more than ${MAX_SHORTCUT_DERIVATIONS} ways to be explained from the composite's inputs; record its steps as plain executions instead`, {
    rule: "SHORTCUT_LIMIT",
    candidates: [id],
  });
}

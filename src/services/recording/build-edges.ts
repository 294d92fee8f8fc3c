import type { DraftExecution, LineageMapping, ProvenanceEdgeDraft, ReadPort } from "../../../plugins/types";
import { digest40 } from "../ids";
import { yieldToEventLoop } from "./yield";

/** Source references resolved (and edges made) between turns: one mapping may name 20,000 sources. */
const SOURCES_PER_TURN = 2_000;

// Seed "The lineage pipeline", build + enrich: draft names become final artifact ids, each mapping one
// derivation whose edges share a groupId (a hash of its sorted source ids), and every edge gets the
// source/target artifact types and the runId. References that resolve to nothing are left out here;
// integrity validation reports them.
export async function buildEdges(draft: DraftExecution, mappings: LineageMapping[], port: ReadPort): Promise<ProvenanceEdgeDraft[]> {
  const inputs = new Map(draft.inputs.map((input) => [input.id, input.artifactType]));
  const outputs = new Map(draft.outputs.map((output) => [output.originalName, output]));
  const storedIds = [...new Set(mappings.flatMap((m) => m.sources.flatMap((s) => ("stored" in s ? [s.stored] : []))))];
  const stored = new Map((await port.artifactsByIds(storedIds)).map((a) => [a.id, a.artifactType]));
  const stepBoundary = draft.parentRunId === null;

  const edges: ProvenanceEdgeDraft[] = [];
  // Many small derivations or one with 20,000 sources: let other work run every few thousand sources.
  let work = 0;
  for (const mapping of mappings) {
    if (++work % SOURCES_PER_TURN === 0) await yieldToEventLoop();
    const target = outputs.get(mapping.output);
    if (!target || target.artifactType === null) continue;
    const sources: { id: string; type: string }[] = [];
    for (const ref of mapping.sources) {
      if (++work % SOURCES_PER_TURN === 0) await yieldToEventLoop();
      if ("input" in ref && inputs.has(ref.input)) sources.push({ id: ref.input, type: inputs.get(ref.input)! });
      else if ("output" in ref && outputs.get(ref.output)?.artifactType) sources.push({ id: outputs.get(ref.output)!.id, type: outputs.get(ref.output)!.artifactType! });
      else if ("stored" in ref && stored.has(ref.stored)) sources.push({ id: ref.stored, type: stored.get(ref.stored)! });
    }
    const groupId = groupIdFor(sources.map((s) => s.id));
    for (const source of sources) {
      if (++work % SOURCES_PER_TURN === 0) await yieldToEventLoop();
      edges.push({ sourceId: source.id, targetId: target.id, runId: draft.runId, kind: mapping.kind, groupId, stepBoundary, sourceType: source.type, targetType: target.artifactType });
    }
  }
  return edges;
}

/** Seed "Co-input edges": a deterministic hash of the set of source artifact ids. */
export function groupIdFor(sourceIds: readonly string[]): string {
  return `grp_${digest40("group", ...[...new Set(sourceIds)].sort())}`;
}

import type { DraftExecution, LineageMapping, ProvgraphPlugin, ProvenanceEdgeDraft, ReadPort } from "../../../plugins/types";
import { buildEdges } from "./build-edges";
import { yieldToEventLoop } from "./yield";

/** Artifacts in a draft above which the pipeline lets other work run between its plugins. */
const LARGE_DRAFT = 2_000;

export interface InferredLineage {
  mappings: LineageMapping[];
  edges: ProvenanceEdgeDraft[];
}

/**
 * Seed "The lineage pipeline" for one draft: capture (every capture plugin, in list order; an output
 * one plugin mapped is left alone by the next) → build + enrich (final ids, types, runId, groupIds)
 * → validate. Plugins reject by throwing their typed errors; nothing is written here, so the
 * caller's transaction decides what is kept. Every way into the store (recordExecution, batches,
 * composites, OpenLineage) runs its drafts through this one function. The propagate stage comes
 * later, once per unit, over what the unit staged (./unit-derivations.ts).
 */
export async function inferAndValidateLineage(plugins: readonly ProvgraphPlugin[], draft: DraftExecution, port: ReadPort): Promise<InferredLineage> {
  const mappings: LineageMapping[] = [];
  const mapped = new Set<string>();
  // A plugin runs in one go: on a big execution, let other work run between plugins.
  const between = draft.outputs.length + draft.inputs.length > LARGE_DRAFT ? yieldToEventLoop : async () => undefined;
  for (const plugin of plugins) {
    if (plugin.stage !== "capture") continue;
    await between();
    for (const mapping of await plugin.capture(draft, { alreadyMapped: mapped, port })) {
      mappings.push(mapping);
      if (mapping.kind !== "CONFIG_REFERENCE") mapped.add(mapping.output);
    }
  }
  await between();
  const edges = await buildEdges(draft, mappings, port);
  for (const plugin of plugins) if (plugin.stage === "validate") await between(), await plugin.validate(draft, { mappings, edges, port });
  return { mappings, edges };
}

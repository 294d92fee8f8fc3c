import type { DraftExecution, LineageMapping, ProvgraphPlugin, ProvenanceEdgeDraft, ReadPort } from "../../../plugins/types";
import { buildEdges } from "./build-edges";

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
  for (const plugin of plugins) {
    if (plugin.stage !== "capture") continue;
    for (const mapping of await plugin.capture(draft, { alreadyMapped: mapped, port })) {
      mappings.push(mapping);
      if (mapping.kind !== "CONFIG_REFERENCE") mapped.add(mapping.output);
    }
  }
  const edges = await buildEdges(draft, mappings, port);
  for (const plugin of plugins) if (plugin.stage === "validate") await plugin.validate(draft, { mappings, edges, port });
  return { mappings, edges };
}

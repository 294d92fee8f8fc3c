import type { CapturePlugin, DraftExecution, LineageMapping, SourceRef } from "../types";

/** A JSON value of this shape, at any depth, references an artifact: `{"$artifact": "art_…"}` (a single-key object). */
export function artifactReferencesIn(value: unknown): string[] {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === "object") {
      const entries = Object.entries(node);
      if (entries.length === 1 && entries[0][0] === "$artifact" && typeof entries[0][1] === "string") found.add(entries[0][1]);
      else entries.forEach(([, v]) => visit(v));
    }
  };
  visit(value);
  return [...found].sort();
}

// Seed "Edge types": config reference edges connect an artifact referenced in a configuration to the
// config artifact that contains the reference, answering "what configs used this artifact?". A
// reference inside an output draft's metadata makes that output the config: one CONFIG_REFERENCE edge
// referenced → output per referenced artifact. (References in the execution's params are not lineage:
// the recorder records them as artifacts the execution used, in role CONFIG_INPUT_ROLE.)
export const configReferenceLineage: CapturePlugin = {
  name: "config-reference-lineage",
  stage: "capture",
  capture(draft) {
    return draft.outputs.flatMap((output) =>
      artifactReferencesIn(output.metadata).map((id): LineageMapping => ({
        output: output.originalName,
        sources: [referenceTo(draft, id)],
        kind: "CONFIG_REFERENCE",
        capturedBy: "config-reference-lineage",
      })),
    );
  },
};

/** A referenced id may be an input of this execution, another of its outputs, or any stored artifact. */
function referenceTo(draft: DraftExecution, id: string): SourceRef {
  if (draft.inputs.some((input) => input.id === id)) return { input: id };
  const output = draft.outputs.find((o) => o.id === id);
  return output ? { output: output.originalName } : { stored: id };
}

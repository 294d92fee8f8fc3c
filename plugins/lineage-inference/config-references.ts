import type { CapturePlugin, LineageMapping } from "../types";

/** A parameter value of this shape references a stored artifact: `{"$artifact": "art_…"}`. */
export function artifactReferencesIn(params: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      if (entries.length === 1 && entries[0][0] === "$artifact" && typeof entries[0][1] === "string") found.add(entries[0][1]);
      else entries.forEach(([, v]) => visit(v));
    }
  };
  visit(params);
  return [...found].sort();
}

// Seed "Edge types": config reference edges connect an artifact referenced in the execution's
// configuration to what that configuration produced, answering "what configs used this artifact?".
export const configReferenceLineage: CapturePlugin = {
  name: "config-reference-lineage",
  stage: "capture",
  capture(draft) {
    const references = artifactReferencesIn(draft.params);
    return draft.outputs.flatMap((output) =>
      references.map((id): LineageMapping => ({ output: output.originalName, sources: [{ stored: id }], kind: "CONFIG_REFERENCE", capturedBy: "config-reference-lineage" })),
    );
  },
};

import type { CapturePlugin, DraftExecution, EdgeKind, LineageMapping, SourceRef } from "../types";

// Seed "Explicit lineage": a mapping names the exact sources of an output draft, bypassing stem inference.
// Sources are input artifact ids, or output drafts (by originalName or final id); anything else is kept
// as a stored-artifact reference for integrity validation to judge.
export const explicitLineage: CapturePlugin = {
  name: "explicit-lineage",
  stage: "capture",
  capture(draft) {
    return draft.explicitLineage.map((entry): LineageMapping => {
      const sources = entry.sources.map((source) => resolveSource(draft, source));
      return { output: entry.output, sources, kind: kindOf(sources), capturedBy: "explicit" };
    });
  },
};

function resolveSource(draft: DraftExecution, source: string): SourceRef {
  if (draft.inputs.some((input) => input.id === source)) return { input: source };
  const output = draft.outputs.find((o) => o.originalName === source || o.id === source);
  if (output) return { output: output.originalName };
  return { stored: source };
}

// Seed "Co-input edges": several sources of one derivation are jointly necessary.
function kindOf(sources: SourceRef[]): EdgeKind {
  if (sources.length > 1) return "CO_INPUT";
  return sources.length === 1 && "output" in sources[0] ? "OUTPUT_TO_OUTPUT" : "INDEPENDENT";
}

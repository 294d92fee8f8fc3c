import type { CapturePlugin, DraftExecution, EdgeKind, LineageMapping, SourceRef } from "../types";

// Seed "Explicit lineage": a mapping names the exact sources of an output draft, bypassing stem inference.
// Sources are input artifact ids, or output drafts (by originalName or final id); anything else is kept
// as a stored-artifact reference for integrity validation to judge. A JOINT mapping is one derivation
// (several sources are co-inputs); an INDEPENDENT one gives each source a derivation of its own.
export const explicitLineage: CapturePlugin = {
  name: "explicit-lineage",
  stage: "capture",
  capture(draft) {
    return draft.explicitLineage.flatMap((entry, i): LineageMapping[] => {
      const sources = entry.sources.map((source) => resolveSource(draft, source));
      const mapping = (of: SourceRef[]): LineageMapping => ({ output: entry.output, sources: of, kind: kindOf(of), capturedBy: "explicit", entry: `lineage[${i}]` });
      if (entry.kind === "INDEPENDENT" && sources.length > 1) return sources.map((source) => mapping([source]));
      return [mapping(sources)];
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

import type { CapturePlugin, EdgeKind, LineageMapping, SourceRef } from "../types";

// Seed "Explicit lineage": a mapping names the exact sources of an output draft, bypassing stem inference.
// Sources are input artifact ids, or output drafts (by originalName or final id); anything else is kept
// as a stored-artifact reference for integrity validation to judge. A JOINT mapping is one derivation
// (several sources are co-inputs); an INDEPENDENT one gives each source a derivation of its own.
export const explicitLineage: CapturePlugin = {
  name: "explicit-lineage",
  stage: "capture",
  capture(draft) {
    // Looked up by id: a mapping may name 100,000 inputs.
    const inputIds = new Set(draft.inputs.map((input) => input.id as string));
    const outputs = new Map<string, string>();
    for (const o of [...draft.outputs].reverse()) {
      outputs.set(o.id, o.originalName);
      outputs.set(o.originalName, o.originalName);
    }
    return draft.explicitLineage.flatMap((entry, i): LineageMapping[] => {
      const sources = entry.sources.map((source) => resolveSource(inputIds, outputs, source));
      const mapping = (of: SourceRef[]): LineageMapping => ({ output: entry.output, sources: of, kind: kindOf(of), capturedBy: "explicit", entry: `lineage[${i}]` });
      if (entry.kind === "INDEPENDENT" && sources.length > 1) return sources.map((source) => mapping([source]));
      return [mapping(sources)];
    });
  },
};

function resolveSource(inputIds: ReadonlySet<string>, outputs: ReadonlyMap<string, string>, source: string): SourceRef {
  if (inputIds.has(source)) return { input: source };
  const output = outputs.get(source);
  if (output !== undefined) return { output };
  return { stored: source };
}

// Seed "Co-input edges": several sources of one derivation are jointly necessary.
function kindOf(sources: SourceRef[]): EdgeKind {
  if (sources.length > 1) return "CO_INPUT";
  return sources.length === 1 && "output" in sources[0] ? "OUTPUT_TO_OUTPUT" : "INDEPENDENT";
}

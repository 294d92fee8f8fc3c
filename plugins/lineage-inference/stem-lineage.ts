import type { CapturePlugin, DraftExecution, InputArtifact, LineageMapping, OutputDraft } from "../types";
import { createStemIndex } from "./stem";

// Seed "How lineage is captured": each output role's drafts are stem-matched against the input roles
// (or output roles) its inferLineageFrom names. With groupBy ZIP only the primary role (the first one
// inferLineageFrom names) is searched, and a match at index i there makes the i-th artifact of every
// other input role a joint (co-input) source: searching every role would make same-stem partners
// (s1.csv beside s1.json) ambiguous at every level.
export const stemLineageInference: CapturePlugin = {
  name: "stem-lineage-inference",
  stage: "capture",
  capture(draft, { alreadyMapped }) {
    const mappings: LineageMapping[] = [];
    for (const role of draft.operation.outputs) {
      const source = role.inferLineageFrom;
      if (source === null || source.roles.length === 0) continue; // curator passthrough, or generative
      const drafts = draft.outputs.filter((o) => o.role === role.role && !alreadyMapped.has(o.originalName));
      if (drafts.length === 0) continue;
      if (source.from === "INPUTS") mappings.push(...matchInputs(draft, source.roles, drafts));
      else mappings.push(...matchOutputs(draft, source.roles, drafts));
    }
    return mappings;
  },
};

function matchInputs(draft: DraftExecution, fromRoles: string[], drafts: OutputDraft[]): LineageMapping[] {
  const zipped = draft.operation.groupBy === "ZIP";
  const searched = zipped ? [fromRoles[0]] : fromRoles;
  const index = createStemIndex(
    draft.inputs.filter((input) => searched.includes(input.role)),
    (input) => input.originalName,
  );
  const mappings: LineageMapping[] = [];
  for (const output of drafts) {
    const match = index.match(output.originalName);
    if (!match) continue;
    if (zipped) {
      const group = coInputGroup(draft, match.candidate);
      mappings.push({ output: output.originalName, sources: group.map((input) => ({ input: input.id })), kind: "CO_INPUT", capturedBy: stemLineageInference.name });
    } else {
      mappings.push({ output: output.originalName, sources: [{ input: match.candidate.id }], kind: "INDEPENDENT", capturedBy: stemLineageInference.name });
    }
  }
  return mappings;
}

// Seed "How multi-input pairing works": the matched input plus every other input role's artifact at its
// index (an artifact paired with itself counts once).
function coInputGroup(draft: DraftExecution, matched: InputArtifact): InputArtifact[] {
  const group = [matched];
  for (const role of draft.operation.inputs) {
    if (role.role === matched.role) continue;
    const partner = draft.inputs.find((input) => input.role === role.role && input.index === matched.index);
    if (partner && !group.some((member) => member.id === partner.id)) group.push(partner);
  }
  return group;
}

// Seed "Output-to-output edges": the output's stem is matched against another output role's drafts.
function matchOutputs(draft: DraftExecution, fromRoles: string[], drafts: OutputDraft[]): LineageMapping[] {
  const index = createStemIndex(
    draft.outputs.filter((o) => fromRoles.includes(o.role)),
    (o) => o.originalName,
  );
  const mappings: LineageMapping[] = [];
  for (const output of drafts) {
    const match = index.match(output.originalName);
    if (match && match.candidate.originalName !== output.originalName) {
      mappings.push({ output: output.originalName, sources: [{ output: match.candidate.originalName }], kind: "OUTPUT_TO_OUTPUT", capturedBy: stemLineageInference.name });
    }
  }
  return mappings;
}

import { LARGE_DRAFT_ARTIFACTS, nextTurn } from "../event-loop";
import type { CapturePlugin, DraftExecution, InputArtifact, LineageMapping, OutputDraft } from "../types";
import { createStemIndex, type StemMatch, stemOf } from "./stem";

// Seed "How lineage is captured": each output role's drafts are stem-matched against the input roles
// (or output roles) its inferLineageFrom names. With groupBy only the primary role (the first one
// inferLineageFrom names) is searched, and the group the match belongs to (draft.pairing) gives the
// joint (co-input) sources: searching every role would make same-stem partners (s1.csv beside
// s1.json) ambiguous at every level.
export const stemLineageInference: CapturePlugin = {
  name: "stem-lineage-inference",
  stage: "capture",
  async capture(draft, { alreadyMapped }) {
    const mappings: LineageMapping[] = [];
    for (const role of draft.operation.outputs) {
      const source = role.inferLineageFrom;
      if (source === null || source.roles.length === 0) continue; // curator passthrough, or generative
      const drafts = draft.outputs.filter((o) => o.role === role.role && !alreadyMapped.has(o.originalName));
      if (drafts.length === 0) continue;
      const match = source.from === "INPUTS" ? inputMatcher(draft, source.roles) : outputMatcher(draft, source.roles);
      for (let n = 0; n < drafts.length; n++) {
        // A big execution is matched in turns, so other work runs in between.
        if (n > 0 && n % LARGE_DRAFT_ARTIFACTS === 0) await nextTurn();
        const mapping = match(drafts[n]);
        if (mapping) mappings.push(mapping);
      }
    }
    return mappings;
  },
};

/** Matches one output against the input roles named (with groupBy, the primary role, its group giving the co-inputs). */
function inputMatcher(draft: DraftExecution, fromRoles: string[]): (output: OutputDraft) => LineageMapping | undefined {
  const grouped = draft.operation.groupBy !== null;
  const searched = grouped ? [fromRoles[0]] : fromRoles;
  const index = createStemIndex(
    draft.inputs.filter((input) => searched.includes(input.role)),
    (input) => input.originalName,
  );
  return (output) => {
    const match = index.match(output.originalName);
    if (!match) return undefined;
    if (grouped) {
      const group = groupOf(draft, output.originalName, match);
      return group ? { output: output.originalName, sources: group.map((input) => ({ input: input.id })), kind: "CO_INPUT", capturedBy: stemLineageInference.name } : undefined;
    }
    return { output: output.originalName, sources: [{ input: match.candidate.id }], kind: "INDEPENDENT", capturedBy: stemLineageInference.name };
  };
}

// Seed "How multi-input pairing works": the group holding the matched input (an artifact paired with
// itself counts once). ZIP puts an input in one group; CROSS_PRODUCT and LINEAGE may put it in several,
// and then the rest of the output's stem names the partners: after the matched stem (and any separators)
// it is stem-matched against the candidates of the next role, and so on (`s1_cfgA.out` with `s1.csv`
// and `cfgA.json`). No single group left: no mapping (completeness validation reports the output).
function groupOf(draft: DraftExecution, outputName: string, match: StemMatch<InputArtifact>): InputArtifact[] | undefined {
  const matched = match.candidate;
  let candidates = (draft.pairing?.groups ?? []).filter((group) => group.some((member) => member.id === matched.id && member.role === matched.role));
  let rest = stemOf(outputName).slice(match.matchedStem.length);
  const roles = draft.operation.inputs.map((role) => role.role).filter((role) => role !== matched.role);
  for (const role of roles) {
    if (candidates.length <= 1) break;
    const partners = [...new Map(candidates.map((group) => group.find((member) => member.role === role)!).map((p) => [p.id, p])).values()];
    if (partners.length <= 1) continue;
    rest = rest.replace(/^[^A-Za-z0-9]+/, "");
    const partner = createStemIndex(partners, (p) => p.originalName).match(rest);
    if (!partner) return undefined;
    candidates = candidates.filter((group) => group.some((member) => member.role === role && member.id === partner.candidate.id));
    rest = rest.slice(partner.matchedStem.length);
  }
  if (candidates.length !== 1) return undefined;
  const group: InputArtifact[] = [];
  for (const member of [matched, ...candidates[0]]) if (!group.some((m) => m.id === member.id)) group.push(member);
  return group;
}

// Seed "Output-to-output edges": the output's stem is matched against another output role's drafts.
function outputMatcher(draft: DraftExecution, fromRoles: string[]): (output: OutputDraft) => LineageMapping | undefined {
  const index = createStemIndex(
    draft.outputs.filter((o) => fromRoles.includes(o.role)),
    (o) => o.originalName,
  );
  return (output) => {
    const match = index.match(output.originalName);
    if (!match || match.candidate.originalName === output.originalName) return undefined;
    return { output: output.originalName, sources: [{ output: match.candidate.originalName }], kind: "OUTPUT_TO_OUTPUT", capturedBy: stemLineageInference.name };
  };
}

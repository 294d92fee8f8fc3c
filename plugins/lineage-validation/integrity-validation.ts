import { LineageIntegrityError } from "../errors";
import type { DraftExecution, LineageMapping, ReadPort } from "../types";

// Seed "Integrity validation": sources exist among the inputs/outputs, drafts exist, no duplicate mapping for one draft.
export async function validateIntegrity(draft: DraftExecution, mappings: LineageMapping[], port: ReadPort): Promise<void> {
  const names = draft.outputs.map((o) => o.originalName);
  const duplicateName = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicateName) {
    throw new LineageIntegrityError(`two outputs share the name '${duplicateName}': lineage could not tell them apart`, {
      rule: "DUPLICATE_DRAFT_NAME",
      output: duplicateName,
      candidates: draft.outputs.filter((o) => o.originalName === duplicateName).map((o) => o.role),
    });
  }
  const outputNames = new Set(names);
  const inputIds = new Set(draft.inputs.map((input) => input.id));
  const seen = new Map<string, string>();
  for (const mapping of mappings) {
    const role = draft.outputs.find((o) => o.originalName === mapping.output)?.role ?? null;
    if (!outputNames.has(mapping.output)) {
      throw new LineageIntegrityError(`lineage names output '${mapping.output}', which is not among this execution's outputs`, {
        rule: "UNKNOWN_DRAFT",
        output: mapping.output,
        candidates: names,
      });
    }
    if (mapping.kind !== "CONFIG_REFERENCE") {
      const previous = seen.get(mapping.output);
      if (previous !== undefined) {
        throw new LineageIntegrityError(`output '${mapping.output}' is mapped twice (by ${previous} and by ${mapping.capturedBy})`, {
          rule: "DUPLICATE_MAPPING",
          role,
          output: mapping.output,
        });
      }
      seen.set(mapping.output, mapping.capturedBy);
    }
    if (mapping.sources.length === 0) {
      throw new LineageIntegrityError(`lineage for output '${mapping.output}' names no sources`, { rule: "EMPTY_SOURCES", role, output: mapping.output });
    }
    for (const source of mapping.sources) {
      if ("output" in source && source.output === mapping.output) {
        throw new LineageIntegrityError(`output '${mapping.output}' cannot derive from itself`, { rule: "SELF_DERIVATION", role, output: mapping.output });
      }
      if ("input" in source && !inputIds.has(source.input)) {
        throw new LineageIntegrityError(`source ${source.input} of output '${mapping.output}' is not an input of this execution`, {
          rule: "UNKNOWN_SOURCE",
          role,
          output: mapping.output,
          candidates: [...inputIds],
        });
      }
    }
  }
  // Sources outside this execution: config references may point at any stored artifact; an explicit
  // mapping may only name this execution's inputs and outputs.
  const stored = mappings.flatMap((m) => m.sources.flatMap((s) => ("stored" in s ? [{ id: s.stored, mapping: m }] : [])));
  if (stored.length === 0) return;
  const found = new Set((await port.artifactsByIds([...new Set(stored.map((s) => s.id))])).map((a) => a.id));
  for (const { id, mapping } of stored) {
    const role = draft.outputs.find((o) => o.originalName === mapping.output)?.role ?? null;
    if (mapping.kind !== "CONFIG_REFERENCE") {
      throw new LineageIntegrityError(`source '${id}' of output '${mapping.output}' is neither an input nor an output of this execution`, {
        rule: "UNKNOWN_SOURCE",
        role,
        output: mapping.output,
        candidates: [...inputIds, ...names],
      });
    }
    if (!found.has(id)) {
      throw new LineageIntegrityError(`params reference artifact ${id}, which does not exist`, { rule: "UNKNOWN_CONFIG_REFERENCE", role, output: mapping.output, candidates: [id] });
    }
  }
}

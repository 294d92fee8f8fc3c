import { LineageIntegrityError } from "../errors";
import type { DraftExecution, LineageMapping, ReadPort, SourceRef } from "../types";
import { LARGE_DRAFT_ARTIFACTS, nextTurn } from "../event-loop";
import { firstRepeated } from "./first-repeated";

const ARTIFACT_ID = /^art_[0-9a-f]{40}$/;

// Seed "Integrity validation": sources exist among the inputs/outputs, drafts exist, no duplicate mapping
// for one draft; and lineage is acyclic: no output derives from itself, directly (the same
// content-addressed id as a source) or through other outputs.
export async function validateIntegrity(draft: DraftExecution, mappings: LineageMapping[], port: ReadPort): Promise<void> {
  const names = draft.outputs.map((o) => o.originalName);
  const duplicateName = firstRepeated(names);
  if (duplicateName) {
    throw new LineageIntegrityError(`two outputs share the name '${duplicateName}': lineage could not tell them apart`, {
      rule: "DUPLICATE_DRAFT_NAME",
      output: duplicateName,
      candidates: draft.outputs.filter((o) => o.originalName === duplicateName).map((o) => o.role),
    });
  }
  const outputs = new Map(draft.outputs.map((o) => [o.originalName, o]));
  const inputIds = new Set(draft.inputs.map((input) => input.id));
  const roleOf = (output: string) => outputs.get(output)?.role ?? null;
  const idOf = (source: SourceRef) => ("input" in source ? source.input : "output" in source ? outputs.get(source.output)!.id : source.stored);
  const labelOf = (source: SourceRef) => ("output" in source ? `'${source.output}'` : idOf(source));

  // One declaration per output; the sources of one declaration (its mappings together) are distinct.
  const declarations = new Map<string, { key: string; capturedBy: string; sources: Set<string> }>();
  const large = draft.inputs.length + draft.outputs.length > LARGE_DRAFT_ARTIFACTS;
  for (let n = 0; n < mappings.length; n++) {
    // A big execution is checked in turns, so other work runs in between.
    if (large && n > 0 && n % LARGE_DRAFT_ARTIFACTS === 0) await nextTurn();
    const mapping = mappings[n];
    const role = roleOf(mapping.output);
    if (!outputs.has(mapping.output)) {
      throw new LineageIntegrityError(`lineage names output '${mapping.output}', which is not among this execution's outputs`, {
        rule: "UNKNOWN_DRAFT",
        output: mapping.output,
        candidates: names,
      });
    }
    if (mapping.sources.length === 0) {
      throw new LineageIntegrityError(`lineage for output '${mapping.output}' names no sources`, { rule: "EMPTY_SOURCES", role, output: mapping.output });
    }
    for (const source of mapping.sources) {
      if ("output" in source && !outputs.has(source.output)) {
        throw new LineageIntegrityError(`source '${source.output}' of output '${mapping.output}' is not an output of this execution`, {
          rule: "UNKNOWN_SOURCE",
          role,
          output: mapping.output,
          candidates: names,
        });
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
    const key = mapping.kind === "CONFIG_REFERENCE" ? `config#${n}` : mapping.entry !== undefined ? `${mapping.capturedBy}\u0000${mapping.entry}` : `#${n}`;
    const declaration = mapping.kind === "CONFIG_REFERENCE" ? undefined : declarations.get(mapping.output);
    if (declaration && declaration.key !== key) {
      throw new LineageIntegrityError(`output '${mapping.output}' is mapped twice (by ${declaration.capturedBy} and by ${mapping.capturedBy})`, {
        rule: "DUPLICATE_MAPPING",
        role,
        output: mapping.output,
      });
    }
    const sources = declaration?.sources ?? new Set<string>();
    for (const source of mapping.sources) {
      const id = idOf(source);
      if (sources.has(id)) {
        throw new LineageIntegrityError(`lineage for output '${mapping.output}' names source ${labelOf(source)} twice`, {
          rule: "DUPLICATE_SOURCE",
          role,
          output: mapping.output,
          candidates: [id],
        });
      }
      sources.add(id);
    }
    if (mapping.kind !== "CONFIG_REFERENCE") declarations.set(mapping.output, { key, capturedBy: mapping.capturedBy, sources });
  }
  if (large) await nextTurn();

  for (const mapping of mappings) {
    const target = outputs.get(mapping.output)!;
    const self = mapping.sources.find((source) => ("output" in source ? source.output === mapping.output : idOf(source) === target.id));
    if (self) {
      const how = "output" in self && self.output === mapping.output ? "names itself as a source" : `has the same content-addressed id (${target.id}) as its source ${labelOf(self)}`;
      throw new LineageIntegrityError(
        `output '${mapping.output}' ${how}: a creator never derives an artifact from itself. Passing an artifact through unchanged is a curator's job (a CURATOR output role without inferLineageFrom)`,
        { rule: "SELF_DERIVATION", role: target.role, output: mapping.output, candidates: [idOf(self)] },
      );
    }
  }
  assertNoOutputCycle(mappings, roleOf);

  // Sources outside this execution: a config reference may point at any stored artifact; an explicit
  // mapping may only name this execution's inputs and outputs.
  const stored = mappings.flatMap((m) => m.sources.flatMap((s) => ("stored" in s ? [{ id: s.stored, mapping: m }] : [])));
  if (stored.length === 0) return;
  const found = new Set((await port.artifactsByIds([...new Set(stored.map((s) => s.id))])).map((a) => a.id));
  for (const { id, mapping } of stored) {
    const role = roleOf(mapping.output);
    if (mapping.kind !== "CONFIG_REFERENCE") {
      throw new LineageIntegrityError(`source '${id}' of output '${mapping.output}' is neither an input nor an output of this execution`, {
        rule: "UNKNOWN_SOURCE",
        role,
        output: mapping.output,
        candidates: [...inputIds, ...names],
      });
    }
    if (!found.has(id)) {
      const why = ARTIFACT_ID.test(id) ? `artifact ${id}, which does not exist` : `'${id}', which is not an artifact id (art_…)`;
      throw new LineageIntegrityError(`the metadata of output '${mapping.output}' references ${why}`, { rule: "UNKNOWN_CONFIG_REFERENCE", role, output: mapping.output, candidates: [id] });
    }
  }
}

/** Outputs deriving from outputs (explicit, inferred or by config reference) must not loop, however long the loop. */
function assertNoOutputCycle(mappings: LineageMapping[], roleOf: (output: string) => string | null): void {
  const from = new Map<string, string[]>();
  for (const mapping of mappings) {
    for (const source of mapping.sources) if ("output" in source) from.set(mapping.output, [...(from.get(mapping.output) ?? []), source.output]);
  }
  const state = new Map<string, "visiting" | "done">();
  const visit = (output: string, path: string[]): void => {
    if (state.get(output) === "done") return;
    if (state.get(output) === "visiting") {
      const cycle = [...path.slice(path.indexOf(output)), output];
      throw new LineageIntegrityError(`outputs derive from each other in a cycle: ${cycle.map((name) => `'${name}'`).join(" ← ")}`, {
        rule: "OUTPUT_CYCLE",
        role: roleOf(output),
        output,
        outputs: cycle.slice(0, -1),
      });
    }
    state.set(output, "visiting");
    for (const next of from.get(output) ?? []) visit(next, [...path, output]);
    state.set(output, "done");
  };
  for (const output of [...from.keys()].sort()) visit(output, []);
}

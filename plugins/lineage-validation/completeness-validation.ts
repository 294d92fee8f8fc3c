import { LineageCompletenessError } from "../errors";
import type { DraftExecution, LineageMapping } from "../types";

// Seed "Completeness validation": every non-orphan output has at least one source edge. Orphans are
// outputs declared {inputs: []} (generative); curator outputs without a declaration are passthroughs.
export function validateCompleteness(draft: DraftExecution, mappings: LineageMapping[]): void {
  const mapped = new Set(mappings.filter((m) => m.kind !== "CONFIG_REFERENCE" && m.sources.length > 0).map((m) => m.output));
  const declared = new Map(draft.operation.outputs.map((role) => [role.role, role]));
  const unmapped = draft.outputs.filter((output) => {
    const source = declared.get(output.role)?.inferLineageFrom;
    if (source === null || source === undefined || source.roles.length === 0) return false;
    return !mapped.has(output.originalName);
  });
  if (unmapped.length === 0) return;
  const first = unmapped[0];
  const source = declared.get(first.role)!.inferLineageFrom!;
  // What stem matching searched: with ZIP, the primary role only.
  const searched = source.from === "INPUTS" && draft.operation.groupBy === "ZIP" ? source.roles.slice(0, 1) : source.roles;
  const candidates =
    source.from === "INPUTS"
      ? draft.inputs.filter((input) => searched.includes(input.role)).map((input) => input.originalName)
      : draft.outputs.filter((o) => searched.includes(o.role)).map((o) => o.originalName);
  const names = unmapped.map((o) => o.originalName);
  throw new LineageCompletenessError(
    `no lineage for output${names.length > 1 ? "s" : ""} ${names.map((n) => `'${n}'`).join(", ")} of role '${first.role}': ` +
      `no unique stem match among ${source.from.toLowerCase()} [${searched.join(", ")}]${searched.length < source.roles.length ? " (the primary role of groupBy ZIP)" : ""} and no explicit mapping`,
    { rule: "NO_LINEAGE_MAPPING", role: first.role, output: first.originalName, outputs: names, candidates },
  );
}

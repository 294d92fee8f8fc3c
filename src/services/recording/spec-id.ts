import { canonicalJson } from "../canonical-json";
import { specIdFrom, type SpecId } from "../ids";
import type { OperationRecord } from "../records";
import type { RecordExecutionRequest } from "./request-shape";
import { appendAllTo } from "../grouping";

/**
 * Seed "Dual identity": the same request has the same specId. A request is the operation, version,
 * params (key order irrelevant) and input ids by role. Order within a role is irrelevant, except where
 * the operation pairs artifacts by position (groupBy ZIP): there the pairs decide the computation, so
 * `right: [B1, B2]` and `[B2, B1]` beside `left: [A1, A2]` are different requests, while listing the
 * same pairs in another order is not. An empty role is the same request as an omitted one.
 */
export function specIdOf(operation: Pick<OperationRecord, "name" | "version" | "groupBy">, request: Pick<RecordExecutionRequest, "params" | "inputs">): SpecId {
  // Roles are the caller's names ("constructor", "__proto__" are roles too): keyed in a Map, never
  // looked up on a plain object, whose prototype would answer for them.
  const byRole = new Map<string, string[]>();
  for (const { role, artifactIds } of request.inputs) {
    if (artifactIds.length > 0) appendAllTo(byRole, role, artifactIds);
  }
  const inputs = Object.fromEntries(byRole) as Record<string, string[]>;
  if (operation.groupBy === "ZIP") sortPairs(inputs);
  else for (const ids of Object.values(inputs)) ids.sort();
  return specIdFrom(canonicalJson({ operation: operation.name, version: operation.version, params: request.params ?? null, inputs }));
}

/** Reorders every role's list by the sorted pairs (i-th id of each role, roles by name), keeping each pair together. */
function sortPairs(inputs: Record<string, string[]>): void {
  const roles = Object.keys(inputs).sort();
  const length = inputs[roles[0]]?.length ?? 0;
  if (roles.some((role) => inputs[role].length !== length)) return; // unpaired: refused as ZIP_LENGTH_MISMATCH anyway
  const pairs = Array.from({ length }, (_, i) => roles.map((role) => inputs[role][i]));
  pairs.sort((a, b) => {
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
  });
  roles.forEach((role, k) => (inputs[role] = pairs.map((pair) => pair[k])));
}

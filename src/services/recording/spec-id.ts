import { canonicalJson } from "../canonical-json";
import { specIdFrom, type SpecId } from "../ids";
import type { OperationRecord } from "../records";
import type { RecordExecutionRequest } from "./request-shape";

/**
 * Seed "Dual identity": the same request has the same specId. A request is the operation, version,
 * params (key order irrelevant) and input ids by role. Order within a role is irrelevant, except where
 * the operation pairs artifacts by position (groupBy ZIP: `right: [B1, B2]` and `[B2, B1]` pair
 * differently); an empty role is the same request as an omitted one.
 */
export function specIdOf(operation: Pick<OperationRecord, "name" | "version" | "groupBy">, request: Pick<RecordExecutionRequest, "params" | "inputs">): SpecId {
  const inputs: Record<string, string[]> = {};
  for (const { role, artifactIds } of request.inputs) {
    if (artifactIds.length > 0) inputs[role] = [...(inputs[role] ?? []), ...artifactIds];
  }
  if (operation.groupBy !== "ZIP") for (const ids of Object.values(inputs)) ids.sort();
  return specIdFrom(canonicalJson({ operation: operation.name, version: operation.version, params: request.params ?? null, inputs }));
}

import { canonicalJson } from "../canonical-json";
import { specIdFrom, type SpecId } from "../ids";
import type { OperationRecord } from "../records";
import type { RecordExecutionRequest } from "./request-shape";

/** Same operation, version, params (key order irrelevant) and inputs by role (order irrelevant) = same specId. */
export function specIdOf(operation: Pick<OperationRecord, "name" | "version">, request: Pick<RecordExecutionRequest, "params" | "inputs">): SpecId {
  const inputs: Record<string, string[]> = {};
  for (const { role, artifactIds } of request.inputs) inputs[role] = [...(inputs[role] ?? []), ...artifactIds].sort();
  return specIdFrom(canonicalJson({ operation: operation.name, version: operation.version, params: request.params ?? null, inputs }));
}

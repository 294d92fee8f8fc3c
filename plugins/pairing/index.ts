import type { InputArtifact, InputPairing, OperationDeclaration, ReadPort } from "../types";
import { pairByCrossProduct } from "./cross-product";
import { pairBySharedAncestor } from "./shared-ancestor";
import { pairByPosition } from "./zip";

export { pairByCrossProduct, pairBySharedAncestor, pairByPosition };

/**
 * Seed "How multi-input pairing works": the inputs of a groupBy operation are paired into groups
 * before lineage is captured. Roles are taken in declared order; null without groupBy.
 */
export async function pairInputs(operation: OperationDeclaration, inputs: readonly InputArtifact[], port: ReadPort): Promise<InputPairing | null> {
  if (operation.groupBy === null) return null;
  const roles = operation.inputs.map((role) => inputs.filter((input) => input.role === role.role).sort((a, b) => a.index - b.index));
  switch (operation.groupBy) {
    case "ZIP":
      return pairByPosition(roles);
    case "CROSS_PRODUCT":
      return pairByCrossProduct(roles);
    case "LINEAGE":
      return pairBySharedAncestor(roles, port);
  }
}

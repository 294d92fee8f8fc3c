import type { InputArtifact, InputPairing } from "../types";

// CROSS_PRODUCT: every combination of one artifact per role, one group each (first role slowest);
// an empty role gives no group at all, and then every input is unpaired.
export function pairByCrossProduct(roles: readonly InputArtifact[][]): InputPairing {
  let groups: InputArtifact[][] = roles.length === 0 ? [] : [[]];
  for (const role of roles) groups = groups.flatMap((group) => role.map((artifact) => [...group, artifact]));
  return { strategy: "CROSS_PRODUCT", groups, unpaired: groups.length === 0 ? roles.flat() : [] };
}

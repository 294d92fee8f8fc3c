import type { InputArtifact, InputPairing } from "../types";

// ZIP: the i-th artifact of every role forms group i. Roles of unequal length are refused by artifact
// validation (ZIP_LENGTH_MISMATCH); until then, positions beyond the shortest role are unpaired.
export function pairByPosition(roles: readonly InputArtifact[][]): InputPairing {
  const length = roles.length === 0 ? 0 : Math.min(...roles.map((role) => role.length));
  const groups = Array.from({ length }, (_, i) => roles.map((role) => role[i]));
  const unpaired = roles.flatMap((role) => role.slice(length));
  return { strategy: "ZIP", groups, unpaired };
}

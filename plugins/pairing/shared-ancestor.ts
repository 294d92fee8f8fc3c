import type { InputArtifact, InputPairing, ReadPort } from "../types";

// LINEAGE: exactly two roles (checked at registration); an artifact of the first and one of the second
// form a group when they share an ancestor in the provenance graph, each artifact counting as its own
// ancestor (so a derived artifact pairs with what it derives from). Groups by first-role position, then
// second-role position; artifacts in no group are unpaired.
export async function pairBySharedAncestor(roles: readonly InputArtifact[][], port: ReadPort): Promise<InputPairing> {
  const [left = [], right = []] = roles;
  const ids = [...new Set([...left, ...right].map((input) => input.id))];
  const lineage = new Map(ids.map((id) => [id, new Set([id])]));
  if (ids.length > 0) for (const { id, ancestorId } of await port.ancestorsOf(ids)) lineage.get(id)?.add(ancestorId);
  const shareAncestor = (a: InputArtifact, b: InputArtifact) => {
    const of = lineage.get(b.id)!;
    for (const ancestor of lineage.get(a.id)!) if (of.has(ancestor)) return true;
    return false;
  };
  const groups: InputArtifact[][] = [];
  const paired = new Set<InputArtifact>();
  for (const a of left) {
    for (const b of right) {
      if (!shareAncestor(a, b)) continue;
      groups.push([a, b]);
      paired.add(a).add(b);
    }
  }
  return { strategy: "LINEAGE", groups, unpaired: [...left, ...right].filter((input) => !paired.has(input)) };
}

import { InvalidIdError } from "../services/errors";
import { idKindOf } from "../services/ids";

/**
 * Relay global ids are the domain ids themselves: their prefix names the type, so `node(id)`
 * resolves them without a base64 wrapper that users would have to translate.
 */
const TYPE_BY_KIND = { artifact: "Artifact", run: "Execution", operation: "Operation" } as const;

export function encodeNodeId(_typename: string, id: string | number | bigint): string {
  return String(id);
}

export function decodeNodeId(globalId: string): { typename: string; id: string } {
  return { typename: nodeTypenameOf("id", globalId), id: globalId };
}

/** The type an id names; INVALID_ID (naming the argument `field`) when it names none. */
export function nodeTypenameOf(field: string, id: string): string {
  const kind = idKindOf(id);
  const typename = kind && kind in TYPE_BY_KIND ? TYPE_BY_KIND[kind as keyof typeof TYPE_BY_KIND] : undefined;
  if (!typename) throw new InvalidIdError(field, id, "node (art_…, run_… or op_…)");
  return typename;
}

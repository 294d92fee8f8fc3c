import { InvalidIdError, NotFoundError } from "../services/errors";
import { type ArtifactId, type IdKind, isIdOfKind, type RunId, type SpecId } from "../services/ids";

/** Checks an id argument's shape before any query runs: a malformed id is INVALID_ID, not "not found". */
function idArg<T extends string>(kind: IdKind, example: string) {
  return (field: string, value: string | number): T => {
    const id = String(value);
    if (!isIdOfKind(id, kind)) throw new InvalidIdError(field, id, `${kind} (${example})`);
    return id as T;
  };
}

export const artifactIdArg = idArg<ArtifactId>("artifact", "art_…");
export const runIdArg = idArg<RunId>("run", "run_…");
export const specIdArg = idArg<SpecId>("spec", "spec_…");

/** A DataLoader batch for a node type: the found records in key order, a NOT_FOUND error for each missing key. */
export function loadOrNotFound<T>(kind: string, load: (ids: string[]) => Promise<(T | null)[]>) {
  return async (ids: string[]): Promise<(T | NotFoundError)[]> => {
    const found = await load(ids);
    return found.map((record, i) => record ?? new NotFoundError(kind, ids[i]));
  };
}

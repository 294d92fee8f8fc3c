import { InvalidIdError } from "../services/errors";
import { type ArtifactId, type IdKind, isIdOfKind, parseRunId, type RunId, type SpecId } from "../services/ids";

/** Checks an id argument's shape before any query runs: a malformed id is INVALID_ID, not "not found". */
function idArg<T extends string>(kind: IdKind, example: string) {
  return (field: string, value: string | number): T => {
    const id = String(value);
    if (!isIdOfKind(id, kind)) throw new InvalidIdError(field, id, `${kind} (${example})`);
    return id as T;
  };
}

export const artifactIdArg = idArg<ArtifactId>("artifact", "art_…");
/** A runId argument: `run_<uuid>`, or the bare UUID an OpenLineage producer sent. */
export function runIdArg(field: string, value: string | number): RunId {
  const id = parseRunId(String(value));
  if (!id) throw new InvalidIdError(field, String(value), "run (run_… or an OpenLineage run UUID)");
  return id;
}
export const specIdArg = idArg<SpecId>("spec", "spec_…");

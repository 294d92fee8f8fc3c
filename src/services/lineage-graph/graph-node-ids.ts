import { InvalidIdError } from "../errors";
import { type ArtifactId, isIdOfKind, parseRunId, type RunId } from "../ids";

/**
 * The ids of a lineage graph's nodes: an artifact (or dataset version) is its `art_…` id, a run its
 * `run_…` id, and a column `col:<art_…>:<field>` with the field URI-encoded (a field may hold `:`,
 * `/` or any other character). Every graph argument takes these, and search returns them, so a
 * client can pass any node it drew back to the server.
 */
export type GraphNodeKind = "ARTIFACT" | "RUN" | "COLUMN";

export type GraphNodeRef =
  | { kind: "ARTIFACT"; id: ArtifactId }
  | { kind: "RUN"; id: RunId }
  | { kind: "COLUMN"; id: string; artifactId: ArtifactId; field: string };

const COLUMN_PREFIX = "col:";

/** The node id of a column of a dataset version. */
export function columnNodeId(artifactId: string, field: string): string {
  return `${COLUMN_PREFIX}${artifactId}:${encodeURIComponent(field)}`;
}

/** What a node id names; INVALID_ID (naming the argument `field`) when it is none of the three forms. */
export function parseGraphNodeId(field: string, value: string | number): GraphNodeRef {
  const id = String(value);
  if (isIdOfKind(id, "artifact")) return { kind: "ARTIFACT", id: id as ArtifactId };
  const runId = id.startsWith("run_") ? parseRunId(id) : undefined;
  if (runId) return { kind: "RUN", id: runId };
  if (id.startsWith(COLUMN_PREFIX)) {
    const rest = id.slice(COLUMN_PREFIX.length);
    const colon = rest.indexOf(":");
    const artifactId = colon < 0 ? "" : rest.slice(0, colon);
    const encoded = colon < 0 ? "" : rest.slice(colon + 1);
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(encoded);
    } catch {
      decoded = undefined;
    }
    // One spelling per column: the id must be exactly what columnNodeId makes of it.
    if (isIdOfKind(artifactId, "artifact") && decoded && columnNodeId(artifactId, decoded) === id) {
      return { kind: "COLUMN", id, artifactId: artifactId as ArtifactId, field: decoded };
    }
  }
  throw new InvalidIdError(field, id, "graph node (art_…, run_… or col:<art_…>:<field>)");
}

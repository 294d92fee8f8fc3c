import { NotFoundError } from "../errors";
import type { ArtifactId } from "../ids";
import { type ClosureReader, LINEAGE_DIRECTIONS, type LineageDirection, MAX_CLOSURE_NODES } from "../lineage";

/** What a lineageAdded subscriber watches: the closure of one artifact in one direction. */
export interface LineageKey {
  artifactId: ArtifactId;
  direction: LineageDirection;
}

export const lineageKeyOf = (key: LineageKey): string => `${key.direction} ${key.artifactId}`;

interface EdgeEnds {
  sourceId: string;
  targetId: string;
}

const opposite = (direction: LineageDirection): LineageDirection => (direction === "DOWNSTREAM" ? "UPSTREAM" : "DOWNSTREAM");

/**
 * Which of a committed batch's new edges lie inside each watched closure: for a DOWNSTREAM key X,
 * the edges whose source is X or one of X's descendants (their targets are X's new descendants);
 * for UPSTREAM, the edges whose target is X or one of its ancestors. Answers, per key
 * (lineageKeyOf), the indices of those edges in `edges`.
 *
 * Evaluated with the closure SQL (services/lineage), after the batch committed, with whichever
 * side needs fewer walks: one closure per distinct watched artifact (X's closure contains the
 * edge's near end), or one per distinct near end of the batch's edges (the near end's closure the
 * other way contains X). So a batch costs at most min(watched artifacts, distinct near ends)
 * closure statements per direction, however many subscribers watch, each walk bounded like the
 * lineage query's (MAX_CLOSURE_NODES nodes; a closure cut there is reported to `onCut`).
 */
export async function edgesInClosures(
  closures: ClosureReader,
  keys: readonly LineageKey[],
  edges: readonly EdgeEnds[],
  onCut: (rootId: ArtifactId, direction: LineageDirection) => void,
): Promise<Map<string, Set<number>>> {
  const matches = new Map<string, Set<number>>();
  const add = (artifactId: ArtifactId, direction: LineageDirection, indices: readonly number[]) => {
    const key = lineageKeyOf({ artifactId, direction });
    let set = matches.get(key);
    if (!set) matches.set(key, (set = new Set()));
    for (const index of indices) set.add(index);
  };
  const reachOf = async (rootId: ArtifactId, direction: LineageDirection): Promise<ArtifactId[]> => {
    try {
      const closure = await closures.closure({ rootId, direction, first: MAX_CLOSURE_NODES, edgeDetails: false });
      if (closure.truncated) onCut(rootId, direction);
      return [rootId, ...closure.nodes.map((node) => node.artifactId)];
    } catch (error) {
      // A watched artifact that is not stored (yet) has no closure but itself.
      if (error instanceof NotFoundError) return [rootId];
      throw error;
    }
  };
  for (const direction of LINEAGE_DIRECTIONS) {
    const roots = [...new Set(keys.filter((key) => key.direction === direction).map((key) => key.artifactId))];
    if (roots.length === 0) continue;
    const edgesByNearEnd = new Map<ArtifactId, number[]>();
    edges.forEach((edge, index) => {
      const near = (direction === "DOWNSTREAM" ? edge.sourceId : edge.targetId) as ArtifactId;
      const list = edgesByNearEnd.get(near);
      if (list) list.push(index);
      else edgesByNearEnd.set(near, [index]);
    });
    if (edgesByNearEnd.size === 0) continue;
    if (roots.length <= edgesByNearEnd.size) {
      for (const root of roots) {
        for (const member of await reachOf(root, direction)) {
          const indices = edgesByNearEnd.get(member);
          if (indices) add(root, direction, indices);
        }
      }
    } else {
      const watched = new Set(roots);
      for (const [near, indices] of edgesByNearEnd) {
        for (const member of await reachOf(near, opposite(direction))) if (watched.has(member)) add(member, direction, indices);
      }
    }
  }
  return matches;
}

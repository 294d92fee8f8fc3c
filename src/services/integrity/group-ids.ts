import type { Db } from "../../db/client";
import { Prisma } from "../../generated/sqlite/client";
import { groupIdFor } from "../recording";
import { type Invariant, ViolationSample } from "./invariant";

/** Runs read per page: a run's edges are read together, so each of its groups is whole. */
const RUNS_PER_PAGE = 500;

interface EdgeRow {
  runId: string;
  targetId: string;
  groupId: string | null;
  sourceId: string;
}

/**
 * Seed "Co-input edges": the edges one run recorded for one target under one groupId are one joint
 * derivation, and the groupId is the hash of the set of their sources (the recorder's own groupIdFor).
 * SQL cannot hash portably, so the edges are read a page of runs at a time and hashed here.
 */
export const groupIds: Invariant = {
  name: "group-ids",
  description: "Every edge's groupId is the hash of the sources of the edges its run recorded for its target under that groupId.",
  async check(db: Db, { sample }) {
    const found = new ViolationSample(sample);
    let checked = 0;
    let after = "";
    for (;;) {
      const runs = await db.$queryRaw<{ runId: string }[]>(
        Prisma.sql`SELECT DISTINCT "runId" FROM "ProvenanceEdge" WHERE "runId" > ${after} ORDER BY "runId" LIMIT ${RUNS_PER_PAGE}`,
      );
      if (runs.length === 0) break;
      const first = runs[0].runId;
      const last = runs[runs.length - 1].runId;
      const edges = await db.$queryRaw<EdgeRow[]>(
        Prisma.sql`SELECT "runId", "targetId", "groupId", "sourceId" FROM "ProvenanceEdge" WHERE "runId" >= ${first} AND "runId" <= ${last}`,
      );
      checked += edges.length;
      const groups = new Map<string, { runId: string; targetId: string; groupId: string; sources: string[] }>();
      for (const edge of edges) {
        if (edge.groupId === null) {
          found.add({ subject: edge.runId, detail: `an edge from ${edge.sourceId} to ${edge.targetId} has no groupId` });
          continue;
        }
        const key = `${edge.runId}\u0000${edge.targetId}\u0000${edge.groupId}`;
        const group = groups.get(key) ?? { runId: edge.runId, targetId: edge.targetId, groupId: edge.groupId, sources: [] };
        group.sources.push(edge.sourceId);
        groups.set(key, group);
      }
      for (const group of groups.values()) {
        const expected = groupIdFor(group.sources);
        if (expected !== group.groupId) {
          found.add({ subject: group.runId, detail: `group ${group.groupId} of ${group.targetId} has sources [${[...new Set(group.sources)].sort().join(", ")}], whose hash is ${expected}` });
        }
      }
      after = last;
      if (runs.length < RUNS_PER_PAGE) break;
    }
    return found.result(checked);
  },
};

import { inChunks } from "../../db/chunked-lists";
import type { ReadPort } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { Prisma } from "../../generated/sqlite/client";
import type { PendingRecords } from "./pending-records";
import { storedArtifacts } from "./stored-artifacts";
import { appendTo } from "../grouping";

/**
 * The ReadPort plugins get, reading through the recording's own transaction, and seeing what the
 * unit has prepared but not staged yet (`pending`) as if it were stored.
 */
export function prismaReadPort(tx: DbTx, pending?: PendingRecords): ReadPort {
  return {
    artifactsByIds: async (ids) => {
      const fromPending = pending ? ids.flatMap((id) => (pending.artifacts.has(id) ? [pending.artifacts.get(id)!] : [])) : [];
      const rest = ids.filter((id) => !pending?.artifacts.has(id));
      const stored = (await storedArtifacts(tx, rest)).map((a) => ({ id: a.id as string, artifactType: a.artifactType, originalName: a.originalName }));
      return [...fromPending.map((a) => ({ id: a.id as string, artifactType: a.artifactType, originalName: a.originalName })), ...stored];
    },
    ancestorsOf: async (ids) => {
      // Pending edges first (in memory), then the stored ancestors of everything reached, in SQL.
      const sourcesOf = new Map<string, string[]>();
      for (const edge of pending?.edges ?? []) appendTo(sourcesOf, edge.targetId, edge.sourceId);
      const reached = new Map<string, Set<string>>();
      for (const id of new Set(ids)) {
        const seen = new Set<string>([id]);
        const queue = [id];
        while (queue.length > 0) for (const source of sourcesOf.get(queue.pop()!) ?? []) if (!seen.has(source)) seen.add(source), queue.push(source);
        reached.set(id, seen);
      }
      const stored = await storedAncestors(tx, [...new Set([...reached.values()].flatMap((set) => [...set]))]);
      const rows: { id: string; ancestorId: string }[] = [];
      for (const [id, seen] of reached) {
        const all = new Set(seen);
        for (const node of seen) for (const ancestor of stored.get(node) ?? []) all.add(ancestor);
        all.delete(id);
        for (const ancestorId of all) rows.push({ id, ancestorId });
      }
      return rows;
    },
  };
}

/** Every stored ancestor of each id, by one recursive statement per chunk (UNION ends cycles). */
async function storedAncestors(tx: DbTx, ids: string[]): Promise<Map<string, string[]>> {
  const ancestors = new Map<string, string[]>();
  const rows = await inChunks(ids, (chunk) =>
    tx.$queryRaw<{ id: string; ancestorId: string }[]>(Prisma.sql`
      WITH RECURSIVE walk(root, node) AS (
        SELECT e."targetId", e."sourceId" FROM "ProvenanceEdge" e WHERE e."targetId" IN (${Prisma.join(chunk)})
        UNION
        SELECT w.root, e."sourceId" FROM walk w JOIN "ProvenanceEdge" e ON e."targetId" = w.node
      )
      SELECT root AS "id", node AS "ancestorId" FROM walk WHERE node <> root`),
  );
  for (const row of rows) appendTo(ancestors, row.id, row.ancestorId);
  return ancestors;
}

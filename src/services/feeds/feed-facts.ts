import { inChunks } from "../../db/chunked-lists";
import type { ProvenanceEdgeDraft } from "../../../plugins/types";
import type { Db } from "../../db/client";
import { Prisma } from "../../generated/sqlite/client";
import type { ArtifactId, OperationId, RunId } from "../ids";
import { type ClosureReader, type LineageDirection, type ProvenanceEdgeRecord, toProvenanceEdgeRecord } from "../lineage";
import { edgesOfEvent, type FeedEntry } from "./feed-entry";
import { edgesInClosures, type LineageKey, lineageKeyOf } from "./lineage-reach";

/** What the subscribers of a batch need to know beyond the events themselves. */
export interface FeedNeeds {
  operationNames: boolean;
  namespaces: boolean;
  /** By lineageKeyOf. */
  lineage: ReadonlyMap<string, LineageKey>;
}

export const NO_NEEDS: FeedNeeds = { operationNames: false, namespaces: false, lineage: new Map() };

export function mergeNeeds(a: FeedNeeds, b: FeedNeeds): FeedNeeds {
  if (b.lineage.size === 0 && (!b.operationNames || a.operationNames) && (!b.namespaces || a.namespaces)) return a;
  return { operationNames: a.operationNames || b.operationNames, namespaces: a.namespaces || b.namespaces, lineage: new Map([...a.lineage, ...b.lineage]) };
}

/**
 * The facts about one batch of entries, read once for all its subscribers (so a batch costs the
 * same few statements whether 1 or 1,000 subscribers filter it): operation names, the dataset
 * namespaces each run touched, and which edges lie inside each watched closure.
 */
export class FeedFacts {
  constructor(
    readonly needs: FeedNeeds,
    private readonly operationNames: ReadonlyMap<OperationId, string>,
    private readonly namespaces: ReadonlyMap<RunId, ReadonlySet<string>>,
    private readonly lineage: ReadonlyMap<string, ReadonlyMap<number, ProvenanceEdgeRecord[]>>,
  ) {}

  covers(needs: FeedNeeds): boolean {
    return (!needs.operationNames || this.needs.operationNames) && (!needs.namespaces || this.needs.namespaces) && [...needs.lineage.keys()].every((key) => this.needs.lineage.has(key));
  }

  operationName(id: OperationId): string | undefined {
    return this.operationNames.get(id);
  }

  /** The dataset namespaces of the artifacts the run consumed or produced. */
  namespacesOf(runId: RunId): ReadonlySet<string> {
    return this.namespaces.get(runId) ?? EMPTY;
  }

  /** The edges of the entry (by sequence) inside the watched closure, as stored; undefined when none. */
  lineageEdges(key: LineageKey, sequence: number): readonly ProvenanceEdgeRecord[] | undefined {
    return this.lineage.get(lineageKeyOf(key))?.get(sequence);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

export class FeedFactReader {
  /** Operations are immutable, so their names are kept once read (one entry per registered operation). */
  private readonly operationNames = new Map<OperationId, string>();

  constructor(
    private readonly db: Db,
    private readonly closures: ClosureReader,
    private readonly onClosureCut: (rootId: ArtifactId, direction: LineageDirection) => void,
  ) {}

  async prepare(entries: readonly FeedEntry[], needs: FeedNeeds): Promise<FeedFacts> {
    if (needs.operationNames) await this.readOperationNames(entries);
    const namespaces = needs.namespaces ? await this.readNamespaces(entries) : new Map<RunId, Set<string>>();
    const lineage = needs.lineage.size > 0 ? await this.readLineage(entries, [...needs.lineage.values()]) : new Map();
    return new FeedFacts(needs, this.operationNames, namespaces, lineage);
  }

  private async readOperationNames(entries: readonly FeedEntry[]): Promise<void> {
    const unknown = new Set<OperationId>();
    for (const { event } of entries) {
      if (event.type !== "LINEAGE_RECORDED" && !this.operationNames.has(event.execution.operationId)) unknown.add(event.execution.operationId);
    }
    if (unknown.size === 0) return;
    const rows = await inChunks(unknown, (chunk) => this.db.operation.findMany({ where: { id: { in: chunk } }, select: { id: true, name: true } }));
    for (const row of rows) this.operationNames.set(row.id as OperationId, row.name);
  }

  private async readNamespaces(entries: readonly FeedEntry[]): Promise<Map<RunId, Set<string>>> {
    const runIds = [...new Set(entries.filter((entry) => entry.event.type === "EXECUTION_RECORDED").map((entry) => (entry.event as { execution: { runId: RunId } }).execution.runId))];
    const namespaces = new Map<RunId, Set<string>>();
    if (runIds.length === 0) return namespaces;
    const rows = await inChunks(runIds, (chunk) =>
      this.db.$queryRaw<{ runId: string; namespace: string }[]>(
        Prisma.sql`SELECT DISTINCT l."runId" AS "runId", a."datasetNamespace" AS "namespace" FROM "ExecutionArtifact" l JOIN "Artifact" a ON a.id = l."artifactId" WHERE l."runId" IN (${Prisma.join(chunk)}) AND a."datasetNamespace" IS NOT NULL`,
      ),
    );
    for (const row of rows) {
      const set = namespaces.get(row.runId as RunId);
      if (set) set.add(row.namespace);
      else namespaces.set(row.runId as RunId, new Set([row.namespace]));
    }
    return namespaces;
  }

  private async readLineage(entries: readonly FeedEntry[], keys: readonly LineageKey[]): Promise<Map<string, Map<number, ProvenanceEdgeRecord[]>>> {
    const flat: { entry: FeedEntry; edge: ProvenanceEdgeDraft }[] = [];
    for (const entry of entries) for (const edge of edgesOfEvent(entry.event)) flat.push({ entry, edge });
    const result = new Map<string, Map<number, ProvenanceEdgeRecord[]>>();
    if (flat.length === 0) return result;
    const matched = await edgesInClosures(this.closures, keys, flat.map(({ edge }) => edge), this.onClosureCut);
    if (matched.size === 0) return result;
    const records = await this.storedEdges(flat, new Set([...matched.values()].flatMap((indices) => [...indices])));
    for (const [key, indices] of matched) {
      const bySequence = new Map<number, ProvenanceEdgeRecord[]>();
      for (const index of [...indices].sort((a, b) => a - b)) {
        const record = records.get(index);
        if (!record) continue;
        const sequence = flat[index].entry.sequence;
        const list = bySequence.get(sequence);
        if (list) list.push(record);
        else bySequence.set(sequence, [record]);
      }
      result.set(key, bySequence);
    }
    return result;
  }

  /**
   * The stored rows of the edges at `indices` (drafts carry no id nor time), one statement for the
   * runs involved; a run's edges are matched to its drafts in recording order.
   */
  private async storedEdges(flat: readonly { entry: FeedEntry; edge: ProvenanceEdgeDraft }[], indices: ReadonlySet<number>): Promise<Map<number, ProvenanceEdgeRecord>> {
    const runIds = [...new Set([...indices].map((index) => flat[index].edge.runId))];
    const rows = await inChunks(runIds, (chunk) => this.db.provenanceEdge.findMany({ where: { runId: { in: chunk } }, orderBy: { id: "asc" } }));
    const byKey = new Map<string, ProvenanceEdgeRecord[]>();
    const keyOf = (e: { runId: string; sourceId: string; targetId: string; kind: string; groupId: string | null }) => [e.runId, e.sourceId, e.targetId, e.kind, e.groupId ?? ""].join("\u0000");
    for (const row of rows) {
      const record = toProvenanceEdgeRecord(row);
      const list = byKey.get(keyOf(record));
      if (list) list.push(record);
      else byKey.set(keyOf(record), [record]);
    }
    const answer = new Map<number, ProvenanceEdgeRecord>();
    // Every draft takes the next unused row with its key, so the same edge recorded by two events of one run maps to two rows.
    flat.forEach(({ edge }, index) => {
      const record = byKey.get(keyOf(edge))?.shift();
      if (record && indices.has(index)) answer.set(index, record);
    });
    return answer;
  }
}

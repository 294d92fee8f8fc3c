import type { ColumnEdgeStep, ProvenanceEdgeDraft, WrittenLineage } from "../../../plugins/types";
import type { DbTx } from "../../db/client";

/**
 * A data subject declared on an artifact a unit records: the key as the request gave it (`raw`,
 * recordExecution) or already as its keyed hash (`hash`, OpenLineage hashes keys as events arrive).
 * `at` names where it was declared, for the refusal: a GraphQL field path or an event's JSON pointer.
 */
export interface SubjectDeclarationDraft {
  artifactId: string;
  key: { raw: string } | { hash: string };
  at: { field: string } | { pointer: string };
}

/** Everything a recording unit staged that something must be derived from or checked against before it commits. */
export interface UnitWrites extends WrittenLineage {
  subjects: readonly SubjectDeclarationDraft[];
}

type Collected = { [K in keyof UnitWrites]: UnitWrites[K] extends readonly (infer T)[] ? T[] : never };

/**
 * The writes of the unit running in each transaction. The staging functions (stageExecutions,
 * stageAppends, stageColumnEdges, the compliance room's tag and subject staging) note here what they
 * wrote, so whatever path wrote lineage, the commit path hands all of it to the unit's finisher
 * (the propagate plugins, the suppression check) before the commit. Keyed by the transaction client,
 * which a unit passes to everything it calls.
 */
const units = new WeakMap<object, Collected>();

export function beginUnitWrites(tx: DbTx): void {
  units.set(tx, { artifactEdges: [], columnEdges: [], assignedTags: [], downgradedTags: [], subjects: [] });
}

/** What the unit wrote (nothing when none was begun on `tx`); the record is closed. */
export function endUnitWrites(tx: DbTx): UnitWrites {
  const writes = units.get(tx) ?? { artifactEdges: [], columnEdges: [], assignedTags: [], downgradedTags: [], subjects: [] };
  units.delete(tx);
  return writes;
}

/** Adds to the record of the unit running in `tx`; outside a unit (a bare transaction) nothing is kept. */
export function noteUnitWrites(tx: DbTx, writes: Partial<UnitWrites>): void {
  const unit = units.get(tx);
  if (!unit) return;
  if (writes.artifactEdges) unit.artifactEdges.push(...(writes.artifactEdges as ProvenanceEdgeDraft[]));
  if (writes.columnEdges) unit.columnEdges.push(...(writes.columnEdges as ColumnEdgeStep[]));
  if (writes.assignedTags) unit.assignedTags.push(...writes.assignedTags);
  if (writes.downgradedTags) unit.downgradedTags.push(...writes.downgradedTags);
  if (writes.subjects) unit.subjects.push(...writes.subjects);
}

export function isEmptyUnitWrites(writes: UnitWrites): boolean {
  return writes.artifactEdges.length + writes.columnEdges.length + writes.assignedTags.length + writes.downgradedTags.length + writes.subjects.length === 0;
}

import type { WrittenLineage } from "../../../plugins/types";
import type { DbTx } from "../../db/client";

/**
 * A data subject declared on an artifact a unit records: the key as the request gave it (`raw`,
 * recordExecution) or already as its keyed hash (`hash`, OpenLineage hashes keys as events arrive).
 * `at` names where it was declared, for the refusal: a GraphQL field path or an event's JSON pointer.
 */
export interface SubjectDeclarationDraft {
  artifactId: string;
  /** `legacy`: the hash the key had before keys were normalised, when it differs (old tombstones match it). */
  key: { raw: string } | { hash: string; legacy?: readonly string[] };
  at: { field: string } | { pointer: string };
}

/** Who recorded something: the principal's name (a token's, or "open mode") and token. */
export interface RecordingActor {
  name: string;
  tokenId: string | null;
  /** The purposes it may act under (its purpose:<NAME> scopes; "ANY" in open mode); absent: not checked (a caller inside the process). */
  purposes?: readonly string[] | "ANY";
}

/**
 * A release a unit records: a run that declared its privacy cost (recordExecution's `privacyCost`,
 * OpenLineage's provgraph_privacyCost run facet), with what it read (the closure starts from its
 * inputs), who recorded it and where the cost was declared (for a refusal).
 */
export interface PrivacyReleaseDraft {
  runId: string;
  cost: { epsilon: number; delta: number; mechanism: string };
  inputIds: readonly string[];
  principal: RecordingActor;
  at: { field: string } | { pointer: string };
}

/**
 * A run that declared the purpose it acts under (recordExecution's `purpose`, OpenLineage's
 * provgraph_purpose job facet), with what it read: checked against the purposes the tags on its
 * inputs allow before the unit commits.
 */
export interface RunPurposeDraft {
  runId: string;
  purpose: string;
  inputIds: readonly string[];
  principal: RecordingActor;
  at: { field: string } | { pointer: string };
}

/**
 * A row a unit wrote that search finds (src/services/discovery indexes them before the unit commits):
 * an artifact it created, a column a dataset version reported (its schema, or a column edge naming
 * it), an operation it registered, a pipeline step it claimed, a policy tag it assigned.
 */
export type SearchableWrite =
  | { kind: "ARTIFACT"; id: string; originalName: string; artifactType: string; dataset: { namespace: string; name: string } | null }
  | { kind: "COLUMN"; artifactId: string; field: string; description: string | null }
  | { kind: "OPERATION"; id: string; name: string; version: string; operationKind: string }
  | { kind: "PIPELINE"; name: string }
  | { kind: "POLICY_TAG"; tag: string };

/** Everything a recording unit staged that something must be derived from or checked against before it commits. */
export interface UnitWrites extends WrittenLineage {
  subjects: readonly SubjectDeclarationDraft[];
  searchable: readonly SearchableWrite[];
  privacyReleases: readonly PrivacyReleaseDraft[];
  runPurposes: readonly RunPurposeDraft[];
}

type Collected = { [K in keyof UnitWrites]: UnitWrites[K] extends readonly (infer T)[] ? T[] : never };

/**
 * The writes of the unit running in each transaction. The staging functions (stageExecutions,
 * stageAppends, stageColumnEdges, the compliance room's tag and subject staging, operation
 * registration) note here what they wrote, so whatever path wrote it, the commit path hands all of
 * it to the unit's finisher (the propagate plugins, the suppression check, the search index) before the commit. Keyed by the transaction client,
 * which a unit passes to everything it calls.
 */
const units = new WeakMap<object, Collected>();

const emptyWrites = (): Collected => ({ artifactEdges: [], columnEdges: [], assignedTags: [], downgradedTags: [], datasetVersions: [], subjects: [], searchable: [], privacyReleases: [], runPurposes: [] });
const KEYS = Object.keys(emptyWrites()) as (keyof UnitWrites)[];

export function beginUnitWrites(tx: DbTx): void {
  units.set(tx, emptyWrites());
}

/** What the unit wrote (nothing when none was begun on `tx`); the record is closed. */
export function endUnitWrites(tx: DbTx): UnitWrites {
  const writes = units.get(tx) ?? emptyWrites();
  units.delete(tx);
  return writes;
}

/** Adds to the record of the unit running in `tx`; outside a unit (a bare transaction) nothing is kept. */
export function noteUnitWrites(tx: DbTx, writes: Partial<UnitWrites>): void {
  const unit = units.get(tx);
  if (!unit) return;
  for (const key of KEYS) {
    const added = writes[key];
    if (added && added.length > 0) (unit[key] as unknown[]).push(...added);
  }
}

export function isEmptyUnitWrites(writes: UnitWrites): boolean {
  return KEYS.every((key) => writes[key].length === 0);
}

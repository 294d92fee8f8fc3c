import crypto from "node:crypto";
import { v7 as uuidv7 } from "uuid";

/**
 * Domain ids. Every id carries a short type prefix so one string serves everywhere: the id an
 * object returns is the id every argument (and `node(id)`) accepts, with no wrapper to translate.
 */
declare const brand: unique symbol;
type Branded<T, B extends string> = T & { readonly [brand]: B };

/** Content-addressed: "art_" + hash(artifact type, content hash). */
export type ArtifactId = Branded<string, "ArtifactId">;
/**
 * One attempt: "run_" + a UUID in lower case. Server-made ones are UUIDv7 (time-ordered, so ordering
 * by id is ordering by recording time); OpenLineage runs keep the UUID their producer chose (any version).
 */
export type RunId = Branded<string, "RunId">;
/** One request: "spec_" + hash(operation, version, canonical params, input ids by role). */
export type SpecId = Branded<string, "SpecId">;
/** "op_" + hash(name, version). */
export type OperationId = Branded<string, "OperationId">;

/** An erasure plan: "erp_" + UUIDv7 (time-ordered). */
export type ErasurePlanId = Branded<string, "ErasurePlanId">;

export type IdKind = "artifact" | "run" | "spec" | "operation" | "erasurePlan";

const ID_PATTERNS: Record<IdKind, RegExp> = {
  artifact: /^art_[0-9a-f]{40}$/,
  run: /^run_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  spec: /^spec_[0-9a-f]{40}$/,
  operation: /^op_[0-9a-f]{40}$/,
  erasurePlan: /^erp_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
};

const PREFIXES: Record<string, IdKind> = { art: "artifact", run: "run", spec: "spec", op: "operation", erp: "erasurePlan" };

export function digest40(...parts: string[]): string {
  // NUL separators keep ("ab","c") and ("a","bc") apart.
  return crypto.createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 40);
}

export function artifactIdFor(artifactType: string, contentHash: string): ArtifactId {
  return `art_${digest40("artifact", artifactType, contentHash)}` as ArtifactId;
}

export function operationIdFor(name: string, version: string): OperationId {
  return `op_${digest40("operation", name, version)}` as OperationId;
}

export function newRunId(): RunId {
  return `run_${uuidv7()}` as RunId;
}

export function newErasurePlanId(): ErasurePlanId {
  return `erp_${uuidv7()}` as ErasurePlanId;
}

/** A UUID of any version, in any case, optionally as a `urn:uuid:` URN (what JSON Schema's "uuid" format accepts). */
const UUID = /^(?:urn:uuid:)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** The runId of a run its producer named by a UUID (an OpenLineage runId), or undefined when `uuid` is not one. */
export function runIdForUuid(uuid: string): RunId | undefined {
  const match = UUID.exec(uuid);
  return match ? (`run_${match[1].toLowerCase()}` as RunId) : undefined;
}

/** A runId given as `run_<uuid>` or as the bare UUID (an OpenLineage runId), or undefined. */
export function parseRunId(value: string): RunId | undefined {
  return isIdOfKind(value, "run") ? (value as RunId) : runIdForUuid(value);
}

export function specIdFrom(canonicalSpec: string): SpecId {
  return `spec_${digest40("spec", canonicalSpec)}` as SpecId;
}

/** The kind an id names, or undefined when it is not a well-formed provgraph id. */
export function idKindOf(id: string): IdKind | undefined {
  const kind = PREFIXES[id.slice(0, id.indexOf("_"))];
  return kind && ID_PATTERNS[kind].test(id) ? kind : undefined;
}

export function isIdOfKind(id: string, kind: IdKind): boolean {
  return ID_PATTERNS[kind].test(id);
}

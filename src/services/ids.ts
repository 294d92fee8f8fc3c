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
/** One attempt: "run_" + UUIDv7 (time-ordered, so ordering by id is ordering by time). */
export type RunId = Branded<string, "RunId">;
/** One request: "spec_" + hash(operation, version, canonical params, input ids by role). */
export type SpecId = Branded<string, "SpecId">;
/** "op_" + hash(name, version). */
export type OperationId = Branded<string, "OperationId">;

export type IdKind = "artifact" | "run" | "spec" | "operation";

const ID_PATTERNS: Record<IdKind, RegExp> = {
  artifact: /^art_[0-9a-f]{40}$/,
  run: /^run_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  spec: /^spec_[0-9a-f]{40}$/,
  operation: /^op_[0-9a-f]{40}$/,
};

const PREFIXES: Record<string, IdKind> = { art: "artifact", run: "run", spec: "spec", op: "operation" };

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

import { DomainError } from "../errors";

/** downgradeTag on a node that does not hold the tag by inheritance: it was assigned there, or it is not held at all. */
export class TagNotInheritedError extends DomainError {
  readonly code = "TAG_NOT_INHERITED";
  constructor(target: string, tag: string, reason: "ASSIGNED" | "NOT_HELD", message: string) {
    super(`${target} ${message}`, { field: "tag", tag, reason });
  }
}

/** A recording or ingestion declares a data subject whose erasure put them on the suppression list. */
export class SubjectSuppressedError extends DomainError {
  readonly code = "SUBJECT_SUPPRESSED";
  constructor(at: { field: string } | { pointer: string }, artifact: string) {
    // Never the key itself: only where it was declared.
    const where = "field" in at ? at.field : at.pointer;
    super(`${where}: declares a data subject who was erased (their tombstone is on the suppression list): ${artifact} cannot be recorded with them`, "field" in at ? { field: at.field } : { pointer: at.pointer, reason: "the data subject was erased" });
  }
}

/** Subject keys are hashed with a server secret; without PROVGRAPH_ERASURE_SECRET nothing about subjects can be recorded. */
export class ErasureNotConfiguredError extends DomainError {
  readonly code = "ERASURE_NOT_CONFIGURED";
  constructor(at: { field: string } | { pointer: string }) {
    const where = "field" in at ? at.field : at.pointer;
    super(`${where}: data subjects need the server's PROVGRAPH_ERASURE_SECRET (their keys are stored only as keyed hashes); it is not configured`, "field" in at ? { field: at.field } : { pointer: at.pointer, reason: "PROVGRAPH_ERASURE_SECRET is not configured" });
  }
}

/** executeErasure on a plan that was executed already. */
export class ErasureAlreadyExecutedError extends DomainError {
  readonly code = "ERASURE_ALREADY_EXECUTED";
  constructor(planId: string, executedAt: Date) {
    super(`erasure plan ${planId} was executed at ${executedAt.toISOString()}`, { field: "planId", planId, executedAt: executedAt.toISOString() });
  }
}

/** An erasure plan's forward closure is larger than one plan may be. */
export class ErasurePlanTooLargeError extends DomainError {
  readonly code = "ERASURE_PLAN_TOO_LARGE";
  constructor(limit: number) {
    super(`the subject's data reaches more than ${limit} artifacts: too many for one plan`, { field: "subjectKey", limit });
  }
}

/** A signed document was asked for, and the server has no signing key (PROVGRAPH_SIGNING_KEY). */
export class SigningNotConfiguredError extends DomainError {
  readonly code = "SIGNING_NOT_CONFIGURED";
  constructor() {
    super("documents are signed with the server's PROVGRAPH_SIGNING_KEY, which is not configured", { field: "format", reason: "PROVGRAPH_SIGNING_KEY is not configured" });
  }
}

type At = { field: string } | { pointer: string };
const where = (at: At) => ("field" in at ? { field: at.field } : { pointer: at.pointer });

/** A request or a run states a purpose its token does not carry (a purpose:<NAME> scope). */
export class PurposeNotGrantedError extends DomainError {
  readonly code = "PURPOSE_NOT_GRANTED";
  readonly http = { status: 403, headers: {} as Record<string, string> };
  constructor(principal: string, purpose: string, at: At) {
    super(`'${principal}' may not act under purpose '${purpose}': its token carries no purpose:${purpose} scope`, { ...where(at), purpose, reason: `no purpose:${purpose} scope` });
  }
}

/** A run declares a purpose that a tag on what it reads does not allow: refused at recording, nothing written. */
export class PurposeNotPermittedError extends DomainError {
  readonly code = "PURPOSE_NOT_PERMITTED";
  constructor(at: At, runId: string, purpose: string, read: { artifactId: string; field: string | null; dataset: string | null }, tag: string, allowed: readonly string[]) {
    const what = `${read.field === null ? "" : `column ${read.field} of `}${read.dataset ?? read.artifactId}`;
    const serves = allowed.length === 0 ? "serves no purpose" : `serves only ${allowed.join(", ")}`;
    super(`run ${runId} declares purpose '${purpose}' and reads ${what}, which holds ${tag}: ${tag} ${serves}`, {
      ...where(at),
      reason: `${tag} does not serve ${purpose}`,
      runId,
      purpose,
      tag,
      allowedPurposes: [...allowed],
      artifactId: read.artifactId,
      column: read.field,
    });
  }
}

/** A run recorded under one purpose reports another: a run's purpose is fixed once recorded. */
export class PurposeChangedError extends DomainError {
  readonly code = "PURPOSE_CHANGED";
  constructor(at: At, runId: string, recorded: string) {
    super(`run ${runId} was recorded under purpose '${recorded}'; a run's purpose cannot change`, { ...where(at), reason: "a run's purpose is fixed once recorded", runId, purpose: recorded });
  }
}

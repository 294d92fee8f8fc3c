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

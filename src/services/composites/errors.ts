import { DomainError } from "../errors";
import type { WorkflowSoundness } from "./soundness";

/** What a composite error names, so a client can point at the culprit. */
export interface CompositeViolation {
  /** The rule broken, e.g. UNFED_INPUT, TYPE_MISMATCH, UNSOUND, STEP_ORDER. */
  rule: string;
  step?: string | null;
  role?: string | null;
  /** The offending wire as `from → to`. */
  wire?: string | null;
  candidates?: string[];
}

abstract class CompositeError extends DomainError {
  readonly rule: string;
  readonly step: string | null;
  readonly role: string | null;
  readonly wire: string | null;
  readonly candidates: string[];
  constructor(message: string, violation: CompositeViolation, extra: Record<string, unknown> = {}) {
    super(message, { ...violation, candidates: violation.candidates ?? [], ...extra });
    this.rule = violation.rule;
    this.step = violation.step ?? null;
    this.role = violation.role ?? null;
    this.wire = violation.wire ?? null;
    this.candidates = violation.candidates ?? [];
  }
}

/** A composite definition breaks a registration rule; UNSOUND carries the soundness report as its witness. */
export class CompositeDeclarationError extends CompositeError {
  readonly code = "COMPOSITE_DECLARATION";
  readonly soundness: WorkflowSoundness | null;
  constructor(message: string, violation: CompositeViolation, soundness: WorkflowSoundness | null = null) {
    super(message, violation, soundness ? { soundness } : {});
    this.soundness = soundness;
  }
}

/** A composite run does not fit its definition: an unknown or inactive step, steps out of order, a bad flag. */
export class CompositeExecutionError extends CompositeError {
  readonly code = "COMPOSITE_EXECUTION";
}

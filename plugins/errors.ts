/**
 * The failures a recording can end in. They are part of the plugin contract: plugins throw
 * them, the recording pipeline rolls back, and the API returns them as typed results carrying
 * a stable `code`, the rule broken and the offending role, output and candidates.
 */
export abstract class ProvenanceError extends Error {
  abstract readonly code: string;
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** What a lineage or declaration error names, so a client can point at the culprit. */
export interface ViolationDetails {
  /** The rule broken, e.g. REQUIRED_ROLE_MISSING, NO_LINEAGE_MAPPING, UNKNOWN_SOURCE. */
  rule: string;
  role?: string | null;
  output?: string | null;
  /** Every output the rule failed for (completeness reports them all at once). */
  outputs?: string[];
  candidates?: string[];
  /** The composite step whose execution broke the rule (recordCompositeExecution), else absent. */
  step?: string | null;
}

abstract class ViolationError extends ProvenanceError {
  readonly rule: string;
  readonly role: string | null;
  readonly output: string | null;
  readonly outputs: string[];
  readonly candidates: string[];
  readonly step: string | null;
  constructor(message: string, violation: ViolationDetails) {
    const outputs = violation.outputs ?? (violation.output ? [violation.output] : []);
    super(message, { ...violation, outputs });
    this.rule = violation.rule;
    this.role = violation.role ?? null;
    this.output = violation.output ?? null;
    this.outputs = outputs;
    this.candidates = violation.candidates ?? [];
    this.step = violation.step ?? null;
  }
}

/** Artifacts do not satisfy the operation's declared roles (seed: "Artifact validation"). */
export class ArtifactValidationError extends ViolationError {
  readonly code = "ARTIFACT_VALIDATION";
}

/** A non-orphan output has no source edge (seed: "Completeness validation"). */
export class LineageCompletenessError extends ViolationError {
  readonly code = "LINEAGE_COMPLETENESS";
}

/** A lineage reference points at nothing real, or twice at one draft (seed: "Integrity validation"). */
export class LineageIntegrityError extends ViolationError {
  readonly code = "LINEAGE_INTEGRITY";
}

/** An operation declaration breaks the rules checked at registration ("class definition time"). */
export class OperationDeclarationError extends ViolationError {
  readonly code = "OPERATION_DECLARATION";
}

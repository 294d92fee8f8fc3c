import type { Db } from "../../db/client";

/** One row that breaks an invariant: what it is (an id, or a few joined by spaces) and what is wrong with it. */
export interface Violation {
  subject: string;
  detail: string;
}

/** What checking one invariant found: how many rows it looked at, how many break it, and the first few of those. */
export interface InvariantResult {
  checked: number;
  violations: number;
  /** At most the `sample` the check was given, ordered by subject. */
  sample: Violation[];
}

/**
 * A property every committed store holds, checked against the database as it is. Each room adds its
 * own (src/openlineage has the fold of OpenLineage runs); the checker runs them one after the other.
 * A check reads only, and scales with the store: one statement where SQL can say it, pages otherwise.
 */
export interface Invariant {
  /** Stable, kebab-case: what the report (and integrityReport) names it. */
  name: string;
  /** One sentence: what holds. */
  description: string;
  check(db: Db, options: { sample: number }): Promise<InvariantResult>;
}

/** Collects violations found page by page: counts all of them, keeps the `sample` smallest by subject. */
export class ViolationSample {
  private count = 0;
  private readonly kept: Violation[] = [];

  constructor(private readonly size: number) {}

  add(violation: Violation): void {
    this.count += 1;
    this.kept.push(violation);
    if (this.kept.length > this.size * 2) this.trim();
  }

  result(checked: number): InvariantResult {
    this.trim();
    return { checked, violations: this.count, sample: this.kept };
  }

  private trim(): void {
    this.kept.sort(compareViolations);
    this.kept.length = Math.min(this.kept.length, this.size);
  }
}

export const compareViolations = (a: Violation, b: Violation) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : a.detail < b.detail ? -1 : a.detail > b.detail ? 1 : 0);

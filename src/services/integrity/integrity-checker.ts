import type { Db } from "../../db/client";
import type { Invariant, InvariantResult } from "./invariant";

export interface InvariantReport extends InvariantResult {
  name: string;
  description: string;
}

export interface IntegrityReport {
  /** When the check started. */
  checkedAt: Date;
  /** No invariant has a violation. */
  ok: boolean;
  invariants: InvariantReport[];
}

/** How many violations of each invariant a report lists by default, and at most. */
export const DEFAULT_VIOLATION_SAMPLE = 20;
export const MAX_VIOLATION_SAMPLE = 100;

/**
 * Checks the store against its invariants (the core's, and those other rooms register: OpenLineage's
 * fold, compliance's inherited tags …), one after the other so the check costs one connection at a time.
 */
export class IntegrityChecker {
  private readonly invariants: Invariant[];

  constructor(
    private readonly db: Db,
    invariants: readonly Invariant[],
  ) {
    this.invariants = [...invariants];
  }

  /** Adds a room's invariant (at start-up); names are unique. */
  register(invariant: Invariant): void {
    if (this.invariants.some((known) => known.name === invariant.name)) throw new Error(`integrity: invariant ${invariant.name} is registered twice`);
    this.invariants.push(invariant);
  }

  names(): string[] {
    return this.invariants.map((invariant) => invariant.name);
  }

  async check(options: { sample?: number } = {}): Promise<IntegrityReport> {
    const sample = Math.min(Math.max(0, Math.floor(options.sample ?? DEFAULT_VIOLATION_SAMPLE)), MAX_VIOLATION_SAMPLE);
    const checkedAt = new Date();
    const invariants: InvariantReport[] = [];
    for (const invariant of this.invariants) {
      const result = await invariant.check(this.db, { sample });
      invariants.push({ name: invariant.name, description: invariant.description, ...result, sample: result.sample.slice(0, sample) });
    }
    return { checkedAt, ok: invariants.every((report) => report.violations === 0), invariants };
  }
}

import type { Db } from "../../db/client";
import type { Invariant, InvariantResult } from "./invariant";

/**
 * An invariant SQL can state: `checked` counts the rows looked at (one column, n), `violations`
 * selects one row (subject, detail) per breach. Both are portable (quoted identifiers, CAST, ||) so
 * SQLite and PostgreSQL run the same text. The violations are one statement: its total comes from a
 * window over the whole result, computed before the LIMIT that bounds the sample.
 */
export function sqlInvariant(spec: { name: string; description: string; checked: string; violations: string }): Invariant {
  return {
    name: spec.name,
    description: spec.description,
    async check(db: Db, { sample }): Promise<InvariantResult> {
      const [counted] = await db.$queryRawUnsafe<{ n: number | bigint }[]>(spec.checked);
      const rows = await db.$queryRawUnsafe<{ subject: string; detail: string; total: number | bigint }[]>(
        `SELECT v."subject", v."detail", COUNT(*) OVER () AS "total" FROM (${spec.violations}) v ORDER BY v."subject", v."detail" LIMIT ${Math.max(1, Math.floor(sample))}`,
      );
      return {
        checked: Number(counted?.n ?? 0),
        violations: rows.length === 0 ? 0 : Number(rows[0].total),
        sample: sample > 0 ? rows.map((row) => ({ subject: String(row.subject), detail: String(row.detail) })) : [],
      };
    },
  };
}

/** SQL text for a text value: `CAST(x AS TEXT)`, the same in both databases. */
export const text = (expression: string) => `CAST(${expression} AS TEXT)`;

/**
 * Whether the execution `run` (an SQL expression) is a step of a composite run recorded with DISCARD:
 * such a step keeps only its links to the composite's inputs and outputs, and none of its internal
 * edges (src/services/composites), so the checks of roles and sources leave it out.
 */
export const isDiscardedStep = (run: string) =>
  `EXISTS (SELECT 1 FROM "CompositeStepRun" s JOIN "CompositeRun" c ON c."runId" = s."compositeRunId" WHERE s."runId" = ${run} AND c."intermediates" = 'DISCARD')`;

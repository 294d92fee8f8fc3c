import { formatTable } from "./table";

export interface IntegrityAnswer {
  ok: boolean;
  invariants: { name: string; checked: number; violations: number; sample: { subject: string; detail: string }[] }[];
}

/** The report as a table (one row per invariant), then each violation sampled. */
export function formatIntegrity(report: IntegrityAnswer): string {
  const total = report.invariants.reduce((sum, invariant) => sum + invariant.violations, 0);
  const lines = [formatTable(["INVARIANT", "CHECKED", "VIOLATIONS"], report.invariants.map((invariant) => [invariant.name, String(invariant.checked), String(invariant.violations)]))];
  for (const invariant of report.invariants) for (const violation of invariant.sample) lines.push(`  ${invariant.name}: ${violation.subject}: ${violation.detail}`);
  lines.push(report.ok ? "0 violations" : `${total} violation${total === 1 ? "" : "s"}`);
  return lines.join("\n");
}

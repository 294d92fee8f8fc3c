import type { StatementParams } from "./read-client";

/**
 * The two filters every graph walk shares with `lineage` (asOf, stepBoundaryOnly), applied to both
 * kinds of stored relation between artifacts and runs:
 *  - a derivation edge counts when it was recorded by `asOf` and, with stepBoundaryOnly, crosses a
 *    step boundary (so composite internals drop out);
 *  - an execution link (a run used or produced an artifact) counts when its run was recorded by
 *    `asOf` and, with stepBoundaryOnly, the run is not a step inside a composite run.
 */
export interface LineageFilters {
  asOf: Date | null;
  stepBoundaryOnly: boolean;
}

/** " AND …" conditions on a ProvenanceEdge row aliased `alias`. */
export function edgeConditions(p: StatementParams, f: LineageFilters, alias: string): string {
  return (f.stepBoundaryOnly ? ` AND ${alias}."stepBoundary" = TRUE` : "") + (f.asOf !== null ? ` AND ${alias}."createdAt" <= ${p.bind(f.asOf)}` : "");
}

/** " AND …" conditions on an ExecutionArtifact row aliased `alias` (subqueries on its run). */
export function linkConditions(p: StatementParams, f: LineageFilters, alias: string): string {
  let sql = "";
  if (f.asOf !== null) sql += ` AND EXISTS (SELECT 1 FROM "Execution" lx WHERE lx."runId" = ${alias}."runId" AND lx."recordedAt" <= ${p.bind(f.asOf)})`;
  if (f.stepBoundaryOnly) sql += ` AND NOT EXISTS (SELECT 1 FROM "CompositeStepRun" ls WHERE ls."runId" = ${alias}."runId")`;
  return sql;
}

/** ColumnEdge rows have no step boundary: asOf alone. */
export function columnEdgeConditions(p: StatementParams, f: LineageFilters, alias: string): string {
  return f.asOf !== null ? ` AND ${alias}."createdAt" <= ${p.bind(f.asOf)}` : "";
}

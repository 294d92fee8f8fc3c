import type { GraphColumn, GraphEdgeKind } from "./layered-graph";

/**
 * Seed rule: "left-to-right layout with strict column ordering (execution column -> data column ->
 * next execution column)". Columns are decided by the pipeline's steps alone, so the macro and
 * micro graph of one pipeline share them:
 *
 *   column 0        data: pipeline inputs (consumed, never produced by a step of the pipeline)
 *   column 2k-1     execution: the k-th step (k = 1, 2, … over the step numbers in ascending order)
 *   column 2k       data: what the k-th step produced first
 *
 * k is the step's rank among the pipeline's step numbers, not the number itself, so steps
 * numbered 10, 20, 30 still fill columns 1…6 with no gaps.
 */
export const PIPELINE_INPUT_COLUMN = 0;

export function executionColumn(stepIndex: number): number {
  return 2 * (stepIndex + 1) - 1;
}

export function dataColumn(stepIndex: number): number {
  return 2 * (stepIndex + 1);
}

/** Maps a step number to its 0-based index among the pipeline's (sorted, distinct) step numbers. */
export function stepIndexer(steps: readonly number[]): (step: number) => number {
  const index = new Map(steps.map((step, i) => [step, i]));
  return (step) => {
    const i = index.get(step);
    if (i === undefined) throw new Error(`step ${step} is not one of the pipeline's steps`);
    return i;
  };
}

/** The columns of a pipeline with these (sorted, distinct) steps, nodes not yet filled in. */
export function columnsForSteps(steps: readonly number[]): GraphColumn[] {
  const columns: GraphColumn[] = [{ index: PIPELINE_INPUT_COLUMN, kind: "DATA", step: null, nodeKeys: [] }];
  steps.forEach((step, i) => {
    columns.push({ index: executionColumn(i), kind: "EXECUTION", step, nodeKeys: [] });
    columns.push({ index: dataColumn(i), kind: "DATA", step, nodeKeys: [] });
  });
  return columns;
}

/**
 * An edge is backward (drawn dashed) when it is not one hop rightwards in the column structure:
 * USED and WAS_GENERATED_BY edges must go from column c to c+1 (data → the execution right after
 * it, execution → the data column right after it); WAS_DERIVED_FROM edges, which join two data
 * columns over the execution between them, from c to c+2. Anything else — right to left, within
 * one column, or skipping columns — is backward. That is exactly the passthrough case: an
 * artifact lives in the data column of the step that first produced it, so a later step that
 * consumes it (USED from further left than the previous column), a curator that re-emits it
 * (WAS_GENERATED_BY pointing back left) and derivations from it that reach over several steps are
 * all backward; so is a pipeline input consumed by a step other than the first.
 */
export function isBackwardEdge(kind: GraphEdgeKind, fromColumn: number, toColumn: number): boolean {
  const hop = kind === "WAS_DERIVED_FROM" ? 2 : 1;
  return toColumn - fromColumn !== hop;
}

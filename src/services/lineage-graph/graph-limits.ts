import { InvalidArgumentError, PageSizeError } from "../errors";
import { MAX_PAGE_SIZE } from "../pagination";

/** Nodes a lineage graph returns besides its roots when `first` is not given, and at most. */
export const DEFAULT_GRAPH_NODES = 200;
export const MAX_GRAPH_NODES = 5_000;
/** Hops a lineage graph may walk from its roots. */
export const MAX_GRAPH_DEPTH = 10;
/** Roots one lineage graph may start from. */
export const MAX_GRAPH_ROOTS = 100;
/** Columns a graph drawn with `columns: true` shows at most (datasets nearest the roots first). */
export const MAX_GRAPH_COLUMNS = 5_000;
/** Walk rows per direction before a neighbourhood walk stops (bounds many-path graphs). */
export const GRAPH_WALK_BUDGET = 200_000;
/** Neighbours one expand page returns when `first` is not given, and at most. */
export const DEFAULT_EXPAND_PAGE = 50;
export const MAX_EXPAND_PAGE = MAX_PAGE_SIZE;
/** lineagePath: paths and hops. */
export const DEFAULT_PATHS = 10;
export const MAX_PATHS = 100;
export const DEFAULT_PATH_DEPTH = 20;
export const MAX_PATH_DEPTH = 50;
/** Nodes the two searches of lineagePath may hold between them before they give up (truncated). */
export const PATH_SEARCH_BUDGET = 200_000;
/** impact: the most nodes it walks (truncated beyond), and the deepest it goes when maxDepth is not given. */
export const IMPACT_NODE_BUDGET = 100_000;

/** INVALID_ARGUMENT (field `roots`) for more roots than one graph may start from; undefined within it. */
export function tooManyGraphRoots(count: number): InvalidArgumentError | undefined {
  return count > MAX_GRAPH_ROOTS ? new InvalidArgumentError("roots", `at most ${MAX_GRAPH_ROOTS} roots, got ${count}`) : undefined;
}

export function checkCount(field: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new PageSizeError(field, value, max);
}

export function checkRange(field: string, value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new InvalidArgumentError(field, `must be ${what} from ${min} to ${max}, got ${value}`);
}

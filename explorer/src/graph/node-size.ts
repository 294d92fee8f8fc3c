/** Box sizes the canvas draws and the layouts place (CSS pixels). */
import type { GraphNode } from "./graph-model";

export const COLUMN_GAP = 60;
export const ROW_GAP = 18;
export const ARTIFACT = { width: 230, height: 64 };
export const RUN = { width: 150, height: 40 };
export const COLUMN_ROW = 26;
export const COLUMN_HEADER = 64;

export function sizeOf(node: GraphNode, columnCount = 0): { width: number; height: number } {
  if (node.kind === "RUN") return RUN;
  if (node.kind === "COLUMN") return { width: ARTIFACT.width - 16, height: COLUMN_ROW - 4 };
  return { width: ARTIFACT.width, height: ARTIFACT.height + (columnCount ? columnCount * COLUMN_ROW + 8 : 0) };
}


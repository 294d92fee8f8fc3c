/** Box sizes the canvas draws and the layouts place (CSS pixels). */
import type { GraphNode } from "./graph-model";

export const COLUMN_GAP = 60;
export const ROW_GAP = 18;
export const ARTIFACT = { width: 230, height: 64 };
export const RUN = { width: 150, height: 40 };
export const COLUMN_ROW = 26;
export const COLUMN_HEADER = 64;
/** A column row inside its dataset's box. */
export const COLUMN_IN_BOX = { width: ARTIFACT.width - 16, height: COLUMN_ROW - 4 };
/** A column drawn without its dataset's box (a graph rooted at a column): its dataset named above its field. */
export const STANDALONE_COLUMN = { width: ARTIFACT.width, height: 42 };
/**
 * The gap beside a lane of standalone columns: a column edge's subtype label ("TRANSFORMATION") sits
 * between two of them, where between boxes a lane of runs lies and gives it room.
 */
export const LABELLED_COLUMN_GAP = 130;

/** The size of a box as the layouts place it: an artifact (taller with its columns), a run, a standalone column. */
export function sizeOf(node: GraphNode, columnCount = 0): { width: number; height: number } {
  if (node.kind === "RUN") return RUN;
  if (node.kind === "COLUMN") return STANDALONE_COLUMN;
  return { width: ARTIFACT.width, height: ARTIFACT.height + (columnCount ? columnCount * COLUMN_ROW + 8 : 0) };
}


/** `.react-flow__handle` in styles.css: 6 px square, centred on the box's left or right inner edge. */
export const HANDLE = 6;
/**
 * The borders in styles.css the handles sit inside: a `.box` is positioned, so its handles are placed inside
 * its 1 px border (an artifact's coloured left border is 4 px); a `.column-row` is not, so a column's
 * handles are placed against React Flow's own node element, which has no border.
 */
const BOX_BORDER = { left: 1, right: 1 };
const ARTIFACT_BORDER = { left: 4, right: 1 };
const NO_BORDER = { left: 0, right: 0 };

/**
 * Where a box's two handles sit, relative to the box, as the browser lays them out (absolutely placed in
 * the box's padding box, so inside its borders, and centred on its edge by a 50% translate). Given to
 * React Flow with the box's size, it draws edges without first measuring every new box in the page (a
 * ResizeObserver pass, a forced layout, and a second render of the boxes and then their edges).
 */
export function handlesOf(kind: GraphNode["kind"], size: { width: number; height: number }): { target: { x: number; y: number }; source: { x: number; y: number } } {
  const border = kind === "COLUMN" ? NO_BORDER : kind === "RUN" ? BOX_BORDER : ARTIFACT_BORDER;
  const y = size.height / 2 - HANDLE / 2;
  return { target: { x: border.left - HANDLE / 2, y }, source: { x: size.width - border.right - HANDLE / 2, y } };
}

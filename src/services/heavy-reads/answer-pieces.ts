import v8 from "node:v8";
import { turnBeforeStatement } from "../../db/statement-turns";

/**
 * A heavy read's answer on its way out of a thread, when it holds long lists.
 *
 * V8 deserialises a message on the event loop in one piece: the answer of `expand` beside a join of
 * 20,000 inputs (20,000 nodes) took 67 ms of one turn, and the collections its objects set off 42 ms
 * more. So in the thread, each list of more than LONG_LIST_ITEMS items (at the answer's top, or in
 * objects down to PIECE_DEPTH levels) is cut into slices of SLICE_ITEMS, each slice serialised on its
 * own (v8.serialize) and its bytes moved to the event loop, not copied; there the slices are
 * deserialised in order, a turn of the event loop taken whenever the current one has run a slice
 * (the thread's turn clock, src/db/statement-turns.ts). Everything else in the answer goes as it did,
 * in the message. An answer without such a list is sent as it is: small answers pay nothing.
 */
export const LONG_LIST_ITEMS = 2_000;
export const SLICE_ITEMS = 500;
/** How deep in plain objects a long list is looked for (an answer's lists sit at its top, or one or two objects down). */
const PIECE_DEPTH = 3;

/** An answer as it crosses: `value` as is, or in pieces (`tree`, whose slices are indexes into `buffers`). */
export type AnswerPieces = { tree: PieceTree; buffers: ArrayBuffer[] };
type PieceTree = { value: unknown } | { object: Record<string, PieceTree> } | { slices: number[] };

/** The answer cut into pieces where it holds a long list; undefined when it holds none (send it as it is). */
export function answerPieces(value: unknown): AnswerPieces | undefined {
  if (!holdsLongList(value, 0)) return undefined;
  const buffers: ArrayBuffer[] = [];
  return { tree: cut(value, 0, buffers), buffers };
}

/** The answer put back together from its pieces, a turn of the event loop taken between slices as their work adds up. */
export async function joinedAnswer(pieces: AnswerPieces): Promise<unknown> {
  return join(pieces.tree, pieces.buffers);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function holdsLongList(value: unknown, depth: number): boolean {
  if (Array.isArray(value)) return value.length > LONG_LIST_ITEMS;
  if (depth >= PIECE_DEPTH || !isPlainObject(value)) return false;
  for (const key in value) if (holdsLongList(value[key], depth + 1)) return true;
  return false;
}

function cut(value: unknown, depth: number, buffers: ArrayBuffer[]): PieceTree {
  if (Array.isArray(value) && value.length > LONG_LIST_ITEMS) {
    const slices: number[] = [];
    for (let at = 0; at < value.length; at += SLICE_ITEMS) slices.push(buffers.push(ownBuffer(v8.serialize(value.slice(at, at + SLICE_ITEMS)))) - 1);
    return { slices };
  }
  if (!holdsLongList(value, depth)) return { value };
  const object: Record<string, PieceTree> = {};
  for (const key of Object.keys(value as Record<string, unknown>)) object[key] = cut((value as Record<string, unknown>)[key], depth + 1, buffers);
  return { object };
}

/** The bytes in an ArrayBuffer of their own, which can be moved (never a slice of a shared pool). */
function ownBuffer(bytes: Buffer): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}

async function join(tree: PieceTree, buffers: ArrayBuffer[]): Promise<unknown> {
  if ("value" in tree) return tree.value;
  if ("slices" in tree) {
    const items: unknown[] = [];
    for (const index of tree.slices) {
      const turn = turnBeforeStatement();
      if (turn) await turn;
      for (const item of v8.deserialize(Buffer.from(buffers[index])) as unknown[]) items.push(item);
    }
    return items;
  }
  const object: Record<string, unknown> = {};
  for (const key of Object.keys(tree.object)) object[key] = await join(tree.object[key], buffers);
  return object;
}

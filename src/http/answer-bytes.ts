import { isAsyncIterable, type Plugin } from "graphql-yoga";

/**
 * GraphQL answers serialised to bytes piece by piece, never as one long string (small ones stay one string).
 *
 * V8 keeps a string longer than 128 KB in its large-object space, a memory mapping of its own, and
 * JSON.stringify of a large answer gives a string of pieces that the first reader flattens into
 * one: for the hub's 186 KB lineageGraph answer Yoga's Buffer.byteLength (for Content-Length) took
 * 0.8–1.0 ms of the server's CPU where, the string once flat, it took 0.03 ms (a 256 KB answer:
 * 1.0 ms to flatten, a 128 KB one 0.02). Here the answer's objects are walked down to its lists,
 * a list's items are stringified by JSON.stringify a run at a time, and the pieces are encoded into
 * buffers of about JSON_PIECE_CHARS characters, then joined: the same bytes as JSON.stringify's,
 * and no string in between much longer than a piece (or one list item).
 *
 * Yoga's result processor serialises an answer with `result.stringify` when the result has one
 * and hands what it returns to `new Response(…)`, which takes bytes as well as text.
 */
export const JSON_PIECE_CHARS = 32 * 1024;

/** Objects nested deeper than this are stringified whole (a bound on the walk's recursion). */
const MAX_WALKED_DEPTH = 32;

/** Sets the byte serialiser on every single (not streamed) result: Yoga's processor then sends its bytes. */
export function useAnswerBytes(): Plugin {
  return {
    onExecute() {
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result) || typeof result !== "object" || result === null) return;
          // Not enumerable: nothing that copies or walks the result (the processor's error clean-up) carries it.
          // Yoga hands what it returns, text or bytes, to new Response(…).
          Object.defineProperty(result, "stringify", { value: jsonBytes, enumerable: false, configurable: true, writable: true });
        },
      };
    },
  };
}

/**
 * The JSON text JSON.stringify(value) gives: as that string for an answer estimated under
 * STRING_ANSWER_CHARS (a string that size flattens cheaply, and one JSON.stringify call is the
 * fastest way there: for a 74 KB answer the pieces cost 0.35 ms against 0.31), else as UTF-8 bytes
 * written in pieces.
 */
export function jsonBytes(value: object): string | Buffer {
  if (estimatedChars(value, 0) < STRING_ANSWER_CHARS) return JSON.stringify(value);
  const pieces = new Pieces();
  if (walked(value, 0)) write(pieces, value, 0);
  else {
    // undefined where JSON.stringify gives nothing (a toJSON that answers undefined): no bytes.
    const json = JSON.stringify(ownValue(value, ""));
    if (json) pieces.push(json);
  }
  return pieces.bytes();
}

/** Answers estimated shorter than this (characters) are one string: well under V8's 128 KB for large objects. */
export const STRING_ANSWER_CHARS = 96 * 1024;

/**
 * About how long the answer's JSON is: its objects walked down to their lists, each list as long as
 * its first item's JSON times its length (a list's items are of one type), a scalar as 16.
 */
function estimatedChars(value: unknown, depth: number): number {
  if (!walked(value, depth)) return typeof value === "string" ? value.length + 2 : 16;
  if (Array.isArray(value)) return value.length === 0 ? 2 : value.length * ((JSON.stringify(value[0]) ?? "null").length + 1);
  let chars = 2;
  for (const [key, member] of Object.entries(value)) chars += key.length + 4 + estimatedChars(member, depth + 1);
  return chars;
}

/** Whether a value is written here piece by piece: a plain object or an array without toJSON, not too deep. */
function walked(value: unknown, depth: number): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== "object" || depth >= MAX_WALKED_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** What JSON.stringify serialises for a property (SerializeJSONProperty): toJSON's answer, given the key, where there is one. */
function ownValue(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function" ? (value as { toJSON(key: string): unknown }).toJSON(key) : value;
}

function write(pieces: Pieces, value: Record<string, unknown> | unknown[], depth: number): void {
  if (Array.isArray(value)) writeArray(pieces, value);
  else writeObject(pieces, value, depth);
}

function writeObject(pieces: Pieces, object: Record<string, unknown>, depth: number): void {
  pieces.push("{");
  let first = true;
  for (const key of Object.keys(object)) {
    const member = `${first ? "" : ","}${JSON.stringify(key)}:`;
    const value = object[key];
    if (walked(value, depth + 1)) {
      pieces.push(member);
      write(pieces, value, depth + 1);
    } else {
      // A member JSON.stringify leaves out (undefined, a function, a symbol, a toJSON answering undefined) is left out.
      const json = JSON.stringify(ownValue(value, key));
      if (json === undefined) continue;
      pieces.push(member + json);
    }
    first = false;
  }
  pieces.push("}");
}

/**
 * A list, its items stringified a run at a time: as many as fill about a piece, judged from the
 * first item's length (one JSON.stringify call per item cost more than the flattening saved, for
 * answers of 70 KB). An item with toJSON is given its own index, as JSON.stringify gives it.
 */
function writeArray(pieces: Pieces, items: readonly unknown[]): void {
  pieces.push("[");
  let i = 0;
  let run = 1;
  while (i < items.length) {
    const end = Math.min(items.length, i + run);
    const json = JSON.stringify(items.slice(i, end).map((item, k) => ownValue(item, String(i + k))));
    pieces.push(`${i === 0 ? "" : ","}${json.slice(1, -1)}`);
    if (i === 0) run = Math.max(1, Math.floor(JSON_PIECE_CHARS / Math.max(1, json.length)));
    i = end;
  }
  pieces.push("]");
}

/** Text pieces, encoded into a buffer each time they reach JSON_PIECE_CHARS characters. */
class Pieces {
  private texts: string[] = [];
  private chars = 0;
  private readonly buffers: Buffer[] = [];

  push(text: string): void {
    this.texts.push(text);
    this.chars += text.length;
    if (this.chars >= JSON_PIECE_CHARS) this.flush();
  }

  bytes(): Buffer {
    this.flush();
    return this.buffers.length === 1 ? this.buffers[0] : Buffer.concat(this.buffers);
  }

  private flush(): void {
    if (this.texts.length === 0) return;
    this.buffers.push(Buffer.from(this.texts.join(""), "utf8"));
    this.texts = [];
    this.chars = 0;
  }
}

import type { ExecutionResult } from "graphql";
import type WebSocket from "ws";

/**
 * A subscription result shared by many subscribers (./shared-subscription-results.ts) is encoded
 * once, and every subscriber is sent those bytes: a run published to 1,000 subscribers of one
 * selection costs one JSON encoding and 1,000 socket writes, not 1,000 encodings.
 *
 * - SSE: Yoga encodes each result with `result.stringify` when it has one; a shared result's
 *   answers its one encoding.
 * - graphql-ws: graphql-ws builds each `next` message with JSON.stringify per socket. For a shared
 *   result, graphql-ws.ts's onNext hands it a stand-in payload that encodes as a marker; the socket's
 *   `send` (wrapped at connection, ./graphql-ws.ts) puts the shared bytes in the marker's place. The
 *   stand-in is encoded and sent in the same synchronous step (graphql-ws stringifies the message
 *   and calls send at once), so the marker always names the frame just encoded.
 */

interface SharedFrame {
  /** The result as JSON, once. */
  json?: string;
  bytes?: Buffer;
}

const frames = new WeakMap<object, SharedFrame>();
let encodings = 0;

/** How many shared results were encoded so far (a test counts them: one per distinct selection and event). */
export function sharedFrameEncodings(): number {
  return encodings;
}

function jsonOf(result: object, frame: SharedFrame): string {
  if (frame.json === undefined) {
    encodings += 1;
    frame.json = JSON.stringify(result);
  }
  return frame.json;
}

/**
 * Marks `result` as shared: encoded once, whoever sends it. Yoga's SSE answer calls `stringify` with
 * the result itself, or with a copy whose errors it cleaned (encoded on its own, as before).
 */
export function shareEncoding<T extends ExecutionResult>(result: T): T {
  if (frames.has(result)) return result;
  const frame: SharedFrame = {};
  frames.set(result, frame);
  Object.defineProperty(result, "stringify", {
    enumerable: false,
    value: (value: unknown) => (value === result ? jsonOf(result, frame) : JSON.stringify(value)),
  });
  return result;
}

/** The marker a stand-in payload encodes as: a JSON string no result encodes as (a payload is an object). */
const MARKER = "\u0000provgraph:shared-frame";
const MESSAGE_TAIL = `,"payload":${JSON.stringify(MARKER)}}`;
const CLOSE = Buffer.from("}");
/** The frame whose stand-in was encoded last (sent in the same synchronous step). */
let encodedLast: { result: object; frame: SharedFrame } | undefined;

/**
 * What graphql-ws's onNext answers for a shared result without errors: a stand-in for its payload
 * (undefined for a result that is not shared, which graphql-ws encodes as usual).
 */
export function sharedPayloadOf(result: ExecutionResult): Record<string, unknown> | undefined {
  const frame = frames.get(result);
  if (!frame || result.errors?.length) return undefined;
  return {
    toJSON: () => {
      encodedLast = { result, frame };
      return MARKER;
    },
  };
}

/** The socket's `send`, which puts a shared frame's bytes where its stand-in's marker is. */
export function sendSharedFrames(socket: WebSocket): void {
  const send = socket.send.bind(socket) as (data: unknown, ...rest: unknown[]) => void;
  socket.send = ((data: unknown, ...rest: unknown[]) => {
    if (encodedLast && typeof data === "string" && data.endsWith(MESSAGE_TAIL)) {
      const { result, frame } = encodedLast;
      encodedLast = undefined;
      frame.bytes ??= Buffer.from(jsonOf(result, frame));
      const head = Buffer.from(`${data.slice(0, data.length - MESSAGE_TAIL.length)},"payload":`);
      // A text frame (binary: false), as graphql-ws's own messages are.
      return send(Buffer.concat([head, frame.bytes, CLOSE]), { binary: false }, ...rest.filter((r) => typeof r === "function"));
    }
    return send(data, ...rest);
  }) as WebSocket["send"];
}

import zlib from "node:zlib";
import { JsonNestingGuard } from "../limits/json-nesting";

/** How much a request body may hold: bytes (after gzip is undone), and JSON nesting. */
export interface BodyBounds {
  maxBytes: number;
  maxNesting: number;
}

/** A body refused while it was read: too large (413) or nested too deep (400), with the limit. */
export class BodyBoundError extends Error {
  constructor(
    readonly code: "PAYLOAD_TOO_LARGE" | "JSON_TOO_DEEP",
    readonly status: 413 | 400,
    message: string,
    readonly details: { limit: number; found?: number },
  ) {
    super(message);
    this.name = "BodyBoundError";
  }
}

/** A gzip body that does not inflate. */
export class BodyEncodingError extends Error {
  constructor(override readonly cause: unknown) {
    super(`the body is declared gzip-compressed but does not inflate: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = "BodyEncodingError";
  }
}

/**
 * Reads a request body chunk by chunk as it arrives, checking its size and its JSON nesting on the
 * raw bytes as it goes (JsonNestingGuard): a body past either bound is refused at the first chunk
 * that passes it — before anything is parsed, and without holding more than the bound in memory.
 * `gzip`: the body is inflated as it is read, and the bounds apply to what it inflates to (a gzip
 * bomb stops inflating at maxBytes). What was not read of a refused body is drained (up to maxBytes
 * more, unkept) so the client can read the answer; beyond that the connection is cut.
 */
export async function readBoundedBody(request: Request, bounds: BodyBounds, options: { gzip?: boolean } = {}): Promise<Buffer> {
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const guard = new JsonNestingGuard(bounds.maxNesting);
  const chunks: Buffer[] = [];
  let total = 0;
  const take = (bytes: Uint8Array) => {
    total += bytes.byteLength;
    if (total > bounds.maxBytes) throw new BodyBoundError("PAYLOAD_TOO_LARGE", 413, `the body is more than ${bounds.maxBytes} bytes; at most ${bounds.maxBytes} are accepted`, { limit: bounds.maxBytes });
    if (!guard.push(bytes)) {
      throw new BodyBoundError("JSON_TOO_DEEP", 400, `the body nests objects and arrays more than ${bounds.maxNesting} levels deep; at most ${bounds.maxNesting} are accepted`, {
        limit: bounds.maxNesting,
      });
    }
    chunks.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  };
  const inflater = options.gzip ? gunzipInto(take) : undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (inflater) await inflater.write(value);
      else take(value);
    }
    await inflater?.end();
  } catch (error) {
    inflater?.destroy();
    // Up to maxBytes more: a body refused for its size has used its own up (a reset then loses the answer).
    if (error instanceof BodyBoundError) drain(reader, bounds.maxBytes);
    else await reader.cancel().catch(() => undefined);
    throw error;
  }
  return Buffer.concat(chunks, total);
}

/** Reads and drops the rest of a refused body, up to `budget` bytes; then cuts it off. */
function drain(reader: ReadableStreamDefaultReader<Uint8Array>, budget: number): void {
  void (async () => {
    let left = budget;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        left -= value.byteLength;
        if (left < 0) break;
      }
    } catch {
      return;
    }
    await reader.cancel().catch(() => undefined);
  })();
}

/**
 * A gunzip stream whose output chunks go to `take` as they are inflated: write() resolves once an
 * input chunk is consumed, end() once everything is inflated; a refusal by `take` (or bad input)
 * stops it and rejects both.
 */
function gunzipInto(take: (bytes: Uint8Array) => void) {
  const gunzip = zlib.createGunzip();
  let failure: unknown;
  // Settles when the stream fails: a write whose input is not gzip may never call its callback
  // (the stream errors instead), so every wait races this one.
  let rejectFailed: (error: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (rejectFailed = reject));
  failed.catch(() => undefined);
  const fail = (error: unknown) => {
    if (failure) return;
    failure = error instanceof BodyBoundError ? error : new BodyEncodingError(error);
    rejectFailed(failure);
  };
  gunzip.on("error", fail);
  gunzip.on("data", (chunk: Buffer) => {
    if (failure) return;
    try {
      take(chunk);
    } catch (error) {
      fail(error);
      gunzip.destroy();
    }
  });
  const settled = (done: Promise<void>) =>
    Promise.race([done, failed]).then(() => {
      if (failure) throw failure;
    });
  return {
    write: (bytes: Uint8Array) => (failure ? Promise.reject(failure) : settled(new Promise<void>((resolve) => gunzip.write(bytes, () => resolve())))),
    end: () =>
      failure
        ? Promise.reject(failure)
        : settled(
            new Promise<void>((resolve) => {
              gunzip.once("end", resolve);
              gunzip.once("close", resolve);
              gunzip.end();
            }),
          ),
    destroy: () => gunzip.destroy(),
  };
}

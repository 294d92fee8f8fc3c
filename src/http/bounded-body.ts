import zlib from "node:zlib";
import { JsonNestingGuard } from "../limits/json-nesting";

/** How much a request body may hold: bytes (after gzip is undone), and JSON nesting; and how fast it must come. */
export interface BodyBounds {
  maxBytes: number;
  maxNesting: number;
  pace?: BodyPace;
}

/**
 * The pace a heavy body must keep (BODY_MIN_BYTES_PER_SECOND): after `graceMs`, the bytes received
 * (as sent) must average at least `minBytesPerSecond` since the body began. A client that trickles a
 * heavy body, or sends its headers and stalls, would otherwise hold its turn of the heavy work until
 * Node's request timeout (5 minutes): a few such clients would keep every graph read waiting at the
 * cost of almost no bandwidth. Bodies declared shorter than `fromBytes` (HEAVY_BODY_BYTES) hold no
 * turn and keep no pace (Node's own timeouts bound them): the small requests that are most of the
 * traffic pay nothing for it (a timer and a race per read cost a body about 5 µs).
 */
export interface BodyPace {
  minBytesPerSecond: number;
  graceMs: number;
  fromBytes: number;
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

/**
 * A body that did not arrive: too slowly for the pace (408 BODY_TOO_SLOW, the rest is not read and
 * the connection closes after the answer), or cut off by the client before its end (400
 * BODY_INCOMPLETE: nobody may be there to read it, but the request is the client's doing, not a
 * fault of ours, and a socket reset is no database outage).
 */
export class BodyArrivalError extends Error {
  constructor(
    readonly code: "BODY_TOO_SLOW" | "BODY_INCOMPLETE",
    readonly status: 408 | 400,
    message: string,
    readonly details: { receivedBytes: number; limit?: number },
  ) {
    super(message);
    this.name = "BodyArrivalError";
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
  const pace = bounds.pace && bounds.pace.minBytesPerSecond > 0 && keepsPace(request, bounds.pace) ? paceOf(bounds.pace) : undefined;
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
  let received = 0;
  // While a read waits, a failure is the stream's: the client cut the body off.
  let reading = false;
  try {
    for (;;) {
      reading = true;
      const { done, value } = await (pace ? pace.read(reader, received) : reader.read());
      reading = false;
      if (done) break;
      received += value.byteLength;
      if (inflater) await inflater.write(value);
      else take(value);
    }
    await inflater?.end();
  } catch (caught) {
    const error = reading && !(caught instanceof BodyArrivalError) ? incomplete(received) : caught;
    inflater?.destroy();
    // Up to maxBytes more: a body refused for its size has used its own up (a reset then loses the answer).
    if (error instanceof BodyBoundError) drain(reader, bounds.maxBytes);
    // A slow body is not waited for: its answer goes out and the connection closes behind it.
    else if (!(error instanceof BodyArrivalError && error.code === "BODY_TOO_SLOW")) await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    pace?.stop();
  }
  return Buffer.concat(chunks, total);
}

/** A body of unknown length (chunked), or declared at least `fromBytes`: a heavy one. */
function keepsPace(request: Request, pace: BodyPace): boolean {
  const declared = request.headers.get("content-length");
  return declared === null || !(Number(declared) < pace.fromBytes);
}

/** A stream that failed while read: the client reset or closed the connection mid-body. */
function incomplete(received: number): BodyArrivalError {
  return new BodyArrivalError("BODY_INCOMPLETE", 400, `the connection closed before the body was complete (${received} bytes received)`, { receivedBytes: received });
}

/**
 * Reads under the pace: each read races the moment the body falls behind it (graceMs, then
 * minBytesPerSecond since the start). One timer per body, armed for that moment and re-armed when
 * bytes have moved it on, so a body that keeps up costs no timer per chunk.
 */
function paceOf({ minBytesPerSecond, graceMs }: BodyPace) {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let received = 0;
  let reading = false;
  // One promise per body, settled only when the body falls behind while a read waits: each read races it.
  let fallBehind!: (error: BodyArrivalError) => void;
  const late = new Promise<never>((_, reject) => (fallBehind = reject));
  late.catch(() => undefined);
  const dueAt = () => start + graceMs + (received / minBytesPerSecond) * 1000;
  const tooSlow = () => {
    const seconds = (performance.now() - start) / 1000;
    return new BodyArrivalError(
      "BODY_TOO_SLOW",
      408,
      `the body arrived at ${Math.round(received / seconds)} bytes/s (${received} bytes in ${seconds.toFixed(1)} s); at least ${minBytesPerSecond} bytes/s are required after the first ${graceMs / 1000} s (BODY_MIN_BYTES_PER_SECOND)`,
      { receivedBytes: received, limit: minBytesPerSecond },
    );
  };
  const arm = () => {
    timer = setTimeout(check, Math.max(0, dueAt() - performance.now()));
    timer.unref();
  };
  const check = () => {
    timer = undefined;
    if (performance.now() < dueAt()) arm();
    // Behind while a read waits: it fails now. Between reads, the next read fails as it starts.
    else if (reading) fallBehind(tooSlow());
  };
  arm();
  return {
    async read(reader: ReadableStreamDefaultReader<Uint8Array>, soFar: number): Promise<ReadableStreamReadResult<Uint8Array>> {
      received = soFar;
      if (timer === undefined) {
        if (performance.now() >= dueAt()) throw tooSlow();
        arm();
      }
      reading = true;
      try {
        return await Promise.race([reader.read(), late]);
      } finally {
        reading = false;
      }
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
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

import type http from "node:http";

/** A string body at least this long (characters) is handed to the socket as a Buffer. */
export const LARGE_STRING_CHARS = 64 * 1024;

/**
 * Large string bodies written as Buffers (docs/performance.md, "Large answers"). Node encodes a
 * string chunk into a buffer of its own as it writes it; for a lineageGraph answer of 186 KB that
 * cost the server 0.7 ms more CPU per request than writing the same bytes from Buffer.from (1.3 ms
 * in a bare node server with a 148 KB body, most of it system time). GraphQL answers now reach the
 * socket as bytes already (answer-bytes.ts); what else is written as one large string (an evidence
 * document) goes through here; smaller writes, and writes in another encoding, keep node's own path.
 */
export function writeLargeStringsAsBuffers(handler: http.RequestListener): http.RequestListener {
  return (request, response) => {
    const write = response.write;
    const end = response.end;
    response.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]) {
      return (write as (...args: unknown[]) => boolean).call(this, asBuffer(chunk, rest[0]), ...rest);
    } as typeof response.write;
    response.end = function (this: http.ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      return (end as (...args: unknown[]) => http.ServerResponse).call(this, asBuffer(chunk, rest[0]), ...rest);
    } as typeof response.end;
    return handler(request, response);
  };
}

function asBuffer(chunk: unknown, encoding: unknown): unknown {
  const utf8 = typeof encoding !== "string" || encoding === "utf8" || encoding === "utf-8";
  return typeof chunk === "string" && chunk.length >= LARGE_STRING_CHARS && utf8 ? Buffer.from(chunk, "utf8") : chunk;
}

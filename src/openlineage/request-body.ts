import { promisify } from "node:util";
import zlib from "node:zlib";
import { LineageBodyError } from "./errors";
import type { ReceivedEvent } from "./ingestor";
import { OPENLINEAGE_LIMITS } from "./limits";

const gunzip = promisify(zlib.gunzip);

/** Events a request carries: one (a JSON object), or a batch (a JSON array, or NDJSON lines). */
export interface LineageRequestBody {
  batch: boolean;
  /** A received event, or a line of NDJSON that is not JSON (refused alone, the others go on). */
  items: (ReceivedEvent | { unparsable: string })[];
}

const NDJSON_TYPES = ["application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines", "application/jsonlines"];

/**
 * Reads an OpenLineage request body as OpenLineage's HTTP transport sends it: JSON, optionally
 * `Content-Encoding: gzip`. Sizes are capped while reading, never after: a body (as sent, and once
 * inflated) over the batch limit is refused (413) as soon as the limit is passed, so a gzip bomb
 * stops inflating there; a single event over the per-event limit likewise.
 */
export async function readLineageBody(request: Request): Promise<LineageRequestBody> {
  const { maxBatchBytes, maxEventBytes, maxBatchEvents } = OPENLINEAGE_LIMITS;
  const encoding = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (!["identity", "gzip", "x-gzip", ""].includes(encoding)) {
    throw new LineageBodyError("UNSUPPORTED_ENCODING", 415, `Content-Encoding '${encoding.slice(0, 40)}' is not supported; send the body as is or gzip-compressed`, { encoding });
  }
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBatchBytes) throw tooLarge(declared, maxBatchBytes);
  let bytes = await readCapped(request, maxBatchBytes);
  if (encoding === "gzip" || encoding === "x-gzip") {
    try {
      bytes = await gunzip(bytes, { maxOutputLength: maxBatchBytes });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) {
        throw new LineageBodyError("PAYLOAD_TOO_LARGE", 413, `the gzip body inflates to more than ${maxBatchBytes} bytes; at most ${maxBatchBytes} are accepted`, { limit: maxBatchBytes });
      }
      throw new LineageBodyError("INVALID_GZIP", 400, `the body is declared gzip-compressed but does not inflate: ${(error as Error).message}`);
    }
  }
  if (bytes.length === 0) throw new LineageBodyError("EMPTY_BODY", 400, "the body is empty; send one OpenLineage event as JSON (or a batch: a JSON array or NDJSON)");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new LineageBodyError("INVALID_JSON", 400, "the body is not UTF-8 text");
  }
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  let body: LineageRequestBody;
  if (NDJSON_TYPES.includes(contentType)) {
    const items: LineageRequestBody["items"] = [];
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try {
        items.push({ event: JSON.parse(line), text: line });
      } catch (error) {
        items.push({ unparsable: `line ${items.length + 1} is not JSON: ${(error as Error).message.slice(0, 200)}` });
      }
    }
    body = { batch: true, items };
  } else {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new LineageBodyError("INVALID_JSON", 400, `the body is not JSON: ${(error as Error).message.slice(0, 200)}`);
    }
    if (Array.isArray(value)) body = { batch: true, items: value.map((event) => ({ event })) };
    else {
      if (bytes.length > maxEventBytes) throw tooLarge(bytes.length, maxEventBytes);
      body = { batch: false, items: [{ event: value, text }] };
    }
  }
  if (body.items.length > maxBatchEvents) {
    throw new LineageBodyError("TOO_MANY_EVENTS", 413, `the batch holds ${body.items.length} events; at most ${maxBatchEvents} are accepted per request`, { limit: maxBatchEvents, found: body.items.length });
  }
  return body;
}

function tooLarge(found: number, limit: number): LineageBodyError {
  return new LineageBodyError("PAYLOAD_TOO_LARGE", 413, `the body is ${found} bytes; at most ${limit} are accepted`, { limit, found });
}

/** The body's bytes, reading no further than `limit` (a longer body is refused as soon as it passes it). */
async function readCapped(request: Request, limit: number): Promise<Buffer> {
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(total, limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

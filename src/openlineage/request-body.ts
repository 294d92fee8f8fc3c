import { BodyArrivalError, type BodyPace, BodyBoundError, BodyEncodingError, readBoundedBody } from "../http/bounded-body";
import { REQUEST_LIMITS } from "../limits/request-limits";
import { LineageBodyError } from "./errors";
import type { ReceivedEvent } from "./ingestor";
import { OPENLINEAGE_LIMITS } from "./limits";

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
 * stops inflating there; a single event over the per-event limit likewise. JSON nesting deeper than
 * maxBodyNesting is refused (400 JSON_TOO_DEEP) the same way, before anything is parsed.
 */
export async function readLineageBody(request: Request, pace?: BodyPace): Promise<LineageRequestBody> {
  const { maxBatchBytes, maxEventBytes, maxBatchEvents } = OPENLINEAGE_LIMITS;
  const encoding = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (!["identity", "gzip", "x-gzip", ""].includes(encoding)) {
    throw new LineageBodyError("UNSUPPORTED_ENCODING", 415, `Content-Encoding '${encoding.slice(0, 40)}' is not supported; send the body as is or gzip-compressed`, { encoding });
  }
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBatchBytes) throw tooLarge(declared, maxBatchBytes);
  const gzip = encoding === "gzip" || encoding === "x-gzip";
  let bytes: Buffer;
  try {
    // Size (as sent and once inflated) and JSON nesting are checked on the raw bytes as they arrive, before anything is parsed.
    bytes = await readBoundedBody(request, { maxBytes: maxBatchBytes, maxNesting: REQUEST_LIMITS.maxBodyNesting, pace }, { gzip });
  } catch (error) {
    if (error instanceof BodyEncodingError) throw new LineageBodyError("INVALID_GZIP", 400, error.message);
    if (error instanceof BodyArrivalError) throw new LineageBodyError(error.code, error.status, error.message, error.details);
    if (!(error instanceof BodyBoundError)) throw error;
    if (error.code === "JSON_TOO_DEEP") throw new LineageBodyError("JSON_TOO_DEEP", 400, error.message, error.details);
    throw new LineageBodyError("PAYLOAD_TOO_LARGE", 413, gzip ? `the gzip body inflates to more than ${maxBatchBytes} bytes; at most ${maxBatchBytes} are accepted` : error.message, { limit: maxBatchBytes });
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

import { isAscii, isUtf8 } from "node:buffer";
import { createGraphQLError, type Plugin } from "graphql-yoga";
import { limitError } from "../limits";
import { jsonTextNestsDeeper } from "../limits/json-nesting";
import { RawJsonText } from "../services/raw-json-text";
import { yieldToEventLoop } from "../services/recording/yield";
import { BodyArrivalError, type BodyBounds, BodyBoundError, readBoundedBody } from "./bounded-body";
import { type RawJsonArgument, splitRawJsonVariables } from "./raw-json-variables";

/** What Yoga's request parsers hand on: the GraphQL parameters of one request. */
interface GraphQLParams {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

/**
 * /graphql requests parsed within bounds (docs: "Limits and budgets"), in place of Yoga's own
 * parsers: a JSON body is read chunk by chunk with its size (GRAPHQL_MAX_BODY_BYTES) and nesting
 * (maxBodyNesting) checked on the raw bytes as they arrive, so a body of millions of nested arrays
 * is refused (JSON_TOO_DEEP, 400; PAYLOAD_TOO_LARGE, 413) before anything is built; a GET query
 * string's and a form body's `variables` and `extensions` are checked the same way before they are
 * parsed; an application/graphql body (the document alone) is read within the size. Every body
 * /graphql reads is read here, so this is the streamed body's limit (Yoga's own is off: it piped
 * every body through a stream of its own, a third of a small request's server CPU). Multipart bodies
 * (file uploads) are not served (createYoga: multipart off).
 */
export function useBoundedGraphQLBodies(bounds: BodyBounds, rawJson?: RawJsonVariables): Plugin {
  // A form's and a document's bytes are not JSON: only their size is bounded as they are read.
  const sizeOnly: BodyBounds = { ...bounds, maxNesting: Number.POSITIVE_INFINITY };
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method === "GET") setRequestParser((r) => paramsOf(new URLSearchParams(r.url.slice(r.url.indexOf("?") + 1)), bounds));
      else if (request.method === "POST" && (isContentType(request, "application/json") || isContentType(request, "application/graphql+json"))) setRequestParser((r) => parseJsonBody(r, bounds, rawJson));
      else if (request.method === "POST" && isContentType(request, "application/x-www-form-urlencoded")) {
        setRequestParser(async (r) => paramsOf(new URLSearchParams((await read(r, sizeOnly)).toString("utf8")), bounds));
      } else if (request.method === "POST" && isContentType(request, "application/graphql")) {
        // The body is the document itself (Yoga's own parser for it reads the body whole, unbounded).
        setRequestParser(async (r) => ({ query: textOf(await read(r, sizeOnly)) }));
      } else if (request.method === "POST") {
        // A body of another type, read by no parser: Yoga answers that 415 with no body at all.
        setRequestParser(() => Promise.reject(unsupportedMediaType(request.headers.get("content-type"))));
      }
    },
  };
}

/**
 * Big JSON variables kept as text (RawJsonText) for the fields that take them so (a filed evidence
 * document for verifyEvidence: megabytes): the event loop neither parses them nor clones their tree
 * to a heavy-read thread. `check` tells off the event loop whether such a text is JSON and how deep
 * it nests, so the request is refused as before when it is not.
 */
export interface RawJsonVariables {
  arguments: readonly RawJsonArgument[];
  /** Bodies at least this long are looked at; variables at least this long are kept as text. */
  minChars: number;
  maxDepth: number;
  check(text: string, maxDepth: number): Promise<{ valid: boolean; tooDeep: boolean }>;
}

/** A body this long (characters) is parsed in a turn of the event loop of its own, after it was read. */
const BIG_BODY_CHARS = 1 << 20;

async function parseJsonBody(request: Request, bounds: BodyBounds, rawJson: RawJsonVariables | undefined): Promise<GraphQLParams> {
  const bytes = await read(request, bounds);
  // A big body: its decoding, its parsing and what follows each take a turn of the event loop of their own.
  const big = bytes.length >= BIG_BODY_CHARS;
  if (big) await yieldToEventLoop();
  const text = textOf(bytes);
  if (big) await yieldToEventLoop();
  const scanned = rawJson !== undefined && text.length >= rawJson.minChars && namesRawArgument(text, rawJson);
  const split = scanned ? splitRawJsonVariables(text, rawJson.arguments, rawJson.minChars) : null;
  if (split) {
    const variables = split.body.variables as Record<string, unknown>;
    for (const [name, raw] of split.raw) {
      const { valid, tooDeep } = await rawJson!.check(raw, rawJson!.maxDepth);
      if (!valid) throw badRequest("POST body sent invalid JSON.");
      // Refused (JSON_TOO_DEEP) by the JSON scalar, whose message shows the value: parsed, as before.
      variables[name] = tooDeep ? JSON.parse(raw) : new RawJsonText(raw);
    }
    if (big) await yieldToEventLoop();
    return split.body as GraphQLParams;
  }
  // The split's scan of a big body, when it found nothing to keep as text, and its parse: a turn each.
  if (big && scanned) await yieldToEventLoop();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest("POST body sent invalid JSON.");
  }
  if (body === null || typeof body !== "object") throw badRequest(`POST body is expected to be object but received ${body === null ? "null" : typeof body}`);
  // What follows (validating the document, coercing its variables: 20,000 output drafts) in a turn of its own too.
  if (big) await yieldToEventLoop();
  return body as GraphQLParams;
}

/**
 * Whether the body names a field whose JSON argument may be kept as text: if not, the scan that
 * splits it (a pass over every byte, 70 ms for 47 MB) would find nothing. A name written with JSON
 * escapes is missed, and the body is then parsed whole, as any other.
 */
function namesRawArgument(text: string, rawJson: RawJsonVariables): boolean {
  return rawJson.arguments.some((argument) => text.includes(argument.field));
}

/** UTF-8 bytes as text: ASCII (what JSON mostly is) is decoded as Latin-1, the same text many times faster. */
/**
 * A body's text. GraphQL over HTTP bodies are UTF-8: bytes that are not are refused (decoded, they
 * would turn into U+FFFD and be recorded so, silently). A leading byte order mark is no part of the
 * text (RFC 8259 lets a parser ignore it; the lineage routes do).
 */
function textOf(bytes: Buffer): string {
  if (isAscii(bytes)) return bytes.toString("latin1");
  if (!isUtf8(bytes)) throw createGraphQLError("the body is not UTF-8 text: GraphQL over HTTP bodies are UTF-8", { extensions: { code: "BAD_REQUEST", http: { status: 400 } } });
  return bytes.toString("utf8", bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
}

/** A query string's or form's GraphQL parameters, its JSON ones checked for nesting before they are parsed. */
function paramsOf(search: URLSearchParams, bounds: BodyBounds): GraphQLParams {
  const json = (name: "variables" | "extensions") => {
    const text = search.get(name);
    if (!text) return undefined;
    if (jsonTextNestsDeeper(text, bounds.maxNesting)) throw tooDeep(bounds.maxNesting, name);
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw badRequest(`'${name}' is not JSON.`);
    }
  };
  return { query: search.get("query") || undefined, operationName: search.get("operationName") || undefined, variables: json("variables"), extensions: json("extensions") };
}

async function read(request: Request, bounds: BodyBounds): Promise<Buffer> {
  try {
    return await readBoundedBody(request, bounds);
  } catch (error) {
    if (error instanceof BodyArrivalError) {
      // Not a well-formed request: its status whatever the Accept header; a slow one's connection closes behind the answer.
      const headers = error.code === "BODY_TOO_SLOW" ? { connection: "close" } : undefined;
      throw createGraphQLError(error.message, { extensions: { code: error.code, ...error.details, http: { status: error.status, ...(headers ? { headers } : {}) } } });
    }
    if (!(error instanceof BodyBoundError)) throw error;
    if (error.code === "JSON_TOO_DEEP") throw tooDeep(bounds.maxNesting);
    throw limitError("PAYLOAD_TOO_LARGE", `the body is more than ${bounds.maxBytes} bytes; at most ${bounds.maxBytes} are accepted (GRAPHQL_MAX_BODY_BYTES)`, { limit: bounds.maxBytes });
  }
}

function tooDeep(limit: number, parameter?: string) {
  return limitError("JSON_TOO_DEEP", `The ${parameter ? `'${parameter}' parameter` : "body"} nests objects and arrays more than ${limit} levels deep; at most ${limit} are accepted.`, { limit });
}

/** The body types /graphql reads, as the 415 names them. */
const READ_BODY_TYPES = ["application/json", "application/graphql+json", "application/graphql", "application/x-www-form-urlencoded"];

function unsupportedMediaType(contentType: string | null) {
  const got = contentType === null ? "no Content-Type" : `Content-Type '${contentType}'`;
  return createGraphQLError(`/graphql reads POST bodies of the types ${READ_BODY_TYPES.join(", ")}; this one has ${got}`, {
    extensions: { code: "UNSUPPORTED_MEDIA_TYPE", contentType, accepted: READ_BODY_TYPES, http: { spec: false, status: 415 } },
  });
}

function badRequest(message: string) {
  return createGraphQLError(message, { extensions: { code: "BAD_REQUEST", http: { spec: true, status: 400 } } });
}

/** Yoga's test — the first of a (malformed) list of types, with or without parameters — with case ignored, as media types are (RFC 9110). */
function isContentType(request: Request, expected: string): boolean {
  const contentType = request.headers.get("content-type")?.split(",")[0].trim().toLowerCase() ?? null;
  return contentType === expected || !!contentType?.startsWith(`${expected};`);
}

import { createGraphQLError, type Plugin } from "graphql-yoga";
import { limitError } from "../limits";
import { jsonTextNestsDeeper } from "../limits/json-nesting";
import { type BodyBounds, BodyBoundError, readBoundedBody } from "./bounded-body";

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
 * parsed. Multipart bodies (file uploads) are not served (createYoga: multipart off).
 */
export function useBoundedGraphQLBodies(bounds: BodyBounds): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method === "GET") setRequestParser((r) => paramsOf(new URLSearchParams(r.url.slice(r.url.indexOf("?") + 1)), bounds));
      else if (request.method === "POST" && (isContentType(request, "application/json") || isContentType(request, "application/graphql+json"))) setRequestParser((r) => parseJsonBody(r, bounds));
      else if (request.method === "POST" && isContentType(request, "application/x-www-form-urlencoded")) {
        setRequestParser(async (r) => paramsOf(new URLSearchParams((await read(r, { ...bounds, maxNesting: Number.POSITIVE_INFINITY })).toString("utf8")), bounds));
      }
    },
  };
}

async function parseJsonBody(request: Request, bounds: BodyBounds): Promise<GraphQLParams> {
  const text = (await read(request, bounds)).toString("utf8");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest("POST body sent invalid JSON.");
  }
  if (body === null || typeof body !== "object") throw badRequest(`POST body is expected to be object but received ${body === null ? "null" : typeof body}`);
  return body as GraphQLParams;
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
    if (!(error instanceof BodyBoundError)) throw error;
    if (error.code === "JSON_TOO_DEEP") throw tooDeep(bounds.maxNesting);
    throw limitError("PAYLOAD_TOO_LARGE", `The body is more than ${bounds.maxBytes} bytes; at most ${bounds.maxBytes} are accepted (GRAPHQL_MAX_BODY_BYTES).`, { limit: bounds.maxBytes });
  }
}

function tooDeep(limit: number, parameter?: string) {
  return limitError("JSON_TOO_DEEP", `The ${parameter ? `'${parameter}' parameter` : "body"} nests objects and arrays more than ${limit} levels deep; at most ${limit} are accepted.`, { limit });
}

function badRequest(message: string) {
  return createGraphQLError(message, { extensions: { code: "BAD_REQUEST", http: { spec: true, status: 400 } } });
}

/** Yoga's test: the first of a (malformed) list of types, with or without parameters. */
function isContentType(request: Request, expected: string): boolean {
  const contentType = request.headers.get("content-type")?.split(",")[0] ?? null;
  return contentType === expected || !!contentType?.startsWith(`${expected};`);
}

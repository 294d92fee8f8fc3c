import type http from "node:http";
import { type DocumentNode, getOperationAST, Kind, type SelectionSetNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { estimatedCostOf } from "../../limits/query-cost";
import type { Logger } from "../../logger";
import { RequestAbortedError } from "../../services/errors";
import { JSON_CONTENT_TYPE, refusalBody } from "../browser-safety/refusal";
import type { HeavyWorkQueue } from "./heavy-work-queue";
import type { OverloadedError } from "./overloaded-error";

/**
 * What counts as heavy (docs/operating/outages.md):
 * - a request body of HEAVY_BODY_BYTES or more, or of unknown length, on /graphql or the lineage
 *   routes (big recordings, batches, OpenLineage batches): admitted before its body is read, so a
 *   waiting request holds a socket, not a parsed body;
 * - an operation that asks for a walk of the lineage (HEAVY_ROOT_FIELDS: closures, provenance maps,
 *   graphs, evidence), whatever page it asks for: its cost is the walk, not the nodes it answers;
 * - an operation whose estimated cost (src/limits/query-cost.ts) is HEAVY_COST or more (large pages),
 *   or a mutation whose variables hold HEAVY_INPUT_ITEMS list items or more (over graphql-ws too,
 *   where there is no body to measure).
 */
export const HEAVY_COST = 10_000;

/** Root fields that walk the lineage: heavy at any page size (a default page of 1,000 nodes still walks the store). */
export const HEAVY_ROOT_FIELDS: ReadonlySet<string> = new Set([
  "lineage",
  "provJson",
  "columnLineage",
  "lineageCoverage",
  "provenanceMap",
  "macroGraph",
  "microGraph",
  "lineageGraph",
  "expand",
  "lineagePath",
  "impact",
  "evidencePackage",
  "verifyEvidence",
  "erasurePlan",
]);
export const HEAVY_INPUT_ITEMS = 1_000;

const GATED_PATHS = new Set(["/graphql", "/api/v1/lineage", "/api/v1/lineage/batch"]);

/** Requests admitted at the socket: their operations do not queue a second time. */
const admittedAtSocket = new WeakSet<http.IncomingMessage>();

export interface BodyAdmission {
  heavyBodyBytes: number;
  /** /graphql bodies declared larger are refused (413) before a byte is read (the lineage routes have their own limit). */
  maxGraphQLBodyBytes: number;
}

/**
 * Wraps the HTTP handler: heavy bodies wait for a turn before the handler (Yoga) reads them, and hold
 * it until their response is finished or the client goes away; refused ones are answered 503 at once.
 */
export function admitHeavyBodies(handler: http.RequestListener, queue: HeavyWorkQueue, options: BodyAdmission, logger: Logger): http.RequestListener {
  return (request, response) => {
    if (request.method !== "POST") return handler(request, response);
    // A trailing slash names the same route (Yoga serves /graphql/, the lineage routes take theirs): gated alike.
    const path = (request.url ?? "/").split("?")[0].replace(/(.)\/$/, "$1");
    if (!GATED_PATHS.has(path)) return handler(request, response);
    const length = request.headers["content-length"] === undefined ? undefined : Number(request.headers["content-length"]);
    if (path === "/graphql" && length !== undefined && length > options.maxGraphQLBodyBytes) {
      const body = refusalBody("PAYLOAD_TOO_LARGE", `the body is ${length} bytes; at most ${options.maxGraphQLBodyBytes} are accepted (GRAPHQL_MAX_BODY_BYTES)`, { limit: options.maxGraphQLBodyBytes, found: length });
      // Not worth reading: the connection closes after the answer.
      response.writeHead(413, { "content-type": JSON_CONTENT_TYPE, "content-length": Buffer.byteLength(body), connection: "close" });
      response.end(body);
      return;
    }
    if (length !== undefined && Number.isFinite(length) && length < options.heavyBodyBytes) return handler(request, response);
    // A client that goes away while its request waits gives up its place in the queue.
    const waiting = new AbortController();
    const gone = () => waiting.abort();
    response.once("close", gone);
    queue.enter(waiting.signal).then(
      (release) => {
        response.removeListener("close", gone);
        admittedAtSocket.add(request);
        response.once("close", release);
        handler(request, response);
      },
      (error: OverloadedError | RequestAbortedError) => {
        response.removeListener("close", gone);
        // Nobody to answer: the socket is closed.
        if (error instanceof RequestAbortedError) return;
        logger.info({ transport: "http", code: error.code, path, ...queue.stats() }, "heavy request refused: the server is busy");
        const body = path === "/graphql" ? refusalBody(error.code, error.message, error.details) : JSON.stringify({ error: { code: error.code, message: error.message, ...error.details } });
        // The body is read and dropped as it comes (nothing kept), so the client gets the answer rather than a reset connection.
        request.resume();
        response.writeHead(503, { "content-type": JSON_CONTENT_TYPE, "content-length": Buffer.byteLength(body), ...error.http.headers });
        response.end(body);
      },
    );
  };
}

/** Heavy operations (by cost or input size) run in a turn of the queue; refused ones answer OVERLOADED (503 over HTTP). */
export function useHeavyWorkAdmission(queue: HeavyWorkQueue): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const request = (args.contextValue as { req?: http.IncomingMessage } | undefined)?.req;
      if (request && admittedAtSocket.has(request)) return;
      if (!isHeavy(args)) return;
      const signal = (args.contextValue as { signal?: AbortSignal } | undefined)?.signal;
      setExecuteFn(async (executionArgs) => queue.run(async () => executeFn(executionArgs), signal));
    },
  };
}

function isHeavy(args: { contextValue: unknown; document: DocumentNode; operationName?: string | null; variableValues?: unknown }): boolean {
  if ((estimatedCostOf(args.contextValue) ?? 0) >= HEAVY_COST) return true;
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) return false;
  if (rootFieldNames(args.document, operation.selectionSet).some((name) => HEAVY_ROOT_FIELDS.has(name))) return true;
  return operation.operation === "mutation" && listItemsReach(args.variableValues, HEAVY_INPUT_ITEMS);
}

/** The root fields an operation selects, through fragments and inline fragments (each fragment once). */
function rootFieldNames(document: DocumentNode, selectionSet: SelectionSetNode): string[] {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const names: string[] = [];
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) names.push(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  visit(selectionSet);
  return names;
}

/** Whether `value` holds at least `limit` list items, however deep; stops counting there. */
function listItemsReach(value: unknown, limit: number): boolean {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      count += item.length;
      if (count >= limit) return true;
      pending.push(...item);
    } else if (item !== null && typeof item === "object") {
      pending.push(...Object.values(item));
    }
  }
  return false;
}

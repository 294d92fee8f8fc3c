import type { Plugin } from "graphql-yoga";
import { requestIdOf } from "../http/request-log";
import { DATABASE_RETRY_AFTER_SECONDS, DatabaseOutageError, databaseOutageOf } from "../services/errors";
import type { Logger } from "../logger";
import type { RecordingActor } from "../services/recording";
import { LineageBodyError } from "./errors";
import type { EventError, EventResult, OpenLineageIngestor, ReceivedEvent } from "./ingestor";
import { readLineageBody } from "./request-body";
import type { BodyPace } from "../http/bounded-body";
import { markCpuPhase } from "../cpu-phases";

/** Where OpenLineage's HTTP transport posts (its default endpoint), and the batch form. */
export const LINEAGE_PATH = "/api/v1/lineage";
export const LINEAGE_BATCH_PATH = "/api/v1/lineage/batch";

/**
 * Decides whether a request may write lineage: undefined lets it through, a Response answers
 * instead (401/403). The default allows every request; the token check (src/auth) plugs in here.
 */
export type AuthorizeLineageRequest = (request: Request) => Promise<Response | undefined> | Response | undefined;

export const allowEveryRequest: AuthorizeLineageRequest = () => undefined;

/** Told what one request's events came to, once they are recorded (the audit trail of writes by token, src/auth). */
export type LineageRequestRecorded = (request: Request, route: string, results: readonly EventResult[]) => Promise<void> | void;

/** The HTTP status an event's refusal answers with (alone, or as the status of a one-event request). */
export function httpStatusOf(error: EventError): number {
  switch (error.code) {
    case "EVENT_TOO_LARGE":
      return 413;
    case "INTERNAL_SERVER_ERROR":
      return 500;
    case "DATABASE_UNAVAILABLE":
      return 503; // retryable: with Retry-After
    case "PURPOSE_NOT_GRANTED":
      return 403; // the token carries no purpose:<NAME> for the purpose the run declares
    case "OPERATION_DECLARATION":
      return 409; // the job's operation name+version is registered with another declaration
    case "INVALID_EVENT":
    case "JSON_TOO_DEEP":
    case "INVALID_JSON":
      return 400;
    default:
      return 422; // a rule of the core refused what the event describes
  }
}

export interface LineageRouteOptions {
  /** Who may write (the write scope; every request when absent). */
  authorize?: AuthorizeLineageRequest;
  /** Told of each request's results (the audit log). */
  recorded?: LineageRequestRecorded;
  /** The recording actor a request acts as. */
  actorOf?: (request: Request) => RecordingActor | undefined;
  /** The pace a body must keep (BODY_MIN_BYTES_PER_SECOND). */
  bodyPace?: BodyPace;
}

/**
 * POST /api/v1/lineage (one event, as OpenLineage clients send to Marquez: 201 when stored; or a
 * batch as a JSON array or NDJSON) and POST /api/v1/lineage/batch: a Yoga plugin, so in-process
 * tests (yoga.fetch) see the same routes as HTTP clients. A batch answers each event's result (200,
 * or 207 when any was refused). Every refusal says why (code, message, JSON pointer, reason), never
 * with a stack; a request with refusals leaves one info line in the log, our faults an error line each.
 */
export function useOpenLineageRoutes(ingestor: OpenLineageIngestor, logger: Logger, options: LineageRouteOptions = {}): Plugin {
  const { authorize = allowEveryRequest, recorded, actorOf = () => undefined, bodyPace } = options;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      // A trailing slash names the same route (a client's base URL and endpoint joined by hand often leave one).
      const route = url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
      if (route !== LINEAGE_PATH && route !== LINEAGE_BATCH_PATH) return;
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => fetchAPI.Response.json(body, { status, headers });
      const requestId = requestIdOf(request);
      if (request.method !== "POST") {
        endResponse(json(405, { error: { code: "METHOD_NOT_ALLOWED", message: `${route} accepts POST only` } }, { allow: "POST" }));
        return;
      }
      const denied = await authorize(request);
      if (denied) {
        endResponse(denied);
        return;
      }
      let body;
      markCpuPhase("http");
      try {
        body = await readLineageBody(request, bodyPace);
      } catch (error) {
        if (!(error instanceof LineageBodyError)) throw error;
        logger.info({ requestId, route, code: error.code, message: error.message }, "lineage request refused");
        // A body too slow to wait for: the connection closes behind the answer, the rest unread.
        endResponse(json(error.status, { error: { code: error.code, message: error.message, ...error.details } }, error.code === "BODY_TOO_SLOW" ? { connection: "close" } : {}));
        return;
      }
      const batch = body.batch || route === LINEAGE_BATCH_PATH;
      const received: ReceivedEvent[] = [];
      const unparsable = new Map<number, string>();
      body.items.forEach((item, index) => {
        if ("unparsable" in item) unparsable.set(index, item.unparsable);
        else received.push(item);
      });
      let ingested: EventResult[];
      try {
        markCpuPhase("core");
        ingested = await ingestor.ingest(received, requestId, actorOf(request));
        markCpuPhase("response");
      } catch (error) {
        if (!databaseOutageOf(error)) throw error;
        endResponse(unavailable(fetchAPI.Response));
        return;
      }
      // Put the NDJSON lines that were not JSON back in their places.
      const results: EventResult[] = [];
      let next = 0;
      for (let index = 0; index < body.items.length; index++) {
        const reason = unparsable.get(index);
        results.push(
          reason !== undefined
            ? { index, status: "REFUSED", kind: null, runId: null, executionStatus: null, error: { code: "INVALID_JSON", message: reason, pointer: null, reason, details: {} }, warnings: [] }
            : { ...ingested[next++], index },
        );
      }
      logOutcome(logger, requestId, route, results);
      // Some events may have been stored before the database went away: the 503 still lists each one's
      // result, and a client resending the whole request gets DUPLICATE for those.
      const outage = results.some((r) => r.error?.code === "DATABASE_UNAVAILABLE");
      const retryAfter = { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) };
      if (recorded) {
        try {
          await recorded(request, route, results);
        } catch (error) {
          if (!databaseOutageOf(error)) throw error;
          if (!outage) logger.warn({ requestId, route }, "lineage request: its audit entry could not be written (the database is unavailable)");
        }
      }
      if (!batch) {
        const [result] = results;
        if (result.error) endResponse(json(httpStatusOf(result.error), { error: presentError(result.error) }, outage ? retryAfter : {}));
        else endResponse(json(result.status === "STORED" ? 201 : 200, presentResult(result)));
        return;
      }
      const refused = results.filter((r) => r.status === "REFUSED").length;
      endResponse(
        json(outage ? 503 : refused > 0 ? 207 : 200, {
          stored: results.filter((r) => r.status === "STORED").length,
          duplicates: results.filter((r) => r.status === "DUPLICATE").length,
          refused,
          results: results.map(presentResult),
        }, outage ? retryAfter : {}),
      );
    },
  };
}

/** What of a refusal's details an answer carries: limits, a privacy refusal's dataset and amounts, a purpose refusal's purpose, tag and column. */
const PRESENTED_DETAILS = ["limit", "found", "rule", "retryable", "retryAfterSeconds", "dataset", "namespace", "name", "remainingEpsilon", "askedEpsilon", "remainingDelta", "askedDelta", "perReleaseEpsilon", "runId", "purpose", "tag", "allowedPurposes", "artifactId", "column"];

function presentError(error: EventError) {
  return { code: error.code, message: error.message, pointer: error.pointer, reason: error.reason, ...pick(error.details, PRESENTED_DETAILS) };
}

/** The answer when nothing could be tried: the database is unavailable. */
function unavailable(ResponseClass: typeof Response): Response {
  const outage = new DatabaseOutageError();
  return ResponseClass.json({ error: { code: outage.code, message: outage.message, ...outage.details } }, { status: 503, headers: outage.http.headers });
}

function presentResult(result: EventResult) {
  return {
    index: result.index,
    status: result.status,
    ...(result.kind ? { kind: result.kind } : {}),
    ...(result.runId ? { runId: result.runId } : {}),
    ...(result.executionStatus ? { executionStatus: result.executionStatus } : {}),
    ...(result.error ? { error: presentError(result.error) } : {}),
    ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}),
  };
}

const pick = (details: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => details[k] !== undefined).map((k) => [k, details[k]]));

/** One info line for a request's refusals (counts by code, the first one's reason); our faults the ingestor logged already. */
function logOutcome(logger: Logger, requestId: string, route: string, results: readonly EventResult[]): void {
  const clientErrors = results.filter((r) => r.error && r.error.fault === undefined);
  if (clientErrors.length === 0) return;
  const codes: Record<string, number> = {};
  for (const r of clientErrors) codes[r.error!.code] = (codes[r.error!.code] ?? 0) + 1;
  const first = clientErrors[0];
  logger.info(
    { requestId, route, events: results.length, refused: clientErrors.length, codes, first: { index: first.index, code: first.error!.code, pointer: first.error!.pointer, message: first.error!.message.slice(0, 200) } },
    "lineage request answered with refused events",
  );
}

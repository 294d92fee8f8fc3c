import type { Plugin } from "graphql-yoga";
import { type AuthServices, authorizeHttpRequest } from "../auth";
import type { Logger } from "../logger";
import type { HeavyWorkQueue } from "./admission";
import type { EvidenceReader } from "../services/compliance";
import { ProvenanceError } from "../../plugins/errors";
import { databaseOutageOf, InvalidArgumentError, InvalidIdError } from "../services/errors";
import { isIdOfKind } from "../services/ids";
import { requestIdOf } from "./request-log";

/** Where an artifact's evidence package is served, as one canonical JSON document. */
export const EVIDENCE_PATH_PREFIX = "/api/v1/evidence/";

/**
 * GET /api/v1/evidence/<artifactId>[?field=<column>][&asOf=<instant>]: the evidence package's
 * canonical JSON document, byte for byte what its sha256 is the digest of (`sha256sum` of the
 * download equals the `ETag`'s hex), to file and verify later (verifyEvidence). Needs the read
 * scope (a Bearer token, as /graphql). A Yoga plugin, so in-process tests see it as clients do.
 * Refusals answer a JSON error with its code: 400 INVALID_ID / INVALID_ARGUMENT, 404 NOT_FOUND,
 * 405 for another method, 503 DATABASE_UNAVAILABLE or OVERLOADED (with Retry-After);
 * our faults 500, logged with the request id.
 */
export function useEvidenceRoute(evidence: EvidenceReader, auth: AuthServices, logger: Logger, heavyWork?: HeavyWorkQueue): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(EVIDENCE_PATH_PREFIX)) return;
      const requestId = requestIdOf(request);
      const json = (status: number, error: { code: string; message: string } & Record<string, unknown>, headers: Record<string, string> = {}) =>
        fetchAPI.Response.json({ error }, { status, headers });
      if (request.method !== "GET" && request.method !== "HEAD") {
        endResponse(json(405, { code: "METHOD_NOT_ALLOWED", message: `${EVIDENCE_PATH_PREFIX}<artifactId> accepts GET only` }, { allow: "GET, HEAD" }));
        return;
      }
      const authorization = await authorizeHttpRequest(auth, request, "read", "GET /api/v1/evidence");
      if (!authorization.ok) {
        endResponse(authorization.response);
        return;
      }
      try {
        const id = decodeURIComponent(url.pathname.slice(EVIDENCE_PATH_PREFIX.length));
        if (!isIdOfKind(id, "artifact")) throw new InvalidIdError("artifactId", id.slice(0, 80), "artifact (art_…)");
        const asOfText = url.searchParams.get("asOf");
        const asOf = asOfText === null ? null : new Date(asOfText);
        if (asOf !== null && Number.isNaN(asOf.getTime())) throw new InvalidArgumentError("asOf", "is not an instant (ISO 8601, e.g. 2026-02-28T23:59:59Z)");
        const field = url.searchParams.get("field");
        const build = () => evidence.package(field === null ? { artifactId: id, asOf } : { artifactId: id, field, asOf });
        // A closure of any size: heavy work, which takes its turn (503 OVERLOADED beyond the queue).
        const pkg = await (heavyWork ? heavyWork.run(build) : build());
        const body = request.method === "HEAD" ? null : pkg.text;
        endResponse(
          new fetchAPI.Response(body, {
            status: 200,
            headers: {
              "content-type": "application/json; charset=utf-8",
              etag: `"sha256:${pkg.sha256}"`,
              "content-digest": `sha-256=:${Buffer.from(pkg.sha256, "hex").toString("base64")}:`,
              "x-provgraph-provable": String(pkg.provable),
            },
          }),
        );
      } catch (caught) {
        const error = databaseOutageOf(caught) ?? caught;
        if (!(error instanceof ProvenanceError)) {
          logger.error({ requestId, err: error, route: EVIDENCE_PATH_PREFIX }, "unexpected error while building an evidence package");
          endResponse(json(500, { code: "INTERNAL_SERVER_ERROR", message: "Unexpected error." }));
          return;
        }
        const http = (error as { http?: { status: number; headers: Record<string, string> } }).http;
        const status = http?.status ?? (error.code === "NOT_FOUND" ? 404 : 400);
        logger.info({ requestId, route: EVIDENCE_PATH_PREFIX, code: error.code, message: error.message.slice(0, 200) }, "evidence request refused");
        endResponse(json(status, { code: error.code, message: error.message, ...error.details }, http?.headers ?? {}));
      }
    },
  };
}

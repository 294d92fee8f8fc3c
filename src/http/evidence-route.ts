import type { Plugin } from "graphql-yoga";
import { type AuthServices, authorizeHttpRequest } from "../auth";
import type { Logger } from "../logger";
import type { HeavyWorkQueue } from "./admission";
import type { ComplianceServices, PolicySubject } from "../services/compliance";
import { purposeOf } from "../auth";
import { taggedReadNoter } from "../schema/purpose-reads";
import { evidenceAsViewed } from "../schema/evidence-view";
import { ProvenanceError } from "../../plugins/errors";
import { databaseOutageOf, InvalidArgumentError, InvalidIdError } from "../services/errors";
import { cappedValue } from "../services/echo-limits";
import { SigningNotConfiguredError } from "../services/compliance";
import { isIdOfKind } from "../services/ids";
import { type HeavyReads, RequestBudget } from "../services/heavy-reads";
import { requestIdOf } from "./request-log";
import { TEXT_CHUNK_CHARS, textInChunks } from "./text-in-chunks";
import { decodedPathSegment } from "./request-target";

/** The statuses of refusals that are not a 400 (and carry no HTTP hint of their own). */
const STATUS_OF_CODE: Record<string, number> = { NOT_FOUND: 404, SIGNING_NOT_CONFIGURED: 409, QUERY_TIMEOUT: 504 };

/** Where an artifact's evidence package is served, as one canonical JSON document. */
export const EVIDENCE_PATH_PREFIX = "/api/v1/evidence/";

/**
 * GET /api/v1/evidence/<artifactId>[?field=<column>][&asOf=<instant>][&format=jws]: the evidence
 * package's canonical JSON document, byte for byte what its sha256 is the digest of (`sha256sum` of
 * the download equals the `ETag`'s hex), to file and verify later (verifyEvidence); with
 * `format=jws`, the document signed by the server (a JWS whose payload is that document: all a
 * verifier needs besides the public key; 409 SIGNING_NOT_CONFIGURED without a signing key). Needs the
 * read scope (a Bearer token, as /graphql); the params of runs the token has no clearance for are
 * left out, as evidencePackage leaves them out (the ETag and the signature are those of the document
 * served). A Yoga plugin, so in-process tests see it as clients do.
 * Refusals answer a JSON error with its code: 400 INVALID_ID / INVALID_ARGUMENT / INVALID_REQUEST_TARGET, 404 NOT_FOUND,
 * 405 for another method, 503 DATABASE_UNAVAILABLE or OVERLOADED (with Retry-After);
 * our faults 500, logged with the request id.
 */
export function useEvidenceRoute(
  compliance: Pick<ComplianceServices, "signer" | "tagReader" | "purposes" | "purposeAudit">,
  heavyReads: HeavyReads,
  auth: AuthServices,
  logger: Logger,
  heavyWork?: HeavyWorkQueue,
): Plugin {
  const { tagReader: tags } = compliance;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(EVIDENCE_PATH_PREFIX)) return;
      const requestId = requestIdOf(request);
      const json = (status: number, error: { code: string; message: string } & Record<string, unknown>, headers: Record<string, string> = {}) =>
        fetchAPI.Response.json({ error: cappedValue(error) }, { status, headers });
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
        const id = decodedPathSegment(url.pathname.slice(EVIDENCE_PATH_PREFIX.length));
        if (id === undefined) {
          endResponse(json(400, { code: "INVALID_REQUEST_TARGET", message: "the artifact id in the path is not well-formed percent-encoding: each '%' must be followed by two hex digits, and the bytes must be UTF-8" }));
          return;
        }
        if (!isIdOfKind(id, "artifact")) throw new InvalidIdError("artifactId", id.slice(0, 80), "artifact (art_…)");
        const asOfText = url.searchParams.get("asOf");
        const asOf = asOfText === null ? null : new Date(asOfText);
        if (asOf !== null && Number.isNaN(asOf.getTime())) throw new InvalidArgumentError("asOf", "is not an instant (ISO 8601, e.g. 2026-02-28T23:59:59Z)");
        const field = url.searchParams.get("field");
        const format = url.searchParams.get("format") ?? "json";
        if (format !== "json" && format !== "jws") throw new InvalidArgumentError("format", `is json (the document) or jws (the document signed), got ${JSON.stringify(format.slice(0, 40))}`);
        const query = field === null ? { artifactId: id, asOf } : { artifactId: id, field, asOf };
        // Off the event loop (a heavy read), within one time budget for both builds.
        const budget = new RequestBudget(heavyReads.options.budgetMs, request.signal);
        const build = (withheld: string[]) => heavyReads.run("evidencePackage", { query, withheld }, budget);
        // A closure of any size: heavy work, which takes its turn (503 OVERLOADED beyond the queue).
        // The redaction rule as GraphQL applies it: clearances, the purpose the request states (X-Provgraph-Purpose), the purpose audit.
        // Batched as GraphQL's context batches them: a package's runs are looked up together (one
        // statement per kind of subject), not one lookup per run — 10,000 runs took 20 s one by one.
        const batched = tags.batchedTagsOf();
        const policyTagsOf = (subject: object) => batched(subject as PolicySubject);
        const purpose = purposeOf(request);
        const viewer = {
          principal: authorization.principal,
          purpose,
          policyTagsOf,
          tagPurposesOf: (asked: readonly string[]) => compliance.purposes.of(asked),
          noteTaggedRead: taggedReadNoter({ principal: authorization.principal, purpose, requestId: requestIdOf(request), policyTagsOf }, compliance.purposeAudit),
        };
        const viewed = () => evidenceAsViewed(viewer, build, compliance.signer);
        const pkg = await (heavyWork ? heavyWork.run(viewed) : viewed());
        const signature = format === "jws" ? pkg.signature : null;
        if (format === "jws" && !signature) throw new SigningNotConfiguredError();
        const text = signature?.jws ?? pkg.text;
        const body = request.method === "HEAD" ? null : text.length > TEXT_CHUNK_CHARS ? textInChunks(text, fetchAPI.ReadableStream) : text;
        endResponse(
          new fetchAPI.Response(body as BodyInit | null, {
            status: 200,
            headers: {
              ...(body !== null && typeof body !== "string" ? { "content-length": String(Buffer.byteLength(text)) } : {}),
              "content-type": signature ? "application/jose" : "application/json; charset=utf-8",
              ...(pkg.signature ? { "x-provgraph-signing-key": pkg.signature.keyId } : {}),
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
        const status = http?.status ?? STATUS_OF_CODE[error.code] ?? 400;
        logger.info({ requestId, route: EVIDENCE_PATH_PREFIX, code: error.code, message: error.message.slice(0, 200) }, "evidence request refused");
        endResponse(json(status, { code: error.code, message: error.message, ...error.details }, http?.headers ?? {}));
      }
    },
  };
}


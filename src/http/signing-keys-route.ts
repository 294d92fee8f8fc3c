import type { Plugin } from "graphql-yoga";
import type { DocumentSigner } from "../services/compliance";

/** Where the server's public signing keys are served. */
export const SIGNING_KEYS_PATH = "/api/v1/signing-keys";

/**
 * GET /api/v1/signing-keys: the public keys filed documents are signed with, as a JWK Set (RFC 7517,
 * Ed25519 keys per RFC 8037): the current key first, then the previous ones kept after a rotation;
 * each with its `kid` (the JWS header names it), `status` and its PEM (for openssl). Public keys are
 * public: no token needed. `?kid=<kid>&format=pem` answers that key's PEM alone.
 */
export function useSigningKeysRoute(signer: DocumentSigner): Plugin {
  return {
    onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== SIGNING_KEYS_PATH) return;
      if (request.method !== "GET" && request.method !== "HEAD") {
        endResponse(fetchAPI.Response.json({ error: { code: "METHOD_NOT_ALLOWED", message: `${SIGNING_KEYS_PATH} accepts GET only` } }, { status: 405, headers: { allow: "GET, HEAD" } }));
        return;
      }
      const keys = signer.publicKeys();
      const format = url.searchParams.get("format");
      const kid = url.searchParams.get("kid");
      if (format !== null && format !== "pem") {
        endResponse(fetchAPI.Response.json({ error: { code: "INVALID_ARGUMENT", message: `format: '${format.slice(0, 40)}' is not a format of a key: pem, or none for the JWK Set`, field: "format" } }, { status: 400 }));
        return;
      }
      if (format === "pem" && !kid) {
        endResponse(fetchAPI.Response.json({ error: { code: "INVALID_ARGUMENT", message: `format=pem answers one key: name it with kid=<kid> (the kids are listed at ${SIGNING_KEYS_PATH})`, field: "kid" } }, { status: 400 }));
        return;
      }
      if (format === "pem") {
        const key = keys.find((k) => k.kid === kid);
        if (!key) {
          endResponse(fetchAPI.Response.json({ error: { code: "NOT_FOUND", message: `no signing key ${JSON.stringify(kid)}: list them at ${SIGNING_KEYS_PATH}`, field: "kid" } }, { status: 404 }));
          return;
        }
        endResponse(new fetchAPI.Response(key.pem, { status: 200, headers: { "content-type": "application/x-pem-file" } }));
        return;
      }
      endResponse(new fetchAPI.Response(JSON.stringify({ keys }), { status: 200, headers: { "content-type": "application/jwk-set+json" } }));
    },
  };
}

#!/usr/bin/env node
// Verifies a document provgraph signed (an evidence package, an erasure plan) with nothing but the
// document's JWS and the server's public key: no server, no database, no dependency beyond Node.
//
//   node verify-signature.mjs <signed.jws> <public key> [--payload <out.json>]
//
// <signed.jws>: the JWS (EvidencePackage.signature.jws, ErasurePlan.signature.jws, or the body of
// GET /api/v1/evidence/<id>?format=jws). <public key>: a PEM file (GET /api/v1/signing-keys?kid=<kid>&format=pem)
// or the JWK Set (GET /api/v1/signing-keys). Prints what it found as JSON; exits 0 when the signature
// is valid, 1 when it is not, 2 on a usage error. --payload writes the signed document, byte for byte.
import crypto from "node:crypto";
import fs from "node:fs";

const [jwsFile, keyFile, ...rest] = process.argv.slice(2);
if (!jwsFile || !keyFile || (rest.length > 0 && (rest[0] !== "--payload" || !rest[1]))) {
  console.error("usage: node verify-signature.mjs <signed.jws> <public-key.pem | signing-keys.json> [--payload <out.json>]");
  process.exit(2);
}
const parts = fs.readFileSync(jwsFile, "utf8").trim().split(".");
if (parts.length !== 3) {
  console.error(`${jwsFile} is not a JWS in compact serialization (header.payload.signature)`);
  process.exit(2);
}
const [header, payload, signature] = parts;
const protectedHeader = JSON.parse(Buffer.from(header, "base64url").toString("utf8"));
const keyText = fs.readFileSync(keyFile, "utf8");
let key;
if (keyText.trimStart().startsWith("{")) {
  // A JWK Set: the key the header names.
  const jwk = JSON.parse(keyText).keys?.find((k) => k.kid === protectedHeader.kid);
  if (!jwk) {
    console.log(JSON.stringify({ valid: false, keyId: protectedHeader.kid ?? null, reason: "the key set has no key with this kid" }));
    process.exit(1);
  }
  key = crypto.createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
} else {
  key = crypto.createPublicKey(keyText);
}
const valid = protectedHeader.alg === "EdDSA" && crypto.verify(null, Buffer.from(`${header}.${payload}`, "ascii"), key, Buffer.from(signature, "base64url"));
const document = Buffer.from(payload, "base64url");
if (rest[0] === "--payload") fs.writeFileSync(rest[1], document);
console.log(
  JSON.stringify({
    valid,
    keyId: protectedHeader.kid ?? null,
    contentType: protectedHeader.cty ?? null,
    // sha256 of the signed document: an evidence package's `sha256`.
    sha256: crypto.createHash("sha256").update(document).digest("hex"),
    reason: valid ? null : protectedHeader.alg !== "EdDSA" ? `algorithm ${protectedHeader.alg} is not EdDSA` : "the signature does not match: altered, or signed by another key",
  }),
);
process.exit(valid ? 0 : 1);

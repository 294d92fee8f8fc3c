import crypto from "node:crypto";

/**
 * What the server signs with (docs: "Signatures and keys"): its current Ed25519 private key, and the
 * public keys of the keys it signed with before (kept after a rotation, so documents signed then
 * still verify). From configuration only (PROVGRAPH_SIGNING_KEY, PROVGRAPH_SIGNING_PREVIOUS_KEYS):
 * someone who can write to the database can neither sign nor add a key that verifies.
 */
export interface SigningKeys {
  current: crypto.KeyObject | null;
  previous: readonly crypto.KeyObject[];
}

/** A signed document: a JWS in compact serialization (RFC 7515) whose payload is the document's exact text. */
export interface DocumentSignature {
  algorithm: "EdDSA";
  /** The signing key's id: its JWK thumbprint (RFC 7638), as the key set lists it. */
  keyId: string;
  /** What the payload is (the JWS header's `cty`): provgraph-evidence/2, provgraph-erasure-plan/1. */
  contentType: string;
  /** `<header>.<payload>.<signature>`, each base64url: everything a verifier needs besides the public key. */
  jws: string;
}

/** A JWK of an Ed25519 public key (RFC 8037), as GET /api/v1/signing-keys lists it, with its PEM for openssl. */
export interface PublicSigningKey {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
  /** current: signs now; previous: signed before a rotation, kept for verification. */
  status: "current" | "previous";
  pem: string;
}

/** What a verification found: valid only when a known key's signature checks over the exact payload. */
export interface SignatureCheck {
  valid: boolean;
  keyId: string | null;
  contentType: string | null;
  /** Why it is not valid (null when it is). */
  reason: string | null;
  /** The signed text (null when the JWS cannot be read). */
  payload: string | null;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

/** RFC 7638 thumbprint of an Ed25519 public key: sha256 of its canonical JWK members, base64url. */
export function keyIdOf(key: crypto.KeyObject): string {
  const jwk = key.export({ format: "jwk" }) as { x: string };
  return b64url(crypto.createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${jwk.x}"}`).digest());
}

/**
 * Signs documents the server files (evidence packages, erasure plans) and checks signatures. Ed25519
 * signatures are deterministic: the same text signed by the same key gives the same JWS, so a
 * document is signed when it is served, not stored twice.
 */
export class DocumentSigner {
  private readonly current: { key: crypto.KeyObject; kid: string } | null;
  private readonly verifiers: Map<string, { key: crypto.KeyObject; status: "current" | "previous" }>;

  constructor(keys: SigningKeys) {
    const publicOf = (key: crypto.KeyObject) => (key.type === "private" ? crypto.createPublicKey(key) : key);
    this.current = keys.current ? { key: keys.current, kid: keyIdOf(publicOf(keys.current)) } : null;
    this.verifiers = new Map();
    if (keys.current) this.verifiers.set(this.current!.kid, { key: publicOf(keys.current), status: "current" });
    for (const key of keys.previous) {
      const kid = keyIdOf(key);
      if (!this.verifiers.has(kid)) this.verifiers.set(kid, { key, status: "previous" });
    }
  }

  /** Whether documents are signed (a signing key is configured). */
  get signs(): boolean {
    return this.current !== null;
  }

  /** The document's text signed (null without a signing key). */
  sign(text: string, contentType: string): DocumentSignature | null {
    if (!this.current) return null;
    const header = b64url(JSON.stringify({ alg: "EdDSA", kid: this.current.kid, cty: contentType }));
    const input = `${header}.${b64url(text)}`;
    const signature = crypto.sign(null, Buffer.from(input, "ascii"), this.current.key);
    return { algorithm: "EdDSA", keyId: this.current.kid, contentType, jws: `${input}.${b64url(signature)}` };
  }

  /** Checks a JWS against the keys this server signs or signed with. */
  verify(jws: string): SignatureCheck {
    const refused = (reason: string, partial: Partial<SignatureCheck> = {}): SignatureCheck => ({ valid: false, keyId: null, contentType: null, payload: null, ...partial, reason });
    const parts = jws.trim().split(".");
    if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return refused("not a JWS in compact serialization (three base64url parts)");
    let header: { alg?: unknown; kid?: unknown; cty?: unknown };
    try {
      header = JSON.parse(Buffer.from(parts[0], "base64url").toString("utf8"));
    } catch {
      return refused("its protected header is not JSON");
    }
    const payload = Buffer.from(parts[1], "base64url").toString("utf8");
    const known = { keyId: typeof header.kid === "string" ? header.kid : null, contentType: typeof header.cty === "string" ? header.cty : null, payload };
    if (header.alg !== "EdDSA") return refused(`its algorithm is ${JSON.stringify(header.alg)}; provgraph signs with EdDSA (Ed25519)`, known);
    const verifier = known.keyId === null ? undefined : this.verifiers.get(known.keyId);
    if (!verifier) return refused(`key ${JSON.stringify(known.keyId)} is not one this server signs or signed with`, known);
    const ok = crypto.verify(null, Buffer.from(`${parts[0]}.${parts[1]}`, "ascii"), verifier.key, Buffer.from(parts[2], "base64url"));
    return ok ? { valid: true, ...known, reason: null } : refused("the signature does not match the payload: the document was altered, or signed by another key", known);
  }

  /** The public keys, current first: what a verifier needs, and all it needs. */
  publicKeys(): PublicSigningKey[] {
    return [...this.verifiers.entries()]
      .sort(([, a], [, b]) => (a.status === b.status ? 0 : a.status === "current" ? -1 : 1))
      .map(([kid, { key, status }]) => {
        const jwk = key.export({ format: "jwk" }) as { x: string };
        return { kty: "OKP", crv: "Ed25519", x: jwk.x, kid, alg: "EdDSA", use: "sig", status, pem: String(key.export({ format: "pem", type: "spki" })) };
      });
  }
}

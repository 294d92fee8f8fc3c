import { InvalidContentHashError, quoted } from "./errors";

/**
 * The content hash format, `<algorithm>:<digest>`, shared by every way artifacts enter provgraph.
 * An artifact's id is derived from its hash, so one content must have one spelling: algorithm names
 * and hex digests are lower-cased; an ETag is opaque and kept as given.
 */
const HEX_DIGEST_LENGTHS: Record<string, readonly number[]> = {
  sha256: [64],
  sha512: [128],
  sha384: [96],
  sha1: [40],
  md5: [32],
  blake3: [64],
  git: [40, 64], // a Git object id: SHA-1 or SHA-256
};

const MAX_ETAG_LENGTH = 256;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const HEX = /^[0-9a-f]+$/;

export const CONTENT_HASH_FORMATS =
  "<algorithm>:<digest> — sha256:<64 hex digits>, sha512:<128>, sha384:<96>, sha1:<40>, md5:<32>, blake3:<64>, git:<40 or 64>, " +
  `or etag:<1–${MAX_ETAG_LENGTH} visible ASCII characters>`;

/**
 * The canonical spelling of a content hash, or an InvalidContentHashError naming `field` and what is
 * wrong (`field` may be given as a function: spelled out only for an error).
 */
export function canonicalContentHash(field: string | (() => string), value: string): string {
  const refuse = (reason: string): never => {
    throw new InvalidContentHashError(typeof field === "string" ? field : field(), value, reason, CONTENT_HASH_FORMATS);
  };
  const colon = value.indexOf(":");
  if (colon < 0) refuse("it has no '<algorithm>:' prefix");
  const algorithm = value.slice(0, colon).toLowerCase();
  const digest = value.slice(colon + 1);
  if (algorithm === "etag") {
    if (digest.length === 0 || digest.length > MAX_ETAG_LENGTH || !VISIBLE_ASCII.test(digest)) {
      refuse(`an etag is 1–${MAX_ETAG_LENGTH} visible ASCII characters (no spaces or control characters)`);
    }
    return `etag:${digest}`;
  }
  const lengths = HEX_DIGEST_LENGTHS[algorithm];
  if (!lengths) refuse(`${quoted(value.slice(0, colon), 20)} is not a supported algorithm`);
  const hex = digest.toLowerCase();
  const wanted = `a ${algorithm} digest is ${lengths.join(" or ")} hexadecimal digits (0-9, a-f)`;
  if (!HEX.test(hex)) refuse(`${wanted}; ${digest === "" ? "it is empty" : `${quoted(digest, 20)} is not hexadecimal`}`);
  if (!lengths.includes(hex.length)) refuse(`${wanted}, got ${hex.length}`);
  return `${algorithm}:${hex}`;
}

import fc from "fast-check";
import { canonicalContentHash } from "../../src/services/content-hash";
import { InvalidContentHashError } from "../../src/services/errors";
import { unsafeTextReason } from "../../src/services/safe-text";

const LENGTHS: [string, number][] = [
  ["sha256", 64],
  ["sha512", 128],
  ["sha384", 96],
  ["sha1", 40],
  ["md5", 32],
  ["blake3", 64],
  ["git", 40],
  ["git", 64],
];
const hexDigest = (length: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), minLength: length, maxLength: length });
const anyCase = (text: string) => fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(""));

describe("canonicalContentHash", () => {
  it("accepts every supported algorithm at its digest length, in any case, and spells it lower-case; the canonical form is a fixed point", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LENGTHS).chain(([algorithm, length]) => fc.tuple(anyCase(algorithm), hexDigest(length))),
        ([algorithm, digest]) => {
          const canonical = canonicalContentHash("h", `${algorithm}:${digest}`);
          expect(canonical).toBe(`${algorithm.toLowerCase()}:${digest.toLowerCase()}`);
          expect(canonicalContentHash("h", canonical)).toBe(canonical);
        },
      ),
    );
  });

  it("refuses a hex digest one digit too short or too long", () => {
    fc.assert(
      fc.property(fc.constantFrom(...LENGTHS), fc.constantFrom(-1, 1), ([algorithm, length], delta) => {
        const wrong = length + delta;
        // git accepts 40 and 64: 39/41/63/65 are all wrong
        expect(() => canonicalContentHash("h", `${algorithm}:${"a".repeat(wrong)}`)).toThrow(InvalidContentHashError);
      }),
    );
  });

  it("keeps an etag as given (it is opaque), and refuses anything but 1–256 visible ASCII characters", () => {
    expect(canonicalContentHash("h", 'ETag:"AbC-1"')).toBe('etag:"AbC-1"');
    expect(canonicalContentHash("h", `etag:${"x".repeat(256)}`)).toBe(`etag:${"x".repeat(256)}`);
    for (const bad of ["etag:", `etag:${"x".repeat(257)}`, "etag:a\tb", "etag:é"]) expect(() => canonicalContentHash("h", bad)).toThrow(InvalidContentHashError);
  });

  it("names the field and gives a reason and the expected formats", () => {
    try {
      canonicalContentHash("outputs[2].artifacts[0].contentHash", "sha256:" + "x".repeat(200));
      throw new Error("not refused");
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidContentHashError);
      const { code, details, message } = error as InvalidContentHashError;
      expect(code).toBe("INVALID_CONTENT_HASH");
      expect(details).toMatchObject({ field: "outputs[2].artifacts[0].contentHash", reason: expect.stringContaining("is not hexadecimal") });
      expect(message.length).toBeLessThan(500); // a long value is quoted shortened, never echoed whole
    }
  });
});

describe("unsafeTextReason", () => {
  it("passes well-formed text, emoji included, and refuses every C0/C1 control and every lone surrogate", () => {
    expect(unsafeTextReason("sample_001 🧪.csv")).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }), fc.integer({ min: 0xd800, max: 0xdfff })), fc.string(), (before, code, after) => {
        // a surrogate next to a partner would form a pair: keep the neighbours surrogate-free
        const clean = (s: string) => s.replace(/[\ud800-\udfff\u0000-\u001f\u007f-\u009f]/g, "");
        expect(unsafeTextReason(clean(before) + String.fromCharCode(code) + clean(after))).toContain(`U+${code.toString(16).toUpperCase().padStart(4, "0")}`);
      }),
    );
  });
});

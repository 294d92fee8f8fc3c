import { createHash } from "node:crypto";

/** A real content hash: `sha256:` and the 64 hex digits of the SHA-256 of `text`. */
export const sha256Of = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

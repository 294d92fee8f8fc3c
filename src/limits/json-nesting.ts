/**
 * How deep JSON text nests, read from its raw bytes before it is parsed (docs: "Limits and
 * budgets"). JSON.parse builds whatever it is given — a body of twelve million `[` becomes twelve
 * million arrays, seconds of the event loop and gigabytes — so bodies and messages are scanned
 * first and refused as soon as they pass the limit, having built nothing. Only brackets outside
 * strings count; a multi-byte UTF-8 character never contains a byte below 0x80, so scanning bytes
 * is exact. The scan runs chunk by chunk as a body arrives (push), stopping at the first byte past
 * the limit. Whether the text is valid JSON is left to the parser.
 */
export class JsonNestingGuard {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private exceeded = false;

  constructor(readonly maxDepth: number) {}

  /** Scans the next bytes; false once the text has nested deeper than maxDepth (nothing after matters). */
  push(bytes: Uint8Array): boolean {
    if (this.exceeded) return false;
    let { depth, inString, escaped } = this;
    const max = this.maxDepth;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (++depth > max) {
          this.exceeded = true;
          return false;
        }
      } else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && depth > 0) depth--;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return true;
  }
}

/** Whether JSON text (a query-string parameter, a WebSocket message) nests deeper than `maxDepth`; stops at the first level past it. */
export function jsonTextNestsDeeper(text: string | Uint8Array, maxDepth: number): boolean {
  const guard = new JsonNestingGuard(maxDepth);
  return !guard.push(typeof text === "string" ? Buffer.from(text, "utf8") : text);
}

/** The JSON characters a scan over raw text looks for (here and in src/http/raw-json-variables.ts). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

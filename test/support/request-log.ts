import { Writable } from "node:stream";
import pino from "pino";

/**
 * A logger at info whose lines a test reads back as objects (for "one log line, at info, no
 * stack" assertions). The event-loop watch's own warnings are left out: a busy machine delays the
 * loop, and that line is not the request's log.
 */
export function capturedLog(): { logger: pino.Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).trim().split("\n")) if (!line.includes('"msg":"event loop delayed"')) lines.push(JSON.parse(line));
        done();
      },
    }),
  );
  return { logger, lines };
}

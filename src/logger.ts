import pino from "pino";
import type { LogLevel } from "./config";

export type Logger = pino.Logger;

/** Structured JSON logs on stdout. Database URLs are masked before they reach a log line. */
export function createLogger(level: LogLevel): Logger {
  // Synchronous writes: the lines logged while shutting down must not be lost at process.exit().
  return pino(
    { level, base: { service: "provgraph" }, redact: ["req.headers.authorization", "*.token", "*.password"] },
    pino.destination({ dest: 1, sync: true }),
  );
}

import pino from "pino";
import type { LogLevel } from "./config";
import { maskSecrets } from "./secret-masking";

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stdout (or `destination`). Authorization headers and fields named
 * token/password/bootstrapToken are redacted; API tokens and URL passwords left anywhere else in a
 * line are masked before it is written.
 */
export function createLogger(level: LogLevel, destination: pino.DestinationStream = pino.destination({ dest: 1, sync: true })): Logger {
  // Synchronous writes (the default destination): the lines logged while shutting down must not be lost at process.exit().
  return pino(
    {
      level,
      base: { service: "provgraph" },
      redact: ["req.headers.authorization", "*.authorization", "*.token", "*.password", "*.bootstrapToken"],
      hooks: { streamWrite: maskSecrets },
    },
    destination,
  );
}

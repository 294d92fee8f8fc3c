/**
 * The exit codes of the `provgraph` command (docs/cli.md "Exit codes"): a script can tell "done, with
 * findings" from "could not run" and, among the latter, what to fix.
 */
export const ExitCode = {
  /** Done. */
  OK: 0,
  /** Done, with findings: events refused, evidence that does not verify, integrity violations, a restore refused. */
  FINDINGS: 1,
  /** The command line is wrong: an unknown command or option, a missing argument, a bad value. */
  USAGE: 2,
  /** The server cannot be reached or is unavailable (connection refused, unknown host, timeout, 503), or is no provgraph server. */
  UNREACHABLE: 3,
  /** The server refused the credentials: no token, a bad, revoked or expired one (401), or one without the scope (403). */
  AUTH: 4,
  /** An input file cannot be read or is not what the command takes (not JSON, not NDJSON, not an evidence document). */
  BAD_FILE: 5,
  /** The server refused the request itself, with a code (NOT_FOUND, INVALID_ID, …). */
  REFUSED: 6,
  /** The local database or file cannot be used: DATABASE_URL unreachable, a SQLite file in use, a backup target that exists. */
  LOCAL: 7,
  /** Anything unexpected: a fault of provgraph (the message and stack are printed; please report them). */
  INTERNAL: 70,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the command reports in one line (`provgraph: <message>`) and exits with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export const EXIT_CODES_HELP = `Exit codes:
  0  done
  1  done, with findings: events refused, evidence that does not verify, integrity violations, a restore refused
  2  usage: an unknown command or option, a missing argument, a bad value
  3  the server cannot be reached, is unavailable (503) or is not a provgraph server
  4  the server refused the credentials (401: no, bad, revoked or expired token; 403: missing scope)
  5  an input file cannot be read or is not what the command takes
  6  the server refused the request (NOT_FOUND, INVALID_ID, …)
  7  the local database or file cannot be used (DATABASE_URL, a SQLite file in use, an existing target)
  70 an unexpected failure (a fault of provgraph: please report it with the output)`;

import fs from "node:fs";
import path from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { maskSecrets } from "../secret-masking";
import { CliError, EXIT_CODES_HELP, ExitCode } from "./exit-codes";
import { type Output, processOutput } from "./output";

/**
 * The `provgraph` command (bin/provgraph.js runs the compiled form of this file). A thin shell: remote
 * commands speak the public API (--url, --token), local ones work on DATABASE_URL through the code the
 * server runs. Each command's module is loaded only when it runs, so `provgraph --help` and every
 * command start in a fraction of a second. Commands are listed in docs/cli.md.
 */
type Outcome = number | "running";

const DEFAULT_URL = "http://127.0.0.1:4000";

export function buildProgram(out: Output, finish: (outcome: Outcome) => void): Command {
  const program = new Command("provgraph")
    .description("provgraph: a provenance server and its command-line client")
    .version(packageVersion(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for the command")
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", `\nRemote commands talk to a server (--url, --token or PROVGRAPH_URL, PROVGRAPH_TOKEN); local ones work on DATABASE_URL.\n\n${EXIT_CODES_HELP}`)
    .configureOutput({ writeOut: (text) => process.stdout.write(text), writeErr: (text) => process.stderr.write(text) })
    .exitOverride();
  const act = async (action: () => Promise<Outcome> | Outcome) => finish(await action());
  // Commander calls an action with its arguments, then the options, then the command.
  const command = (name: string, description: string) => program.command(name).description(description).exitOverride().showHelpAfterError("(add --help for usage)");

  command("serve", "run the server (as npm start does); every setting is an environment variable")
    .option("--port <port>", "the port to listen on (PORT; default 4000)")
    .option("--host <host>", "the address to listen on (HOST; default 127.0.0.1)")
    .addHelpText("after", "\nSettings: docs/operating/configuration.md. Stops on SIGTERM or SIGINT after draining requests.")
    .action((options) => act(() => lazy<typeof import("./commands/serve")>("serve").serve(options)));

  command("migrate", "apply the pending migrations to DATABASE_URL and exit (what start-up does)").action(() => act(() => lazy<typeof import("./commands/migrate")>("migrate").migrate(out)));

  const token = command("token", "API tokens on DATABASE_URL: create, list, revoke, generate");
  token
    .command("create")
    .description("create a token: prints it on stdout, once (only its hash is stored)")
    .requiredOption("--name <name>", "what the token is for, e.g. ci")
    .addOption(new Option("--scope <scope...>", "read, write, admin, metrics, clearance:<TAG> or purpose:<NAME> (repeat, or comma-separated)").makeOptionMandatory())
    .option("--expires <when>", "a duration (30d, 12h, 90m) or an ISO date; default: never")
    .exitOverride()
    .action((options) => act(() => lazy<typeof import("./commands/token")>("token").token("create", { scopes: options.scope, name: options.name, expires: options.expires }, out)));
  token
    .command("list")
    .description("every token: id, name, scopes, status, created, by, last use, expiry")
    .exitOverride()
    .action(() => act(() => lazy<typeof import("./commands/token")>("token").token("list", {}, out)));
  token
    .command("revoke")
    .description("revoke a token by id (tok_…) or by name (one active token)")
    .argument("<token>", "a tok_… id or a token's name")
    .exitOverride()
    .action((target) => act(() => lazy<typeof import("./commands/token")>("token").token("revoke", { target }, out)));
  token
    .command("generate")
    .description("print a fresh token without storing it (for PROVGRAPH_BOOTSTRAP_TOKEN)")
    .exitOverride()
    .action(() => act(() => lazy<typeof import("./commands/token")>("token").generateToken(out)));

  remote(command("ingest", "send OpenLineage events (JSON objects, arrays or NDJSON files; - for stdin) and summarise what was stored"))
    .argument("<files...>", "files of events, directories of them (their .json, .ndjson and .jsonl files), or - for standard input")
    .option("--batch-size <n>", "events per request (1–10000)", integer(1, 10_000), 500)
    .option("--max-reasons <n>", "refusals listed in the summary", integer(0, 1_000_000), 50)
    .option("--json", "print the summary as JSON (every refusal)", false)
    .option("-q, --quiet", "no progress bar", false)
    .addHelpText("after", "\nExit 0 when every event was stored or was a duplicate, 1 when any was refused (with the reasons), 5 when a file cannot be read or is not JSON (nothing is sent).")
    .action((files, options) => act(() => lazy<typeof import("./commands/ingest")>("ingest").ingest(files, options, out)));

  remote(command("lineage", "the lineage of an artifact: what it came from (--up), what came from it (--down), or both"))
    .argument("<artifactId>", "an art_… id")
    .option("--up", "upstream: its ancestors (the default)")
    .option("--down", "downstream: its descendants")
    .option("--both", "both directions")
    .option("--depth <n>", "hops to follow (default: all)", integer(0, 1_000_000))
    .option("--first <n>", "most artifacts per direction (default 10000, at most 50000)", integer(1, 50_000))
    .addOption(new Option("--format <format>", "output format").choices(["table", "json", "dot", "prov-json"]).default("table"))
    .addHelpText("after", "\nExamples:\n  provgraph lineage art_… --down --depth 2\n  provgraph lineage art_… --both --format dot | dot -Tsvg > lineage.svg")
    .action((artifactId, options) => act(() => lazy<typeof import("./commands/lineage")>("lineage").lineage(artifactId, options, out)));

  remote(command("search", "find artifacts, datasets, columns, jobs, pipelines, runs and policy tags by name"))
    .argument("<text>", "what to look for")
    .option("--kind <kind...>", "only these kinds: artifact, dataset, column, job, pipeline, run, policy_tag")
    .option("--first <n>", "most hits", integer(1, 100), 20)
    .option("--json", "print the hits as JSON", false)
    .action((text, options) => act(() => lazy<typeof import("./commands/search")>("search").search(text, options, out)));

  remote(command("evidence", "the evidence package of an artifact (or a column), or --verify a filed one against the store"))
    .argument("[artifactId]", "an art_… id")
    .option("--field <column>", "the package of one column of that dataset version")
    .option("--as-of <instant>", "the store as it stood then (ISO date-time)")
    .option("-o, --out <file>", "write the package to a file (default: stdout)")
    .option("--verify <file>", "recompute a filed package from the store: exit 0 when identical, 1 otherwise")
    .addHelpText("after", "\nExit 0 when the package is provable (or --verify finds it identical), 1 when not.")
    .action((artifactId, options) => act(() => lazy<typeof import("./commands/evidence")>("evidence").evidence(artifactId, options, out)));

  remote(command("erasure-plan", "plan (and record) the erasure of a data subject: every artifact derived from its records"))
    .argument("<subjectKey>", "the subject's key, or - to read it from standard input (kept out of process lists)")
    .option("--k-threshold <k>", "the smallest group an aggregate may have to be argued non-personal (default 50)", integer(1, 1_000_000_000))
    .option("--json", "print the plan as JSON", false)
    .action((subjectKey, options) => act(() => lazy<typeof import("./commands/erasure-plan")>("erasure-plan").erasurePlan(subjectKey, options, out)));

  remote(command("integrity", "check the store against every invariant of provgraph's data (admin)"))
    .option("--local", "check DATABASE_URL directly, without a server (e.g. a stopped server's database)", false)
    .option("--sample <n>", "violations listed per invariant (0–100)", integer(0, 100))
    .option("--json", "print the report as JSON", false)
    .addHelpText("after", "\nExit 0 with no violation, 1 with any.")
    .action((options) => act(() => lazy<typeof import("./commands/integrity")>("integrity").integrity(options, out)));

  command("backup", "an online backup of the SQLite database on DATABASE_URL (the server may be running)")
    .argument("<file>", "the backup to write (must not exist)")
    .option("-q, --quiet", "no progress bar", false)
    .addHelpText("after", "\nPostgreSQL: use pg_dump (docs/operating/backups.md).")
    .action((file, options) => act(() => lazy<typeof import("./commands/backup")>("backup").backup(file, options, out)));

  command("restore", "make a backup the SQLite database on DATABASE_URL, checked first (the server must be stopped)")
    .argument("<file>", "a backup made by provgraph backup")
    .option("--force", "replace the database there (kept as <file>.before-restore-<time>)", false)
    .addHelpText("after", "\nThe backup is checked before it is put in place: SQLite's check, the migrations, then every invariant.\nExit 0 when restored, 1 when the backup breaks an invariant (nothing changes).")
    .action((file, options) => act(() => lazy<typeof import("./commands/restore")>("restore").restore(file, options, out)));

  return program;
}

/** Runs the command line and exits with its code (unless the command is the server, which keeps running). */
export async function main(argv: readonly string[] = process.argv, out: Output = processOutput): Promise<void> {
  let outcome: Outcome | undefined;
  const program = buildProgram(out, (result) => (outcome = result));
  try {
    await program.parseAsync([...argv]);
    // `provgraph` alone, or `provgraph token` alone: the help, as a usage error
    if (outcome === undefined) {
      const named = program.commands.find((c) => c.name() === argv[2]);
      (named ?? program).outputHelp({ error: true });
      outcome = ExitCode.USAGE;
    }
  } catch (error) {
    outcome = exitCodeOf(error, out);
  }
  if (outcome === "running") return;
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  process.exit(outcome);
}

function exitCodeOf(error: unknown, out: Output): number {
  if (error instanceof CommanderError) {
    // --help and --version end the parse "with an error" that is none (exit code 0); help shown for a missing command is a usage error
    return error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
  }
  if (error instanceof CliError) {
    out.stderr(maskSecrets(`provgraph: ${error.message}`));
    return error.exitCode;
  }
  const name = (error as Error)?.name;
  if (name === "ConfigError" || name === "DatabaseUnavailableError" || name === "SqliteFileInUseError") {
    out.stderr(maskSecrets(`provgraph: ${(error as Error).message}`));
    return name === "ConfigError" ? ExitCode.USAGE : ExitCode.LOCAL;
  }
  out.stderr(maskSecrets(`provgraph: unexpected failure (please report it): ${(error as Error)?.stack ?? String(error)}`));
  return ExitCode.INTERNAL;
}

/** Remote commands: where the server is and the token to use. */
function remote(command: Command): Command {
  return command
    .addOption(new Option("--url <url>", "the provgraph server").env("PROVGRAPH_URL").default(DEFAULT_URL))
    .addOption(new Option("--token <token>", "an API token (pgt_…); better given as PROVGRAPH_TOKEN, kept out of process lists").env("PROVGRAPH_TOKEN"));
}

function integer(min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return value;
  };
}

/** A command's module, loaded when the command runs. */
function lazy<T>(name: string): T {
  return require(`./commands/${name}`) as T;
}

function packageVersion(): string {
  let dir = __dirname;
  for (let i = 0; i < 5; i++, dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
  }
  return "unknown";
}

import fs from "node:fs";
import path from "node:path";
import { CliError, ExitCode } from "./exit-codes";

/** One OpenLineage event read from a file, and where it was (for the summary's reasons). */
export interface SourcedEvent {
  event: unknown;
  /** `file.json`, `file.json[3]` (an array's item) or `file.ndjson:12` (a line). */
  where: string;
}

/** The files a directory of events holds: what OpenLineage's file transport and exports write. */
const EVENT_FILE = /\.(json|ndjson|jsonl)$/i;

/**
 * The files the command's arguments name: a file as it is (`-` too), a directory as the `.json`, `.ndjson`
 * and `.jsonl` files below it (hidden ones left out), in the order of their paths. A directory that holds none
 * is refused, as a file that cannot be read is.
 */
export async function eventFilesOf(args: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const arg of args) {
    const stat = arg === "-" ? undefined : await fs.promises.stat(arg).catch(() => undefined);
    if (!stat?.isDirectory()) {
      files.push(arg);
      continue;
    }
    const found = (await filesBelow(arg)).filter((file) => EVENT_FILE.test(file)).sort();
    if (!found.length) throw new CliError(`${arg} is a directory that holds no .json, .ndjson or .jsonl file`, ExitCode.BAD_FILE);
    files.push(...found);
  }
  return files;
}

async function filesBelow(directory: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await fs.promises.readdir(directory, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await filesBelow(full)));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

/**
 * The events of one file (or `-`, standard input): a JSON object (one event), a JSON array of events,
 * or NDJSON (one event per line, blank lines skipped). A file that is none of these is refused whole,
 * before anything is sent, naming the line that is not JSON.
 */
export async function readEventFile(file: string): Promise<SourcedEvent[]> {
  const name = file === "-" ? "stdin" : file;
  let text: string;
  try {
    text = file === "-" ? await readStdin() : await fs.promises.readFile(file, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${name}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`, ExitCode.BAD_FILE);
  }
  if (text.trim() === "") throw new CliError(`${name} is empty: expected OpenLineage events (a JSON object, an array, or NDJSON)`, ExitCode.BAD_FILE);
  const whole = parse(text);
  if (whole.ok) {
    const value = whole.value;
    if (Array.isArray(value)) return value.map((event, i) => ({ event, where: `${name}[${i}]` }));
    if (value !== null && typeof value === "object") return [{ event: value, where: name }];
    throw new CliError(`${name} holds a JSON ${value === null ? "null" : typeof value}: expected an event (object), an array of events, or NDJSON`, ExitCode.BAD_FILE);
  }
  const events: SourcedEvent[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === "") continue;
    const line = parse(lines[i]);
    if (!line.ok) {
      // A file whose first line is no JSON value is a broken JSON document, not NDJSON: say why the document is not JSON.
      throw new CliError(events.length === 0 ? `${name} is not JSON: ${whole.reason}` : `${name}:${i + 1} is not JSON: ${line.reason}`, ExitCode.BAD_FILE);
    }
    events.push({ event: line.value, where: `${name}:${i + 1}` });
  }
  return events;
}

function parse(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

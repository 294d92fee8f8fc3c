import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { ensureBuilt } from "./build";

/**
 * The real `provgraph` command (bin/provgraph.js on the compiled dist/), as a user runs it: a process of
 * its own with only the environment given (PATH and HOME besides). Call ensureBuilt() first (beforeAll).
 */
const ROOT = path.join(__dirname, "..", "..");
export const PROVGRAPH_BIN = path.join(ROOT, "bin", "provgraph.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export { ensureBuilt };

export function runCli(args: readonly string[], env: Record<string, string> = {}, options: { stdin?: string; cwd?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PROVGRAPH_BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdin.end(options.stdin ?? "");
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface CliServer {
  child: ChildProcess;
  /** The base URL (http://127.0.0.1:<port>). */
  url: string;
  output(): string;
  stop(): Promise<number | null>;
}

/** `provgraph serve` on a free port; resolves once it listens (its info line says where: LOG_LEVEL is info). */
export async function startCliServer(env: Record<string, string>, timeoutMs = 60_000): Promise<CliServer> {
  const child = spawn(process.execPath, [PROVGRAPH_BIN, "serve", "--port", "0"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`provgraph serve did not listen:\n${output}`));
    }, timeoutMs);
    child.stdout!.on("data", () => {
      const match = /provgraph listening on (http:\/\/\S+?)\/graphql"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`provgraph serve exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

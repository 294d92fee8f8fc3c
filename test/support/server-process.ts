import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

/** provgraph as a real process (src/main.ts through tsx), for tests of start-up, signals and sockets. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

const ROOT = path.join(__dirname, "..", "..");

/** `nodeArgs`: options for node itself (e.g. V8's --trace-gc), before the script. */
export function spawnServer(env: Record<string, string>, nodeArgs: readonly string[] = []): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/**
 * Starts a server and waits for its "listening" log line. Through tsx, a start compiles the sources
 * first: on a busy 2-core machine that alone has taken over 30 s, so the default wait is generous
 * (a server that fails to start says so at once: its exit rejects).
 */
export async function startServer(env: Record<string, string>, timeoutMs = 120_000, nodeArgs: readonly string[] = []): Promise<ServerProcess> {
  const server = spawnServer(env, nodeArgs);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${server.output()}`)), timeoutMs);
    const check = () => {
      const match = /provgraph listening on (http:\/\/\S+?)"/.exec(server.output());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    server.child.stdout!.on("data", check);
    server.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${server.output()}`));
    });
  });
  return { ...server, url };
}

import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { ensureBuilt } from "./build";

/** provgraph as a real process (src/main.ts through tsx), for tests of start-up, signals and sockets. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

const ROOT = path.join(__dirname, "..", "..");

/**
 * `nodeArgs`: options for node itself (e.g. V8's --trace-gc), before the script. `built`: the compiled
 * server as `npm start` runs it (dist/src/main.js, rebuilt first when a source is newer; NODE_ENV and
 * MALLOC_ARENA_MAX as package.json's start script sets them), for figures of the product as shipped —
 * through tsx a server carries the compiler too (its memory, and its heavy-read thread's).
 */
export function spawnServer(env: Record<string, string>, nodeArgs: readonly string[] = [], built = false): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  if (built) ensureBuilt();
  const script = built ? [path.join("dist", "src", "main.js")] : ["--import", "tsx", "src/main.ts"];
  const child = spawn(process.execPath, [...nodeArgs, ...script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", ...(built ? { NODE_ENV: "production", MALLOC_ARENA_MAX: "2" } : {}), ...env },
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
export async function startServer(env: Record<string, string>, timeoutMs = 120_000, nodeArgs: readonly string[] = [], built = false): Promise<ServerProcess> {
  const server = spawnServer(env, nodeArgs, built);
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

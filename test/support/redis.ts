import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { freePort } from "./free-port";

/**
 * A Redis server for a test: TEST_REDIS_URL when set (.ci/run starts one and sets it), else a
 * redis-server of our own on a free loopback port (stopped by PID), when one is installed.
 * In CI (CI=true) a missing Redis is a failure, never a reason to skip.
 */
export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

export function redisAvailability(): { available: true } | { available: false; reason: string } {
  if (process.env.TEST_REDIS_URL || findRedisServer()) return { available: true };
  const reason = "needs Redis: set TEST_REDIS_URL=redis://127.0.0.1:<port>, or install redis-server (apt-get install redis-server)";
  if (process.env.CI) throw new Error(`CI=true and this test ${reason}; .ci/run provides it`);
  return { available: false, reason };
}

export async function startTestRedis(): Promise<TestRedis> {
  if (process.env.TEST_REDIS_URL) return { url: process.env.TEST_REDIS_URL, stop: async () => undefined };
  const binary = findRedisServer();
  if (!binary) throw new Error("redis-server is not installed and TEST_REDIS_URL is not set");
  const port = await freePort();
  // A password, so the tests see that it never reaches a log line.
  const password = randomBytes(12).toString("hex");
  const child: ChildProcess = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--requirepass", password, "--save", "", "--appendonly", "no", "--daemonize", "no"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    const check = (chunk: Buffer) => {
      output += chunk;
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    void exited.then(() => reject(new Error(`redis-server exited:\n${output}`)));
  });
  return {
    url: `redis://:${password}@127.0.0.1:${port}`,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "redis-server");
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}


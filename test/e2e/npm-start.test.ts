import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ensureBuilt } from "../support/build";
import { createTestDatabaseUrl } from "../support/test-database";

const ROOT = path.join(__dirname, "..", "..");

/** Every live descendant of a process, from /proc (Linux). */
function descendants(pid: number): { pid: number; cmdline: string }[] {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // the command name in field 2 may hold spaces and parentheses: read after the last ")"
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const found: { pid: number; cmdline: string }[] = [];
  const visit = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      let cmdline = "";
      try {
        cmdline = fs.readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").join(" ").trim();
      } catch {
        continue;
      }
      found.push({ pid: child, cmdline });
      visit(child);
    }
  };
  visit(pid);
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // an exited child its parent has not reaped yet is a zombie: gone for our purposes
  try {
    return !/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("npm start never compiles", () => {
  test("it runs the build npm ci made (prepare → build), with no pre-start step", () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(scripts.prestart).toBeUndefined();
    expect(scripts.start).toMatch(/\bnode dist\/src\/main\.js$/);
    expect(scripts.start).not.toMatch(/tsc|tsx|build/);
    expect(scripts.prepare).toBe("npm run -s prisma:generate && npm run -s build");
    expect(scripts.build).toBe("npm run -s build:server && npm run -s build:explorer");
  });
});

describe.each([
  // start runs the compiled server, dist/src/main.js (built by npm ci's prepare script; rebuilt here when a source is newer)
  { script: "start", args: ["start"] },
  // dev runs the sources through tsx, which runs node as its own child
  { script: "dev", args: ["run", "dev"] },
])("npm $script", ({ args }) => {
  let database: { url: string; drop: () => Promise<void> };
  let processes: { pid: number; cmdline: string }[] = [];

  beforeAll(async () => {
    ensureBuilt();
    database = await createTestDatabaseUrl();
  }, 900_000);
  afterAll(async () => {
    // never leave a server behind, even when an assertion failed
    for (const { pid } of processes) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    await database.drop();
  });

  test("SIGTERM to the npm process stops the server: every process it started exits, the port closes", async () => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), PORT: "0", DATABASE_URL: database.url, LOG_LEVEL: "info" };
    delete env.NODE_OPTIONS;
    const npm = spawn("npm", args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    npm.stdout.on("data", (chunk) => (output += chunk));
    npm.stderr.on("data", (chunk) => (output += chunk));
    const npmExited = new Promise<{ code: number | null; signal: string | null }>((resolve) => npm.on("exit", (code, signal) => resolve({ code, signal })));

    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm ${args.join(" ")} did not listen within 150 s:\n${output}`)), 150_000);
      npm.stdout.on("data", () => {
        const match = /provgraph listening on (http:\/\/\S+?)"/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      npmExited.then(({ code }) => {
        clearTimeout(timer);
        reject(new Error(`npm ${args.join(" ")} exited with ${code}:\n${output}`));
      });
    });
    const port = Number(new URL(url).port);
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: "ok" });

    processes = descendants(npm.pid!);
    // the server itself is among them
    expect(processes.filter(({ cmdline }) => /^\S*node .*(dist\/src\/main\.js|src\/main\.ts)$/.test(cmdline)).length).toBeGreaterThanOrEqual(1);

    npm.kill("SIGTERM");
    const exit = await npmExited;
    expect(processes.filter(({ pid }) => isAlive(pid))).toEqual([]);
    expect(await connects(port)).toBe(false);
    // npm reports the server's own exit: it drained and exited 0
    expect(exit).toEqual({ code: 0, signal: null });
    expect(output).toContain('"msg":"stopped"');
  }, 200_000);
});

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { ensureBuilt } from "../test/support/build";
import type { CpuPhaseTotals } from "../src/cpu-phases";

/**
 * provgraph as it runs in production (`npm start`: the compiled server, dist/src/main.js, plain
 * node), in a process of its own: its CPU time and memory are its own, read from /proc (Linux).
 */
export interface ServerProcess {
  url: string;
  pid: number;
  /** CPU ms (user + system) the server process has used so far. */
  cpuMs(): Promise<number>;
  /** Resident memory now and at its peak (VmRSS, VmHWM), MB. */
  memory(): Promise<{ rssMb: number; peakRssMb: number }>;
  /**
   * The server's CPU per phase since the last call (µs, and how often each phase was entered): only
   * for a server started with PROVGRAPH_CPU_PHASES=1 (src/cpu-phases.ts), which answers SIGUSR2 with them.
   */
  cpuPhases(): Promise<CpuPhaseTotals>;
  stop(): Promise<void>;
}

const ROOT = path.join(__dirname, "..");
const MAIN = path.join(ROOT, "dist", "src", "main.js");
const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Compiles the server (npm run build:server) when a source file is newer than the last build. */
export function ensureServerBuilt(log: (line: string) => void): void {
  ensureBuilt((line) => log(`bench: ${line}`));
}

export async function startServerProcess(env: { DATABASE_URL: string; DATABASE_READ_URL?: string; SQLITE_SYNCHRONOUS?: string; PROVGRAPH_CPU_PHASES?: string; WORKERS?: string }, options: { main?: string } = {}): Promise<ServerProcess> {
  // BENCH_SERVER_NODE_ARGS: node options for the server alone (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  // options.main: another build of the server to start instead (an A/B of two builds: copy dist/ to a
  // sibling folder, e.g. dist-before/, so that it finds the same node_modules, and pass its src/main.js).
  const child: ChildProcess = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []), options.main ?? MAIN], {
    cwd: ROOT,
    // As `npm start` sets them (package.json).
    env: { ...process.env, NODE_ENV: "production", MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`bench server exited (${code})`))));
  exited.catch(() => undefined);
  const lines = readline.createInterface({ input: child.stdout! });
  const phaseReports: ((totals: CpuPhaseTotals) => void)[] = [];
  const url = await Promise.race([
    new Promise<string>((resolve) =>
      lines.on("line", (line) => {
        try {
          const entry = JSON.parse(line) as { url?: string; msg?: string; level?: number; cpuPhases?: CpuPhaseTotals };
          if (entry.cpuPhases) phaseReports.shift()?.(entry.cpuPhases);
          if (entry.url && entry.msg?.startsWith("provgraph listening")) resolve(entry.url);
          // The server's own faults (error level and above) are shown: a benchmark must not hide them.
          if ((entry.level ?? 0) >= 50) console.error(`bench server: ${line}`);
        } catch {
          // not a log line
        }
      }),
    ),
    exited,
  ]);
  const proc = (file: string) => fs.readFileSync(`/proc/${child.pid}/${file}`, "utf8");
  return {
    url,
    pid: child.pid!,
    cpuMs: async () => {
      // /proc/<pid>/stat: fields 14 and 15 (utime, stime) after the parenthesised command name; with
      // WORKERS, the workers' (the server's child processes) too.
      const ticks = (pid: number) => {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(fields[11]) + Number(fields[12]);
      };
      const children = proc(`task/${child.pid}/children`).split(" ").filter(Boolean).map(Number);
      return ((ticks(child.pid!) + children.reduce((sum, pid) => sum + ticks(pid), 0)) / CLOCK_TICKS_PER_SECOND) * 1000;
    },
    memory: async () => {
      const status = proc("status");
      const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
      return { rssMb: kb("VmRSS") / 1024, peakRssMb: kb("VmHWM") / 1024 };
    },
    cpuPhases: () =>
      new Promise<CpuPhaseTotals>((resolve) => {
        phaseReports.push(resolve);
        child.kill("SIGUSR2");
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await gone;
    },
  };
}

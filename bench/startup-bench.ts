import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../test/support/free-port";

/**
 * How fast provgraph starts, as a user starts it: `npm start` (the compiled server; nothing is compiled
 * at start) from the spawn to the first 200 of GET /readyz on SQLite — on a new database (the
 * migrations applied) and on an existing one — and the `provgraph` command, from its spawn to its exit,
 * for `provgraph --help`. Medians of several runs (a figure, not a ratio: start-up has no raw baseline).
 */
export interface StartupBenchResult {
  runs: number;
  npmStartNewDatabaseMs: number;
  npmStartExistingDatabaseMs: number;
  /** The same through `provgraph serve` (no npm in between). */
  serveNewDatabaseMs: number;
  /** CPU (user + system) the server's processes used until that first 200, a new database: what start-up costs whatever the machine's load. */
  npmStartNewDatabaseCpuMs: number;
  npmStartExistingDatabaseCpuMs: number;
  serveNewDatabaseCpuMs: number;
  cliHelpMs: number;
  /** CPU (user + system) of one `provgraph --help`: the part that does not depend on the machine's load. */
  cliHelpCpuMs: number;
  loadAverage: number[];
}

const ROOT = path.join(__dirname, "..");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const TICK_MS = 1000 / 100; // USER_HZ: /proc reports CPU in 1/100 s on Linux

/** CPU ms (user + system) of a process and every process below it, read from /proc. */
function cpuOfTree(root: number): number {
  const stats = fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        // fields after the command's closing parenthesis: state ppid … utime(14) stime(15)
        const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
        return [{ pid: Number(pid), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }];
      } catch {
        return [];
      }
    });
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const stat of stats) {
      if (tree.has(stat.pid) || !tree.has(stat.ppid)) continue;
      tree.add(stat.pid);
      grew = true;
    }
  }
  return stats.filter((stat) => tree.has(stat.pid)).reduce((sum, stat) => sum + stat.ticks, 0) * TICK_MS;
}

async function timeToReady(command: string, args: string[], databaseFile: string): Promise<{ ms: number; cpuMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATABASE_URL: `file:${databaseFile}`, LOG_LEVEL: "warn", NODE_OPTIONS: "" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(" ")} exited with ${child.exitCode} before it was ready`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (response.status === 200) return { ms: performance.now() - started, cpuMs: cpuOfTree(child.pid!) };
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

export async function runStartupBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<StartupBenchResult> {
  const runs = options.quick ? 3 : Number(process.env.STARTUP_BENCH_RUNS ?? 5);
  fs.mkdirSync(options.dataDir, { recursive: true });
  const dir = fs.mkdtempSync(path.join(options.dataDir, "startup-"));
  try {
    const fresh: { ms: number; cpuMs: number }[] = [];
    const existing: { ms: number; cpuMs: number }[] = [];
    const serve: { ms: number; cpuMs: number }[] = [];
    const help: number[] = [];
    const helpCpu: number[] = [];
    const bin = path.join(ROOT, "bin", "provgraph.js");
    for (let i = 0; i < runs; i++) {
      const file = path.join(dir, `new-${i}.db`);
      fresh.push(await timeToReady("npm", ["start", "--silent"], file));
      existing.push(await timeToReady("npm", ["start", "--silent"], file));
      serve.push(await timeToReady(process.execPath, [bin, "serve"], path.join(dir, `serve-${i}.db`)));
      const from = performance.now();
      const answer = spawnSync(process.execPath, [bin, "--help"], { cwd: ROOT, encoding: "utf8" });
      help.push(performance.now() - from);
      if (answer.status !== 0) throw new Error(`provgraph --help exited with ${answer.status}: ${answer.stderr}`);
      helpCpu.push(cpuOfChild(bin));
      options.log(`startup: run ${i + 1}/${runs}: npm start new db ${fresh[i].ms.toFixed(0)} ms (CPU ${fresh[i].cpuMs.toFixed(0)}), existing ${existing[i].ms.toFixed(0)} ms (CPU ${existing[i].cpuMs.toFixed(0)}), provgraph serve ${serve[i].ms.toFixed(0)} ms (CPU ${serve[i].cpuMs.toFixed(0)}), --help ${help[i].toFixed(0)} ms (CPU ${helpCpu[i].toFixed(0)}), load ${os.loadavg()[0].toFixed(1)}`);
    }
    return {
      runs,
      npmStartNewDatabaseMs: median(fresh.map((run) => run.ms)),
      npmStartExistingDatabaseMs: median(existing.map((run) => run.ms)),
      serveNewDatabaseMs: median(serve.map((run) => run.ms)),
      npmStartNewDatabaseCpuMs: median(fresh.map((run) => run.cpuMs)),
      npmStartExistingDatabaseCpuMs: median(existing.map((run) => run.cpuMs)),
      serveNewDatabaseCpuMs: median(serve.map((run) => run.cpuMs)),
      cliHelpMs: median(help),
      cliHelpCpuMs: median(helpCpu),
      loadAverage: os.loadavg().map((load) => Math.round(load * 100) / 100),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU ms (user + system) of one `provgraph --help`, as bash's `time` reports the child's own usage. */
function cpuOfChild(bin: string): number {
  const answer = spawnSync("bash", ["-c", `TIMEFORMAT='%U %S'; { time "${process.execPath}" "${bin}" --help >/dev/null; } 2>&1`], { cwd: ROOT, encoding: "utf8" });
  const [user, system] = answer.stdout.trim().split(/\s+/).map(Number);
  return (user + system) * 1000;
}

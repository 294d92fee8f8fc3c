#!/usr/bin/env node
// Where start-up goes: runs the built server (`node --cpu-prof dist/src/main.js`) on a new SQLite database
// (or, with --existing, on one it has started on before), stops it by its PID as soon as GET /readyz answers
// 200, and summarises the V8 CPU profile up to that moment: self time by package / source file, inclusive
// time of the module loads (require) by package, and the heaviest functions by inclusive time.
//
//   npm run build && node scripts/profile-startup.mjs [--existing] [--port 47100] [--top 40] [--keep DIR]
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const port = Number(option("--port", 47100));
const top = Number(option("--top", 30));
const existing = args.includes("--existing");
// V8 or Node flags to try (e.g. --node-flags "--single-threaded-gc"), given before the script
const nodeFlags = (option("--node-flags", "") ?? "").split(" ").filter(Boolean);
const INTERVAL_US = 500;
const dir = option("--keep", fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-startup-profile-")));
fs.mkdirSync(dir, { recursive: true });
const databaseFile = path.join(dir, "startup.db");

async function startOnce(profile) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeFlags, ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${INTERVAL_US}`] : []), "dist/src/main.js"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), DATABASE_URL: `file:${databaseFile}`, LOG_LEVEL: "warn", NODE_OPTIONS: "" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let readyAt;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (response.status === 200) {
        readyAt = process.hrtime.bigint();
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const cpu = cpuOf(child.pid);
  const threads = threadsOf(child.pid);
  process.kill(child.pid, "SIGTERM");
  await exited;
  return { wallMs: Number(readyAt - started) / 1e6, cpuMs: cpu, threads, readyAtUs: Number(readyAt / 1000n) };
}

function cpuOf(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms by thread name (V8's compiler and GC helpers, libuv's pool, worker threads), from /proc. */
function threadsOf(pid) {
  const byName = new Map();
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.split(") ")[1].split(" ");
      const key = Number(task) === pid ? "main thread" : `${name}#${task}`;
      byName.set(key, (byName.get(key) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // the thread ended
    }
  }
  return byName;
}

if (existing) await startOnce(false); // the database exists and is current before the profiled start
if (args.includes("--no-profile")) {
  // only the figures: wall, CPU and CPU by thread, without the profiler's own cost
  for (let i = 0; i < Number(option("--runs", 3)); i++) {
    fs.rmSync(databaseFile, { force: true });
    if (existing) await startOnce(false);
    const run = await startOnce(false);
    console.log(`start to first /readyz 200: ${run.wallMs.toFixed(0)} ms wall, ${run.cpuMs} ms CPU (${[...run.threads].sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${ms}`).join(", ")}), load ${os.loadavg()[0].toFixed(1)}`);
  }
  if (!args.includes("--keep")) fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
const run = await startOnce(true);
// the main thread's profile (a worker thread writes its own, numbered after it)
const file = fs.readdirSync(dir).filter((name) => name.endsWith(".cpuprofile")).sort((a, b) => Number(a.split(".")[3]) - Number(b.split(".")[3]))[0];
const threads = fs.readdirSync(dir).filter((name) => name.endsWith(".cpuprofile")).length;
const profile = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
console.log(`start to first /readyz 200: ${run.wallMs.toFixed(0)} ms wall, ${run.cpuMs} ms CPU, load ${os.loadavg()[0].toFixed(1)}; profile ${path.join(dir, file)} (${threads} thread profile(s))`);

// Samples up to the ready moment (V8's profile clock and hrtime are both the monotonic clock, in µs).
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
// Each sample counts as one sampling interval: under load the time between samples is mostly time the
// thread waited for a core, so sample counts (not their deltas) are what approximates CPU.
const selfUs = new Map();
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i];
  if (at > run.readyAtUs) break;
  if (nodes.get(profile.samples[i]).callFrame.functionName === "(idle)") continue;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + INTERVAL_US);
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
console.log(`CPU by thread: ${[...run.threads].sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${ms} ms`).join(", ")}`);
console.log(`main thread samples to ready: ${(total / 1000).toFixed(0)} ms at one sample per ${INTERVAL_US} µs (idle excluded)`);

const where = (url) => {
  if (!url) return "(native/V8)";
  const file = url.replace(/^file:\/\//, "");
  const modules = file.lastIndexOf("node_modules/");
  if (modules !== -1) {
    const rest = file.slice(modules + "node_modules/".length).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (file.startsWith("node:")) return "node: internals";
  return path.relative(ROOT, file);
};
const packageOf = (url) => {
  const name = where(url);
  return name.startsWith("dist/") ? "provgraph (dist/)" : name;
};
const bump = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${(us / 1000).toFixed(0).padStart(6)} ms  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
};

const selfByPackage = new Map();
const selfByFile = new Map();
const selfByFunction = new Map();
const inclusiveByFunction = new Map();
const requireByPackage = new Map(); // a module's top-level code (the frame named "" at a file) and all it calls, attributed to the outermost such frame's package below a provgraph frame
for (const [id, us] of selfUs) {
  const node = nodes.get(id);
  const frame = node.callFrame;
  bump(selfByPackage, frame.functionName.startsWith("(") ? frame.functionName : packageOf(frame.url), us);
  bump(selfByFile, frame.url ? where(frame.url) : frame.functionName || "(anonymous native)", us);
  bump(selfByFunction, `${frame.functionName || "(anonymous)"} ${where(frame.url)}:${frame.lineNumber + 1}`, us);
  const seen = new Set();
  let loadedBy;
  for (let cursor = id; cursor !== undefined; cursor = parent.get(cursor)) {
    const f = nodes.get(cursor).callFrame;
    const key = `${f.functionName || "(anonymous)"} ${where(f.url)}:${f.lineNumber + 1}`;
    if (!seen.has(key)) {
      seen.add(key);
      bump(inclusiveByFunction, key, us);
    }
    // the outermost module evaluation (top-level code of a file outside provgraph's own) on this stack
    if (f.functionName === "" && f.lineNumber === 0 && f.url && !packageOf(f.url).startsWith("provgraph") && !f.url.startsWith("node:")) loadedBy = packageOf(f.url);
  }
  if (loadedBy) bump(requireByPackage, loadedBy, us);
}
print("self time by package (or V8 category)", selfByPackage);
print("module evaluation by package (outermost top-level frame of a dependency, inclusive)", requireByPackage);
print("module evaluation by file (top-level code and all it requires, inclusive)", new Map([...inclusiveByFunction].filter(([key]) => /^\(anonymous\) .*:1$/.test(key) && !key.includes("node: internals")).map(([key, us]) => [key.slice("(anonymous) ".length, -2), us])));
print("self time by file", selfByFile);
print("inclusive time by function", inclusiveByFunction);
print("self time by function", selfByFunction);
if (!args.includes("--keep")) fs.rmSync(dir, { recursive: true, force: true });

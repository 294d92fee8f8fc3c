import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * The compiled server (dist/, what `npm start` and the `provgraph` command run), rebuilt when a
 * source is newer than the last build: `npm ci` builds it (the prepare script), and tests and
 * benchmarks that run the real thing call this first, so an edit is never tested against an old build.
 * Several jest workers may ask at once: one builds (it holds a lock folder), the others wait for it.
 */
const ROOT = path.join(__dirname, "..", "..");
/** Written last by `npm run build:server`: its time is the build's. */
const BUILT_MARKER = path.join(ROOT, "dist", "src", "openlineage", "openlineage-validators.generated.js");
const LOCK = path.join(ROOT, "dist", ".build-lock");
const SOURCES = ["src", "plugins", "bin", "tsconfig.json", "tsconfig.build.json", "package.json", "scripts/build-openlineage-validators.mjs", "scripts/copy-graphiql-assets.mjs", "scripts/build-query-compilers.mjs"];

function newestSource(entry: string): number {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(entry).reduce((latest, name) => Math.max(latest, newestSource(path.join(entry, name))), 0);
}

function isFresh(): boolean {
  if (!fs.existsSync(BUILT_MARKER)) return false;
  const built = fs.statSync(BUILT_MARKER).mtimeMs;
  return SOURCES.every((source) => newestSource(path.join(ROOT, source)) <= built);
}

export function ensureBuilt(log: (line: string) => void = () => undefined): void {
  for (;;) {
    if (isFresh()) return;
    fs.mkdirSync(path.dirname(LOCK), { recursive: true });
    try {
      fs.mkdirSync(LOCK);
    } catch {
      // another process builds: wait for it (a lock older than 5 minutes is a build that died)
      if (Date.now() - fs.statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 300_000) fs.rmSync(LOCK, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
      continue;
    }
    try {
      log("compiling the server (npm run build:server) …");
      execFileSync("npm", ["run", "-s", "build:server"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
      return;
    } finally {
      fs.rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

/**
 * The built page the server serves (dist/explorer), built first when it is missing or older than its
 * sources — so the browser tests always drive what the source says, with or without `npm run build`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../../..");
export const BUILT = path.join(ROOT, "dist/explorer");
const SOURCES = ["explorer/src", "explorer/index.html", "explorer/vite.config.mts", "explorer/scripts/codegen.ts", "schema.graphql"].map((p) => path.join(ROOT, p));

function newestMtime(target: string): number {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target)) {
    // The generated client is an output of the build, not a source of it.
    if (entry === "generated.ts") continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}

export function ensureExplorerBuilt(): void {
  const index = path.join(BUILT, "index.html");
  const built = fs.existsSync(index) ? fs.statSync(index).mtimeMs : 0;
  if (built > Math.max(...SOURCES.map(newestMtime))) return;
  execFileSync("npm", ["run", "-s", "build:explorer"], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], timeout: 900_000 });
}

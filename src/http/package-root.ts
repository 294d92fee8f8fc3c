import fs from "node:fs";
import path from "node:path";

/**
 * The folder holding provgraph's package.json, found by walking up from this file: the same from src/
 * (tsx, jest) and from dist/src/ (npm start), so built assets are found under <root>/dist/ either way.
 */
export function packageRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
}

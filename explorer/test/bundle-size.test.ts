import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { BUILT, ensureExplorerBuilt } from "./support/build";

/**
 * What the browser loads before the page can draw: the scripts and styles index.html names (and the
 * module preloads it asks for). At most 500 KB gzipped; the layout engine (ELK) is not among them.
 */
const LIMIT = 500 * 1024;

describe("the Explorer's built assets", () => {
  beforeAll(() => ensureExplorerBuilt(), 400_000);

  const initialFiles = () => {
    const html = fs.readFileSync(path.join(BUILT, "index.html"), "utf8");
    const referenced = [...html.matchAll(/(?:src|href)="(\/explorer\/assets\/[^"]+)"/g)].map((m) => m[1]);
    // A module's static imports load with it: follow them.
    const files = new Set<string>();
    const visit = (url: string) => {
      if (files.has(url)) return;
      files.add(url);
      if (!url.endsWith(".js")) return;
      const code = fs.readFileSync(path.join(BUILT, url.replace(/^\/explorer\//, "")), "utf8");
      for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[^'"()]*?from\s*)?["'](\.\/[^"']+\.js)["']/g)) visit(path.posix.join(path.posix.dirname(url), m[1]));
    };
    referenced.forEach(visit);
    return [...files];
  };

  test("initial JavaScript and CSS are at most 500 KB gzipped, and the layout engine loads separately", () => {
    const files = initialFiles();
    const gzipped = files.map((f) => zlib.gzipSync(fs.readFileSync(path.join(BUILT, f.replace(/^\/explorer\//, ""))), { level: 9 }).length);
    const total = gzipped.reduce((a, b) => a + b, 0);
    expect(files.some((f) => f.endsWith(".js"))).toBe(true);
    expect(total).toBeLessThanOrEqual(LIMIT);
    // By each file's name without its content hash, which is random letters: `index-BQNELkgq.js` holds "ELk".
    const named = (f: string) => path.posix.basename(f).replace(/-[A-Za-z0-9_-]{8}\.(?:js|css)$/, "");
    expect(files.filter((f) => /elk/i.test(named(f)))).toEqual([]);
    const assets = fs.readdirSync(path.join(BUILT, "assets"));
    expect(assets.some((f) => /^elk\.worker-.*\.js$/.test(f))).toBe(true);
    console.log(`initial assets: ${files.length} files, ${(total / 1024).toFixed(1)} KB gzipped (limit ${LIMIT / 1024} KB)`);
  });

  test("index.html loads nothing from another origin and holds no inline script", () => {
    const html = fs.readFileSync(path.join(BUILT, "index.html"), "utf8");
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(script[1]).toMatch(/src="/);
      expect(script[2].trim()).toBe("");
    }
  });
});

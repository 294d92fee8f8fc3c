import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { GraphiQLOptions, Plugin } from "graphql-yoga";

/**
 * GraphiQL served by provgraph itself. Yoga's own page loads its scripts, styles and editor
 * workers from unpkg, so a machine without internet shows "Loading…" forever; the same bundle
 * ships in @graphql-yoga/graphiql, and we serve its files under a versioned path. The build copies
 * them into dist/graphiql/ (scripts/copy-graphiql-assets.mjs): an installed provgraph has only that
 * copy, because @graphql-yoga/graphiql is a build-time dependency; a checkout not built yet (jest on
 * src/) reads the package itself.
 */
const { dir: DIST, packageJson: PACKAGE_JSON } = bundle();
const VERSION: string = JSON.parse(fs.readFileSync(PACKAGE_JSON, "utf8")).version;

/** `<package root>/dist/graphiql` when the build made it (the package root: the first folder up with a package.json), else the package. */
function bundle(): { dir: string; packageJson: string } {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (!fs.existsSync(path.join(dir, "package.json"))) continue;
    const copy = path.join(dir, "dist", "graphiql");
    if (fs.existsSync(path.join(copy, "package.json"))) return { dir: copy, packageJson: path.join(copy, "package.json") };
    break;
  }
  const packageJson = require.resolve("@graphql-yoga/graphiql/package.json");
  return { dir: path.join(path.dirname(packageJson), "dist"), packageJson };
}

/** Where the assets live; versioned, so a browser may cache them for good. */
export const GRAPHIQL_ASSETS_PATH = `/graphiql/${VERSION}/`;

const JAVASCRIPT = "text/javascript; charset=utf-8";
const ASSETS: Readonly<Record<string, string>> = {
  "yoga-graphiql.umd.js": JAVASCRIPT,
  "graphiql.css": "text/css; charset=utf-8",
  "monacoeditorwork/editor.worker.bundle.js": JAVASCRIPT,
  "monacoeditorwork/json.worker.bundle.js": JAVASCRIPT,
  // sic: the package names it with two dots
  "monacoeditorwork/graphql.worker..bundle.js": JAVASCRIPT,
};

/** Monaco asks for a worker by label; these are the labels Yoga's page maps. */
const WORKERS: Readonly<Record<string, string>> = {
  editorWorkerService: "monacoeditorwork/editor.worker.bundle.js",
  json: "monacoeditorwork/json.worker.bundle.js",
  graphql: "monacoeditorwork/graphql.worker..bundle.js",
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script>: no "</script>" or "<!--" can end it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/** The GraphiQL page (Yoga's `renderGraphiQL`), referencing only provgraph's own URLs. */
export function renderLocalGraphiQL(options: GraphiQLOptions = {}): string {
  const title = escapeHtml(options.title ?? "GraphiQL");
  const workers = Object.fromEntries(Object.entries(WORKERS).map(([label, file]) => [label, GRAPHIQL_ASSETS_PATH + file]));
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${title}</title>`,
    // an empty icon: no request for one, and none to a CDN
    '<link rel="icon" href="data:,">',
    `<link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}graphiql.css">`,
    '</head><body id="body" class="no-focus-outline">',
    `<noscript>You need to enable JavaScript to run GraphiQL.</noscript><div id="root">Loading ${title}…</div>`,
    // same-origin workers need no blob: URLs (Yoga's page fetches cross-origin ones into blobs)
    `<script>const workers=${scriptJson(workers)};self.MonacoEnvironment={globalAPI:false,getWorkerUrl:(_moduleId,label)=>workers[label]};</script>`,
    `<script src="${GRAPHIQL_ASSETS_PATH}yoga-graphiql.umd.js"></script>`,
    `<script>YogaGraphiQL.renderYogaGraphiQL(document.getElementById("root"),${scriptJson(options)});</script>`,
    "</body></html>",
  ].join("\n");
}

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  gzipped: Uint8Array<ArrayBuffer>;
}

const gzip = promisify(zlib.gzip);
const loaded = new Map<string, Promise<Asset>>();

/** Read and compressed once, on first request: GraphiQL is a developer tool, most servers never load it. */
function loadAsset(file: string): Promise<Asset> {
  let asset = loaded.get(file);
  if (!asset) {
    asset = fs.promises.readFile(path.join(DIST, file)).then(async (body) => ({ body: new Uint8Array(body), gzipped: new Uint8Array(await gzip(body)) }));
    asset.catch(() => loaded.delete(file));
    loaded.set(file, asset);
  }
  return asset;
}

/** GET/HEAD /graphiql/<version>/<file>: the bundle's files, with long-lived caching. */
export function useGraphiQLAssets(): Plugin {
  const etag = `"graphiql-${VERSION}"`;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith("/graphiql/")) return;
      const file = url.pathname.startsWith(GRAPHIQL_ASSETS_PATH) ? url.pathname.slice(GRAPHIQL_ASSETS_PATH.length) : "";
      const contentType = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      if (!contentType || (request.method !== "GET" && request.method !== "HEAD")) {
        endResponse(new fetchAPI.Response("not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } }));
        return;
      }
      const headers: Record<string, string> = {
        "content-type": contentType,
        "cache-control": "public, max-age=31536000, immutable",
        etag,
        vary: "accept-encoding",
        "x-content-type-options": "nosniff",
      };
      if (request.headers.get("if-none-match") === etag) {
        endResponse(new fetchAPI.Response(null, { status: 304, headers }));
        return;
      }
      const asset = await loadAsset(file);
      const gzipped = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
      const body = gzipped ? asset.gzipped : asset.body;
      if (gzipped) headers["content-encoding"] = "gzip";
      headers["content-length"] = String(body.length);
      endResponse(new fetchAPI.Response(request.method === "HEAD" ? null : body, { status: 200, headers }));
    },
  };
}

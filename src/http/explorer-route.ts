import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { Plugin } from "graphql-yoga";
import { packageRoot } from "./package-root";

/**
 * The Explorer (the web page in explorer/), served by provgraph itself from <package root>/dist/explorer
 * (`npm run build:explorer` writes it): `/` leads to `/explorer/`; `/explorer/assets/*` are the hashed
 * bundle files, cached for good; any other `/explorer/...` path is one of the page's own routes and gets
 * index.html, never cached, with a Content-Security-Policy that lets it load only this server's files and
 * talk only to this server (GraphQL over HTTP and over WebSocket on the same origin).
 */
export const EXPLORER_PATH = "/explorer";
const ASSETS_PREFIX = `${EXPLORER_PATH}/assets/`;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
};

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** No inline script, no other origin: scripts, styles, workers and requests from this server only. */
export function contentSecurityPolicy(host: string | null): string {
  const sockets = host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? ` ws://${host} wss://${host}` : "";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${sockets}`,
    "worker-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  gzipped: Uint8Array<ArrayBuffer>;
  mtimeMs: number;
}

const gzip = promisify(zlib.gzip);

export interface ExplorerRouteOptions {
  /** Where the built page is (default <package root>/dist/explorer). */
  directory?: string;
}

export function useExplorer(options: ExplorerRouteOptions = {}): Plugin {
  const directory = options.directory ?? path.join(packageRoot(), "dist", "explorer");
  const cache = new Map<string, Promise<Asset>>();

  // Assets are hashed (their content never changes under one name); index.html is reread when rebuilt.
  const load = async (file: string): Promise<Asset | undefined> => {
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(file);
    } catch {
      return undefined;
    }
    if (!stat.isFile()) return undefined;
    const cached = cache.get(file);
    if (cached) {
      const asset = await cached;
      if (asset.mtimeMs === stat.mtimeMs) return asset;
    }
    const loading = fs.promises.readFile(file).then(async (body) => ({ body: new Uint8Array(body), gzipped: new Uint8Array(await gzip(body)), mtimeMs: stat.mtimeMs }));
    loading.catch(() => cache.delete(file));
    cache.set(file, loading);
    return loading;
  };

  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const pathname = url.pathname;
      if (pathname !== "/" && pathname !== EXPLORER_PATH && !pathname.startsWith(`${EXPLORER_PATH}/`)) return;
      const respond = (status: number, body: Uint8Array<ArrayBuffer> | string | null, headers: Record<string, string>) =>
        endResponse(new fetchAPI.Response(request.method === "HEAD" ? null : body, { status, headers: { ...SECURITY_HEADERS, ...headers } }));
      if (request.method !== "GET" && request.method !== "HEAD") {
        respond(405, "method not allowed", { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" });
        return;
      }
      if (pathname === "/" || pathname === EXPLORER_PATH) {
        respond(302, null, { location: `${EXPLORER_PATH}/${pathname === EXPLORER_PATH ? url.search : ""}`, "cache-control": "no-cache" });
        return;
      }
      const gzipOk = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
      const send = (asset: Asset, headers: Record<string, string>) => {
        const body = gzipOk ? asset.gzipped : asset.body;
        respond(200, body, { ...headers, vary: "accept-encoding", "content-length": String(body.length), ...(gzipOk ? { "content-encoding": "gzip" } : {}) });
      };

      if (pathname.startsWith(ASSETS_PREFIX)) {
        const name = pathname.slice(ASSETS_PREFIX.length);
        const contentType = CONTENT_TYPES[path.extname(name)];
        // One file name, as the build writes them: no folders, no dots before the extension's but the hash's.
        const asset = /^[A-Za-z0-9_.-]+$/.test(name) && !name.startsWith(".") && contentType ? await load(path.join(directory, "assets", name)) : undefined;
        if (!asset) {
          respond(404, "not found", { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" });
          return;
        }
        const etag = `"${name}"`;
        const headers = { "content-type": contentType, "cache-control": "public, max-age=31536000, immutable", etag };
        if (request.headers.get("if-none-match") === etag) respond(304, null, headers);
        else send(asset, headers);
        return;
      }

      const page = await load(path.join(directory, "index.html"));
      const pageHeaders = { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "content-security-policy": contentSecurityPolicy(request.headers.get("host")) };
      if (!page) {
        respond(503, notBuiltPage(directory), pageHeaders);
        return;
      }
      send(page, pageHeaders);
    },
  };
}

/** What a server started from a checkout that was never built shows instead of the page. */
function notBuiltPage(directory: string): string {
  const escaped = directory.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><title>provgraph Explorer: not built</title></head>',
    "<body>",
    "<h1>The Explorer is not built</h1>",
    `<p>provgraph serves its web page from <code>${escaped}</code>, which holds no <code>index.html</code>.</p>`,
    "<p>Build it once in provgraph's folder with <code>npm run build</code> (an install with <code>npm ci</code> does it too), then reload this page.</p>",
    '<p>The GraphQL API works without it, at <a href="/graphql">/graphql</a>.</p>',
    "</body></html>",
  ].join("\n");
}

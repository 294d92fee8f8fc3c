import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSchema, createYoga } from "graphql-yoga";
import { contentSecurityPolicy, useExplorer } from "../../src/http/explorer-route";
import { packageRoot } from "../../src/http/package-root";
import { createTestApp, type TestApp } from "../../test/support/test-app";

/** How provgraph serves the Explorer: redirects, caching, the Content-Security-Policy, a page when unbuilt. */
describe("serving the Explorer", () => {
  let dir: string;
  const yogaOver = (directory: string) =>
    createYoga({ schema: createSchema({ typeDefs: "type Query { ok: Boolean }" }), plugins: [useExplorer({ directory })], logging: false });
  const get = (yoga: ReturnType<typeof yogaOver>, pathname: string, headers: Record<string, string> = {}, method = "GET") =>
    yoga.fetch(`http://127.0.0.1:4000${pathname}`, { method, headers: { host: "127.0.0.1:4000", ...headers } });

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-explorer-route-"));
    fs.mkdirSync(path.join(dir, "assets"));
    fs.writeFileSync(path.join(dir, "index.html"), '<!doctype html><script type="module" src="/explorer/assets/index-abc123.js"></script>');
    fs.writeFileSync(path.join(dir, "assets", "index-abc123.js"), "console.log('explorer');".repeat(50));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("/ and /explorer lead to /explorer/", async () => {
    const yoga = yogaOver(dir);
    for (const from of ["/", "/explorer"]) {
      const response = await get(yoga, from);
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/explorer/");
    }
  });

  test("the page and every client-side route get index.html, never cached, with a strict CSP", async () => {
    const yoga = yogaOver(dir);
    for (const route of ["/explorer/", "/explorer/graph?root=art_1", "/explorer/pipeline"]) {
      const response = await get(yoga, route);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("/explorer/assets/index-abc123.js");
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("content-security-policy")).toBe(contentSecurityPolicy("127.0.0.1:4000"));
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
    }
    const csp = contentSecurityPolicy("127.0.0.1:4000");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("connect-src 'self' ws://127.0.0.1:4000 wss://127.0.0.1:4000");
    expect(csp).toContain("frame-ancestors 'none'");
    // A Host that is no host name adds no source to the policy.
    expect(contentSecurityPolicy("evil; script-src *")).toContain("connect-src 'self';");
  });

  test("hashed assets are cached for good, gzipped when asked, and answered 304 to their ETag", async () => {
    const yoga = yogaOver(dir);
    const plain = await get(yoga, "/explorer/assets/index-abc123.js");
    expect(plain.status).toBe(200);
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await plain.text()).toContain("console.log");
    const gzipped = await get(yoga, "/explorer/assets/index-abc123.js", { "accept-encoding": "gzip" });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(Number(gzipped.headers.get("content-length"))).toBeLessThan(Number(plain.headers.get("content-length")));
    const again = await get(yoga, "/explorer/assets/index-abc123.js", { "if-none-match": plain.headers.get("etag")! });
    expect(again.status).toBe(304);
  });

  test("unknown assets, other file types and paths out of the folder are 404; writes are 405", async () => {
    const yoga = yogaOver(dir);
    for (const bad of ["/explorer/assets/missing-1.js", "/explorer/assets/index.html", "/explorer/assets/..%2Findex.html", "/explorer/assets/sub/x.js"]) {
      expect([bad, (await get(yoga, bad)).status]).toEqual([bad, 404]);
    }
    expect((await get(yoga, "/explorer/", {}, "POST")).status).toBe(405);
    // Dot segments are resolved before routing: this is the page's own route, answered with the page.
    const dotted = await get(yoga, "/explorer/assets/%2e%2e/index.html");
    expect(dotted.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  test("without a build, the page says how to build it (503)", async () => {
    const response = await get(yogaOver(path.join(dir, "nowhere")), "/explorer/graph");
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(text).toContain("The Explorer is not built");
    expect(text).toContain("npm run build");
  });

  test("the package root is found from src/ (and would be from dist/src/)", () => {
    const root = packageRoot();
    expect(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).name).toBe("provgraph");
    expect(packageRoot(path.join(root, "dist", "src", "http"))).toBe(root);
  });

  describe("in provgraph", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());

    test("GET / leads to the Explorer, which loads before any authentication", async () => {
      const response = await t.app.yoga.fetch("http://127.0.0.1/", { headers: { host: "127.0.0.1" } });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/explorer/");
      const page = await t.app.yoga.fetch("http://127.0.0.1/explorer/", { headers: { host: "127.0.0.1" } });
      expect([200, 503]).toContain(page.status);
      expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    });

    test("the page's own GraphQL requests (same origin, POST application/json) pass the browser-safety checks", async () => {
      const response = await t.app.yoga.fetch("http://127.0.0.1/graphql", {
        method: "POST",
        headers: { host: "127.0.0.1", origin: "http://127.0.0.1", "content-type": "application/json" },
        body: JSON.stringify({ query: "{ operations(first: 1) { edges { cursor } } }" }),
      });
      expect(response.status).toBe(200);
      expect((await response.json()).errors).toBeUndefined();
    });
  });
});

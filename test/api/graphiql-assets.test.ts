import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { GRAPHIQL_ASSETS_PATH } from "../../src/http/graphiql";
import { createTestApp, type TestApp } from "../support/test-app";

const DIST = path.join(path.dirname(require.resolve("@graphql-yoga/graphiql/package.json")), "dist");

describe("GraphiQL is served by provgraph itself", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const get = (pathname: string, headers: Record<string, string> = {}, method = "GET") => t.app.yoga.fetch(`http://provgraph.test${pathname}`, { method, headers });

  test("the page references only provgraph's own URLs", async () => {
    const response = await get("/graphql", { accept: "text/html" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html");
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain(`<link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}graphiql.css">`);
    expect(html).toContain(`<script src="${GRAPHIQL_ASSETS_PATH}yoga-graphiql.umd.js"></script>`);
    expect(html).toContain(`"graphql":"${GRAPHIQL_ASSETS_PATH}monacoeditorwork/graphql.worker..bundle.js"`);
    expect(html).toContain('{"subscriptionsProtocol":"WS","title":"provgraph"}');
    expect(GRAPHIQL_ASSETS_PATH).toBe(`/graphiql/${require("@graphql-yoga/graphiql/package.json").version}/`);
  });

  test.each([
    ["yoga-graphiql.umd.js", "text/javascript; charset=utf-8"],
    ["graphiql.css", "text/css; charset=utf-8"],
    ["monacoeditorwork/editor.worker.bundle.js", "text/javascript; charset=utf-8"],
    ["monacoeditorwork/json.worker.bundle.js", "text/javascript; charset=utf-8"],
    ["monacoeditorwork/graphql.worker..bundle.js", "text/javascript; charset=utf-8"],
  ])("%s: the package's bytes, its content type, cached for good", async (file, contentType) => {
    const onDisk = fs.readFileSync(path.join(DIST, file));
    const plain = await get(GRAPHIQL_ASSETS_PATH + file);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe(contentType);
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("x-content-type-options")).toBe("nosniff");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer()).equals(onDisk)).toBe(true);

    const compressed = await get(GRAPHIQL_ASSETS_PATH + file, { "accept-encoding": "gzip, deflate, br" });
    expect(compressed.headers.get("content-encoding")).toBe("gzip");
    expect(compressed.headers.get("vary")).toBe("accept-encoding");
    const gzipped = Buffer.from(await compressed.arrayBuffer());
    expect(gzipped.length).toBeLessThan(onDisk.length);
    expect(zlib.gunzipSync(gzipped).equals(onDisk)).toBe(true);
  });

  test("a revalidation with the ETag is 304 without a body; HEAD has headers only", async () => {
    const first = await get(`${GRAPHIQL_ASSETS_PATH}graphiql.css`);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"graphiql-\d+\.\d+\.\d+"$/);
    const again = await get(`${GRAPHIQL_ASSETS_PATH}graphiql.css`, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const head = await get(`${GRAPHIQL_ASSETS_PATH}graphiql.css`, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(fs.statSync(path.join(DIST, "graphiql.css")).size));
    expect(await head.text()).toBe("");
  });

  test.each([
    [`${GRAPHIQL_ASSETS_PATH}package.json`, "GET"],
    [`${GRAPHIQL_ASSETS_PATH}yoga-graphiql.es.js`, "GET"],
    [`${GRAPHIQL_ASSETS_PATH}..%2Fpackage.json`, "GET"],
    ["/graphiql/0.0.1/graphiql.css", "GET"],
    ["/graphiql/", "GET"],
    [`${GRAPHIQL_ASSETS_PATH}graphiql.css`, "POST"],
  ])("%s (%s) is 404: only the listed files, only GET and HEAD", async (pathname, method) => {
    const response = await get(pathname, {}, method);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe("not found");
  });
});

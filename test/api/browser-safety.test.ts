import http from "node:http";
import { createTokenTestApp, sendRequest, storeCounts, type TokenTestApp } from "../support/auth";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * The cross-site attacks issue 11 measured, each refused: a web page posting a form (urlencoded,
 * multipart) or text/plain, a page reading answers through a reflected Origin, DNS rebinding
 * (Host), GET used to write; plus GraphiQL and introspection by bind address. In open mode, where
 * they mattered most: no token stands in the way.
 */
const REGISTER = `mutation { registerOperation(input: { name: "pwned", version: "1", kind: CREATOR, inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] }) { __typename } }`;
const READ = "{ operations(first: 1) { edges { cursor } } }";
const CSRF_MESSAGE = "this request could be sent by any web page: a GET, form or text/plain request must carry one of the headers x-graphql-yoga-csrf, authorization (or POST application/json)";
const csrfRefusal = { errors: [{ message: CSRF_MESSAGE, extensions: { code: "CSRF_HEADER_REQUIRED" } }] };
const originRefusal = (origin: string) => ({
  errors: [{ message: `requests from origin '${origin}' are refused: only this server's own origin and CORS_ORIGINS may call it`, extensions: { code: "ORIGIN_NOT_ALLOWED" } }],
});

describe("browser safety in open mode", () => {
  let t: TestApp;
  const send = (request: Parameters<typeof sendRequest>[1]) => sendRequest(t, request);

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe("CSRF: requests a page can send cross-site without a preflight do not run", () => {
    const multipart = () => {
      const body = new FormData();
      body.set("operations", JSON.stringify({ query: REGISTER }));
      body.set("map", "{}");
      return body;
    };
    test.each([
      ["a form POST (application/x-www-form-urlencoded)", { "content-type": "application/x-www-form-urlencoded" }, `query=${encodeURIComponent(REGISTER)}`],
      ["a text/plain POST carrying JSON", { "content-type": "text/plain" }, JSON.stringify({ query: REGISTER })],
    ])("%s: 403 CSRF_HEADER_REQUIRED, nothing written", async (_name, headers, body) => {
      const before = await storeCounts(t);
      const answer = await send({ method: "POST", headers, body });
      expect(answer.status).toBe(403);
      expect(answer.json).toEqual(csrfRefusal);
      expect(await storeCounts(t)).toEqual(before);
    });

    test("a multipart/form-data POST: 403 CSRF_HEADER_REQUIRED, nothing written", async () => {
      const before = await storeCounts(t);
      const response = await t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", body: multipart() });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual(csrfRefusal);
      expect(await storeCounts(t)).toEqual(before);
    });

    test("the same form POST from a page on another site is refused first by its Origin: 403 ORIGIN_NOT_ALLOWED", async () => {
      const before = await storeCounts(t);
      const answer = await send({ method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://evil.example" }, body: `query=${encodeURIComponent(REGISTER)}` });
      expect(answer.status).toBe(403);
      expect(answer.json).toEqual(originRefusal("http://evil.example"));
      expect(await storeCounts(t)).toEqual(before);
    });

    test("GET never writes: a mutation by GET is refused (405 BAD_REQUEST, Allow: POST, as GraphQL over HTTP requires) even with the CSRF header", async () => {
      const before = await storeCounts(t);
      const answer = await send({ method: "GET", path: `/graphql?query=${encodeURIComponent(REGISTER)}`, headers: { "x-graphql-yoga-csrf": "1" } });
      expect(answer.status).toBe(405);
      expect(answer.headers.get("allow")).toBe("POST");
      expect(answer.json).toEqual({ errors: [{ message: "Can only perform a mutation operation from a POST request.", extensions: { code: "BAD_REQUEST" } }] });
      expect(await storeCounts(t)).toEqual(before);
    });

    test("a method /graphql does not take is refused 405 with Allow: GET, POST, and runs nothing", async () => {
      const before = await storeCounts(t);
      for (const method of ["PUT", "PATCH", "DELETE"]) {
        const answer = await send({ method, headers: { "content-type": "application/json", "x-graphql-yoga-csrf": "1" }, body: JSON.stringify({ query: REGISTER }) });
        expect([method, answer.status, answer.headers.get("allow")]).toEqual([method, 405, "GET, POST"]);
        expect(answer.json).toEqual({ errors: [{ message: "GraphQL only supports GET and POST requests.", extensions: { code: "BAD_REQUEST" } }] });
      }
      // Without the CSRF header or a body too: the method is what is wrong, not a missing header.
      for (const method of ["PUT", "PATCH", "DELETE", "HEAD"]) {
        const answer = await send({ method });
        expect([method, answer.status, answer.headers.get("allow")]).toEqual([method, 405, "GET, POST"]);
        if (method !== "HEAD") expect(answer.json.errors.map((e: any) => e.extensions.code)).toEqual(["BAD_REQUEST"]);
      }
      expect(await storeCounts(t)).toEqual(before);
    });

    test("a GET query needs the CSRF header (or Authorization); a JSON POST needs neither", async () => {
      const path = `/graphql?query=${encodeURIComponent(READ)}`;
      expect((await send({ method: "GET", path })).json).toEqual(csrfRefusal);
      expect((await send({ method: "GET", path, headers: { "x-graphql-yoga-csrf": "1" } })).json).toEqual({ data: { operations: { edges: [] } } });
      expect((await send({ graphql: { query: READ } })).json).toEqual({ data: { operations: { edges: [] } } });
    });
  });

  describe("Origin and CORS: off by default, so no other site can read or write", () => {
    test("a request from another origin is refused and no CORS header reflects it", async () => {
      const variants: Record<string, string>[] = [{ origin: "http://evil.example" }, { origin: "http://evil.example", accept: "text/event-stream" }];
      for (const headers of variants) {
        const answer = await send({ headers, graphql: { query: READ } });
        expect(answer.status).toBe(403);
        expect(answer.json).toEqual(originRefusal("http://evil.example"));
        expect(answer.headers.get("access-control-allow-origin")).toBeNull();
        expect(answer.headers.get("access-control-allow-credentials")).toBeNull();
      }
    });

    test("a preflight from another origin gets no CORS headers", async () => {
      const answer = await send({ method: "OPTIONS", headers: { origin: "http://evil.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" } });
      expect(answer.status).toBe(403);
      expect([...answer.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
    });

    test("the server's own origin (GraphiQL's requests) is served, still without CORS headers", async () => {
      const answer = await send({ headers: { origin: "http://provgraph.test" }, graphql: { query: READ } });
      expect(answer.json).toEqual({ data: { operations: { edges: [] } } });
      expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    });

    test.each(["null", "file://", "http://provgraph.test.evil.example", "https://provgraph.test:8443"])("Origin %s is refused", async (origin) => {
      expect((await send({ headers: { origin }, graphql: { query: READ } })).status).toBe(403);
    });
  });

  describe("GraphiQL and introspection on loopback: on by default", () => {
    test("GraphiQL is served and introspection answers", async () => {
      const page = await send({ method: "GET", headers: { accept: "text/html" } });
      expect(page.status).toBe(200);
      expect(page.text).toContain("YogaGraphiQL.renderYogaGraphiQL");
      expect((await send({ graphql: { query: "{ __schema { queryType { name } } }" } })).json).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
    });
  });

  describe("the Host header on a loopback socket (DNS rebinding)", () => {
    let port: number;
    beforeAll(async () => {
      port = Number(new URL(await t.app.start()).port);
    });

    test("Host: attacker.example is refused before anything runs: 403 HOST_NOT_ALLOWED, nothing written", async () => {
      const before = await storeCounts(t);
      const answer = await post(port, { host: "attacker.example", "content-type": "application/json" }, JSON.stringify({ query: REGISTER }));
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).errors[0].extensions).toEqual({ code: "HOST_NOT_ALLOWED" });
      expect(await storeCounts(t)).toEqual(before);
    });

    test("Host: 127.0.0.1:<port> is served", async () => {
      const answer = await post(port, { host: `127.0.0.1:${port}`, "content-type": "application/json" }, JSON.stringify({ query: READ }));
      expect(JSON.parse(answer.body)).toEqual({ data: { operations: { edges: [] } } });
    });
  });
});

describe("CORS_ORIGINS opens CORS to the listed origins only", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { CORS_ORIGINS: "https://app.example.com, http://localhost:5173" } });
  });
  afterAll(() => t.close());

  test("a preflight from a listed origin is answered with exactly that origin, no credentials", async () => {
    const answer = await sendRequest(t, { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
    expect(answer.status).toBe(204);
    expect(Object.fromEntries([...answer.headers].filter(([name]) => name.startsWith("access-control-")))).toEqual({
      "access-control-allow-origin": "https://app.example.com",
      "access-control-allow-methods": "GET, POST",
      "access-control-allow-headers": "content-type, accept, x-graphql-yoga-csrf, authorization",
      "access-control-max-age": "600",
    });
  });

  test("a listed origin reads; an unlisted one is refused and gets no CORS header", async () => {
    const listed = await sendRequest(t, { headers: { origin: "http://localhost:5173" }, graphql: { query: READ } });
    expect(listed.json).toEqual({ data: { operations: { edges: [] } } });
    expect(listed.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(listed.headers.get("access-control-allow-credentials")).toBeNull();
    const unlisted = await sendRequest(t, { headers: { origin: "https://evil.example" }, graphql: { query: READ } });
    expect(unlisted.status).toBe(403);
    expect(unlisted.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await sendRequest(t, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("GraphiQL and introspection beyond loopback", () => {
  const INTROSPECT = "{ __schema { queryType { name } } }";

  describe.each([
    ["HOST=0.0.0.0", { HOST: "0.0.0.0" }, false],
    ["HOST=0.0.0.0 GRAPHIQL=true INTROSPECTION=true", { HOST: "0.0.0.0", GRAPHIQL: "true", INTROSPECTION: "true" }, true],
    ["loopback with GRAPHIQL=false INTROSPECTION=false", { GRAPHIQL: "false", INTROSPECTION: "false" }, false],
  ])("%s", (_name, env: Record<string, string>, on) => {
    let t: TokenTestApp;
    beforeAll(async () => {
      t = await createTokenTestApp({ env });
    });
    afterAll(() => t.close());

    test(on ? "GraphiQL and introspection are on" : "GraphiQL and introspection are off; __typename still answers", async () => {
      const page = await t.send({ token: t.adminToken, method: "GET", headers: { accept: "text/html" } });
      expect(page.text.includes("YogaGraphiQL.renderYogaGraphiQL")).toBe(on);
      const asset = await t.send({ token: null, method: "GET", path: "/graphiql/" });
      expect(asset.status).toBe(on ? 404 : 401); // the assets route exists only with GraphiQL (404 for a bad path); without it, an unknown path needs a token
      const introspection = await t.gqlAs(t.adminToken, INTROSPECT);
      if (on) expect(introspection.data).toEqual({ __schema: { queryType: { name: "Query" } } });
      else {
        expect(introspection.errors!.map((e) => [e.extensions!.code, e.message])).toEqual([
          ["GRAPHQL_VALIDATION_FAILED", 'GraphQL introspection has been disabled, but the requested query contained the field "__schema".'],
          ["GRAPHQL_VALIDATION_FAILED", 'GraphQL introspection has been disabled, but the requested query contained the field "queryType".'],
        ]);
      }
      expect((await t.gqlAs(t.adminToken, "{ __typename }")).data).toEqual({ __typename: "Query" });
      // Nor do misspelt names get suggestions, which would spell the schema out one guess at a time.
      const misspelt = await t.gqlAs(t.adminToken, "{ artifactz executions(frist: 1) { edges { cursor } } }");
      expect(misspelt.errors!.map((e) => e.message)).toEqual(
        on
          ? ['Cannot query field "artifactz" on type "Query". Did you mean "artifact" or "artifacts"?', 'Unknown argument "frist" on field "Query.executions". Did you mean "first" or "last"?']
          : ['Cannot query field "artifactz" on type "Query".', 'Unknown argument "frist" on field "Query.executions".'],
      );
    });
  });
});

function post(port: number, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, path: "/graphql", method: "POST", agent: false, headers: { ...headers, "content-length": Buffer.byteLength(body) } }, (response) => {
      let text = "";
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

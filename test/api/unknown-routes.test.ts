import { createTokenTestApp, type TokenTestApp } from "../support/auth";

/** A path no route serves: 404 NOT_FOUND in JSON, after authentication; GraphQL at /graphql only. */
describe("paths no route serves", () => {
  let t: TokenTestApp;
  beforeAll(async () => {
    t = await createTokenTestApp();
  });
  afterAll(() => t.close());

  test.each([
    ["GET", "/nope"],
    ["GET", "/api/v1/nope"],
    ["POST", "/api/v2/lineage"],
    ["GET", "/graphql/x"],
    ["DELETE", "/healthz/x"],
  ])("%s %s: 404 NOT_FOUND naming the path and where the API is", async (method, path) => {
    const answer = await t.send({ method, path, token: t.adminToken, ...(method === "POST" ? { body: "{}", headers: { "content-type": "application/json" } } : {}) });
    expect(answer.status).toBe(404);
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(answer.json).toEqual({
      error: {
        code: "NOT_FOUND",
        message: `nothing is served at ${method} ${path}: the GraphQL API is at /graphql, the Explorer at /explorer/, OpenLineage events go to POST /api/v1/lineage (docs/api.md lists the routes)`,
        field: "path",
      },
    });
  });

  test("a path that merely ends in /graphql is not the API (Yoga alone would serve GraphQL there)", async () => {
    const elsewhere = await t.send({ path: "/anything/graphql", token: t.adminToken, graphql: { query: "{ __typename }" } });
    expect([elsewhere.status, elsewhere.json.error.code]).toEqual([404, "NOT_FOUND"]);
    for (const path of ["/graphql", "/graphql/"]) {
      const api = await t.send({ path, token: t.adminToken, graphql: { query: "{ __typename }" } });
      expect([api.status, api.json]).toEqual([200, { data: { __typename: "Query" } }]);
    }
  });

  test("GraphiQL is served to a browser at /graphql only, not at a path ending in it", async () => {
    const page = await t.send({ path: "/graphql", method: "GET", token: null, headers: { accept: "text/html" } });
    expect([page.status, page.text.includes("YogaGraphiQL.renderYogaGraphiQL")]).toEqual([200, true]);
    const elsewhere = await t.send({ path: "/x/graphql", method: "GET", token: t.adminToken, headers: { accept: "text/html" } });
    expect([elsewhere.status, elsewhere.json?.error?.code]).toEqual([404, "NOT_FOUND"]);
  });

  test("without a token, an unknown path is 401 like any other: nothing about paths is learnt", async () => {
    const answer = await t.send({ path: "/nope", token: null });
    expect(answer.status).toBe(401);
    expect(answer.json.errors.map((e: any) => e.extensions.code)).toEqual(["UNAUTHENTICATED"]);
  });

  test("a long path is shown cut, not echoed whole", async () => {
    const answer = await t.send({ path: `/${"a".repeat(5_000)}`, token: t.adminToken });
    expect(answer.status).toBe(404);
    expect(answer.json.error.message).toContain(`/${"a".repeat(199)}…:`);
    expect(answer.text.length).toBeLessThan(600);
  });

  test("the routes still answer: the health checks, the Explorer, the signing keys, the OpenLineage route's own refusals", async () => {
    expect((await t.send({ path: "/healthz", token: null })).status).toBe(200);
    expect((await t.send({ path: "/explorer/", token: null })).status).toBe(200);
    expect((await t.send({ path: "/api/v1/signing-keys", token: null })).status).toBe(200);
    const lineage = await t.send({ path: "/api/v1/lineage", method: "GET", token: t.adminToken });
    expect([lineage.status, lineage.json.error.code]).toEqual([405, "METHOD_NOT_ALLOWED"]);
  });
});

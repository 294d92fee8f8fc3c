import { serverAudits } from "graphql-http";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * /graphql against the GraphQL over HTTP spec, by the audits of graphql-http (the spec's reference
 * implementation): every MUST and SHOULD holds. Three MAYs are not taken, on purpose: a GET without
 * the CSRF header (or Authorization) is refused 403, because a web page could send it cross-site
 * (docs/access-control.md, CSRF).
 */
const DECLINED_MAYS = [
  "MAY accept application/x-www-form-urlencoded formatted GET requests",
  "MAY allow URL-encoded JSON string {variables} parameter in GETs when accepting application/graphql-response+json",
  "MAY allow URL-encoded JSON string {variables} parameter in GETs when accepting application/json",
];

describe("GraphQL over HTTP: graphql-http's server audits", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("every MUST and SHOULD holds; the only MAYs declined are the GETs a web page could send", async () => {
    const results: { name: string; status: string; reason?: string }[] = [];
    for (const audit of serverAudits({ url: "http://provgraph.test/graphql", fetchFn: (input: RequestInfo | URL, init?: RequestInit) => t.app.yoga.fetch(new URL(String(input)), init as never) })) {
      const result = await audit.fn();
      results.push({ name: audit.name, status: result.status, ...(result.status === "ok" ? {} : { reason: result.reason }) });
    }
    expect(results.length).toBeGreaterThan(50);
    expect(results.filter((r) => r.status === "error" || r.status === "warn")).toEqual([]);
    expect(results.filter((r) => r.status === "notice").map((r) => r.name)).toEqual(DECLINED_MAYS);
  });
});

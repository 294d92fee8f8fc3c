import http from "node:http";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * One body limit for /graphql, GRAPHQL_MAX_BODY_BYTES (50 MiB by default), one code: a body declared
 * larger is refused before it is read, one streamed larger (chunked, no Content-Length) once it
 * passes the limit, both 413 PAYLOAD_TOO_LARGE with the limit; anything under it is read (Yoga's own
 * 25,000,000-byte limit used to refuse those with REQUEST_ENTITY_TOO_LARGE). Whatever the body's
 * type: JSON, a form, or the document alone (application/graphql).
 */
describe("the /graphql body limit", () => {
  let t: TestApp;
  let port: number;
  const LIMIT = 50 * 1024 * 1024;
  beforeAll(async () => {
    t = await createTestApp();
    port = Number(new URL(await t.app.start()).port);
  });
  afterAll(() => t.close());

  /** How a body of each type pads a query to a size: what comes before and after the padding. */
  const BODIES = {
    "application/json": { head: `{"query":"query($pad: String!) { __typename t: __type(name: $pad) { name } }","variables":{"pad":"`, tail: `"}}` },
    "application/x-www-form-urlencoded": { head: `query=query(%24pad%3A%20String!)%20%7B%20__typename%20t%3A%20__type(name%3A%20%24pad)%20%7B%20name%20%7D%20%7D&variables=%7B%22pad%22%3A%22`, tail: `%22%7D` },
    "application/graphql": { head: `{ __typename t: __type(name: "`, tail: `") { name } }` },
  };

  /** A request of `size` bytes padding `{ __typename t: __type(name: <padding>) { name } }`, declared or chunked. */
  const post = (size: number, chunked: boolean, type: keyof typeof BODIES = "application/json") =>
    new Promise<{ status: number; json: any }>((resolve, reject) => {
      const { head, tail } = BODIES[type];
      const padding = size - head.length - tail.length;
      const request = http.request({ host: "127.0.0.1", port, path: "/graphql", method: "POST", headers: { "content-type": type, "x-graphql-yoga-csrf": "1", ...(chunked ? {} : { "content-length": size }) } }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, json: JSON.parse(text) }));
      });
      request.on("error", reject);
      request.write(head);
      const piece = "x".repeat(1024 * 1024);
      let left = padding;
      const pump = () => {
        while (left > 0) {
          const n = Math.min(left, piece.length);
          left -= n;
          if (!request.write(piece.slice(0, n))) return void request.once("drain", pump);
        }
        request.end(tail);
      };
      pump();
    });

  test("a 30,000,000-byte body is read and runs, declared or streamed", async () => {
    for (const chunked of [false, true]) {
      expect(await post(30_000_000, chunked)).toEqual({ status: 200, json: { data: { __typename: "Query", t: null } } });
    }
  });

  test("a form and a document alone are read and run too", async () => {
    for (const type of ["application/x-www-form-urlencoded", "application/graphql"] as const) {
      for (const chunked of [false, true]) expect([type, chunked, await post(10_000, chunked, type)]).toEqual([type, chunked, { status: 200, json: { data: { __typename: "Query", t: null } } }]);
    }
  });

  // A declared length is refused before the body is read, whatever its type (src/http/admission/heavy-work.ts); a
  // streamed body by the parser of its type, each checked here.
  test("over GRAPHQL_MAX_BODY_BYTES: 413 PAYLOAD_TOO_LARGE with the limit, declared or streamed, whatever the body's type", async () => {
    const declared = await post(LIMIT + 1, false);
    expect(declared).toEqual({ status: 413, json: { errors: [{ message: `the body is ${LIMIT + 1} bytes; at most ${LIMIT} are accepted (GRAPHQL_MAX_BODY_BYTES)`, extensions: { code: "PAYLOAD_TOO_LARGE", limit: LIMIT, found: LIMIT + 1 } }] } });
    for (const type of Object.keys(BODIES) as (keyof typeof BODIES)[]) {
      const streamed = await post(LIMIT + 1024 * 1024, true, type);
      expect([type, streamed]).toEqual([type, { status: 413, json: { errors: [{ message: `the body is more than ${LIMIT} bytes; at most ${LIMIT} are accepted (GRAPHQL_MAX_BODY_BYTES)`, extensions: { code: "PAYLOAD_TOO_LARGE", limit: LIMIT } }] } }]);
    }
  });
});

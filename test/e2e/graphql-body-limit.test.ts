import http from "node:http";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * One body limit for /graphql, GRAPHQL_MAX_BODY_BYTES (50 MiB by default), one code: a body declared
 * larger is refused before it is read, one streamed larger (chunked, no Content-Length) once it
 * passes the limit, both 413 PAYLOAD_TOO_LARGE with the limit; anything under it is read (Yoga's own
 * 25,000,000-byte limit used to refuse those with REQUEST_ENTITY_TOO_LARGE).
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

  /** A request whose body is `{"query": …, "variables": {"pad": "<padding>"}}` of `size` bytes, declared or chunked. */
  const post = (size: number, chunked: boolean) =>
    new Promise<{ status: number; json: any }>((resolve, reject) => {
      const head = `{"query":"query($pad: String!) { __typename t: __type(name: $pad) { name } }","variables":{"pad":"`;
      const tail = `"}}`;
      const padding = size - head.length - tail.length;
      const request = http.request({ host: "127.0.0.1", port, path: "/graphql", method: "POST", headers: { "content-type": "application/json", ...(chunked ? {} : { "content-length": size }) } }, (response) => {
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

  test("over GRAPHQL_MAX_BODY_BYTES: 413 PAYLOAD_TOO_LARGE with the limit, declared or streamed", async () => {
    const declared = await post(LIMIT + 1, false);
    expect(declared).toEqual({ status: 413, json: { errors: [{ message: `the body is ${LIMIT + 1} bytes; at most ${LIMIT} are accepted (GRAPHQL_MAX_BODY_BYTES)`, extensions: { code: "PAYLOAD_TOO_LARGE", limit: LIMIT, found: LIMIT + 1 } }] } });
    const streamed = await post(LIMIT + 1024 * 1024, true);
    expect(streamed.status).toBe(413);
    expect(streamed.json.errors).toEqual([{ message: `the body is larger than ${LIMIT} bytes (GRAPHQL_MAX_BODY_BYTES)`, extensions: { code: "PAYLOAD_TOO_LARGE", limit: LIMIT } }]);
  });
});

import { createTestApp, type TestApp } from "../support/test-app";
import { rawRequest, type RawAnswer } from "../support/raw-socket";

/**
 * Requests fetch would never send (it normalises the Host and the target), written byte for byte on
 * a socket: a Host that is no host[:port], two Hosts, an absolute-form target, malformed
 * percent-encoding. Each is answered 400 with a typed code and a short message, before
 * authentication, never a stack or a server path; a well-formed absolute-form target is served.
 */
describe("malformed requests on the socket", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    port = Number(new URL(await t.app.start()).port);
  });
  afterAll(() => t.close());

  const send = (head: string, body = "") => rawRequest(port, `${head}\r\n${body ? `content-length: ${Buffer.byteLength(body)}\r\n` : ""}\r\n${body}`);
  const get = (target: string, host: string | null) => send(`GET ${target} HTTP/1.1\r\n${host === null ? "" : `Host: ${host}\r\n`}Connection: close`);
  const expectTyped = (answer: RawAnswer, status: number, code: string) => {
    expect(answer.status).toBe(status);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(answer.json.errors[0].extensions.code).toBe(code);
    // No stack, no path of the server's files.
    expect(answer.body).not.toMatch(/\n\s+at |node_modules|\/src\/|Error:/);
  };

  test.each([
    ["a port above 65535", "127.0.0.1:99999"],
    ["a port that is not a number", "127.0.0.1:abc"],
    ["a space in the name", "a b"],
    ["an unclosed IPv6 bracket", "[zz"],
    ["brackets around what is no IPv6 address", "[127.0.0.1]"],
    ["a name with a slash", "example.org/evil"],
    ["a name with an @", "user@127.0.0.1"],
  ])("a Host with %s: 400 INVALID_HOST", async (_name, host) => {
    for (const path of ["/healthz", "/graphql?query=%7B__typename%7D", "/api/v1/lineage", "/api/v1/evidence/x"]) {
      expectTyped(await get(path, host), 400, "INVALID_HOST");
    }
  });

  test("two Host headers: 400 INVALID_HOST", async () => {
    expectTyped(await send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close"), 400, "INVALID_HOST");
  });

  test("no Host: 400 INVALID_HOST in HTTP/1.1; HTTP/1.0 may omit it", async () => {
    expectTyped(await get("/healthz", null), 400, "INVALID_HOST");
    expect((await send("GET /healthz HTTP/1.0")).status).toBe(200);
  });

  test("what node's parser cannot read is answered typed too: a space in the target, a header that is none, headers over 16 KiB", async () => {
    expectTyped(await send("GET /a b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close"), 400, "MALFORMED_REQUEST");
    expectTyped(await send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\nConnection: close"), 400, "MALFORMED_REQUEST");
    expectTyped(await send(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nx-big: ${"a".repeat(20_000)}\r\nConnection: close`), 431, "HEADERS_TOO_LARGE");
  });

  test("a well-formed Host still passes: names, IPv4, IPv6 in brackets, an empty port", async () => {
    for (const host of ["127.0.0.1", `127.0.0.1:${port}`, "localhost", "localhost:", "[::1]", `[::1]:${port}`]) {
      const answer = await get("/healthz", host);
      expect([host, answer.status]).toEqual([host, 200]);
    }
  });

  test("an absolute-form target is served as its path, its authority standing for the Host", async () => {
    const answer = await get(`http://127.0.0.1:${port}/healthz`, "127.0.0.1");
    expect([answer.status, answer.json]).toEqual([200, { status: "ok" }]);
    const graphql = await send(`POST http://localhost:${port}/graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\nConnection: close`, JSON.stringify({ query: "{ __typename }" }));
    expect([graphql.status, graphql.json]).toEqual([200, { data: { __typename: "Query" } }]);
    // Its authority is what the Host check judges: a name that is not ours is refused as a Host would be.
    expectTyped(await get("http://evil.example/healthz", "127.0.0.1"), 403, "HOST_NOT_ALLOWED");
  });

  test.each([
    ["a port above 65535 in its authority", "INVALID_HOST", "http://127.0.0.1:99999/healthz"],
    ["an unclosed IPv6 bracket in its authority", "INVALID_HOST", "http://[zz/healthz"],
    ["credentials in its authority", "INVALID_REQUEST_TARGET", "http://user:secret@127.0.0.1/healthz"],
    ["another scheme", "INVALID_REQUEST_TARGET", "ftp://127.0.0.1/healthz"],
    ["no path and no scheme (authority-form)", "INVALID_REQUEST_TARGET", "127.0.0.1:80"],
    ["the asterisk form", "INVALID_REQUEST_TARGET", "*"],
  ])("a target with %s: 400 %s", async (_name, code, target) => {
    expectTyped(await get(target, "127.0.0.1"), 400, code);
  });

  test.each([
    ["a lone %", "/api/v1/evidence/%"],
    ["a % and one hex digit", "/api/v1/evidence/art_%4"],
    ["a % and no hex digits", "/graphql?query=%zz"],
    ["bytes that are not UTF-8", "/api/v1/evidence/%FF%FE"],
    ["a truncated UTF-8 sequence", "/healthz?x=%E0%A4"],
    ["a malformed escape in an unknown path", "/no/such/route/%"],
  ])("a target with %s: 400 INVALID_REQUEST_TARGET, on every route", async (_name, target) => {
    expectTyped(await get(target, "127.0.0.1"), 400, "INVALID_REQUEST_TARGET");
  });

  test("in process (yoga.fetch, no socket): GET /api/v1/evidence/% is 400 INVALID_REQUEST_TARGET too", async () => {
    const response = await t.app.yoga.fetch("http://provgraph.test/api/v1/evidence/%");
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("INVALID_REQUEST_TARGET");
  });

  test("a WebSocket upgrade with a malformed Host: 400 INVALID_HOST, the socket closed", async () => {
    const answer = await send(
      "GET /graphql HTTP/1.1\r\nHost: 127.0.0.1:99999\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws",
    );
    expectTyped(answer, 400, "INVALID_HOST");
  });
});

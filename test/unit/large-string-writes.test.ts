import http from "node:http";
import type { AddressInfo } from "node:net";
import { LARGE_STRING_CHARS, writeLargeStringsAsBuffers } from "../../src/http/large-string-writes";

/** Large string bodies reach the socket as Buffers (src/http/large-string-writes.ts), byte for byte the same. */
describe("writeLargeStringsAsBuffers", () => {
  /** What the wrapped handler's writes hand to the response underneath. */
  function writesOf(handler: (response: http.ServerResponse) => void): unknown[][] {
    const calls: unknown[][] = [];
    const response = {
      write: (...args: unknown[]) => calls.push(["write", ...args]) > 0,
      end: (...args: unknown[]) => calls.push(["end", ...args]),
    } as unknown as http.ServerResponse;
    writeLargeStringsAsBuffers((_request, res) => handler(res))({} as http.IncomingMessage, response);
    return calls;
  }

  const large = "é".repeat(LARGE_STRING_CHARS);

  test("a large string written or ended with: a Buffer of its UTF-8 bytes, the other arguments as they were", () => {
    const done = () => undefined;
    const calls = writesOf((res) => {
      res.write(large, "utf8");
      res.end(large, done);
    });
    expect(calls.map(([method, chunk, ...rest]) => [method, Buffer.isBuffer(chunk), ...rest])).toEqual([
      ["write", true, "utf8"],
      ["end", true, done],
    ]);
    expect((calls[0][1] as Buffer).equals(Buffer.from(large, "utf8"))).toBe(true);
  });

  test("a small string, a string in another encoding, a Buffer and no chunk at all: handed on as they are", () => {
    const buffer = Buffer.from("abc");
    const latin1 = "x".repeat(LARGE_STRING_CHARS);
    const calls = writesOf((res) => {
      res.write("x".repeat(LARGE_STRING_CHARS - 1));
      res.write(latin1, "latin1");
      res.write(buffer);
      res.end();
    });
    expect(calls).toEqual([["write", "x".repeat(LARGE_STRING_CHARS - 1)], ["write", latin1, "latin1"], ["write", buffer], ["end", undefined]]);
  });

  test("over a socket: the body and its Content-Length are the string's bytes, a multi-byte character at every position", async () => {
    const body = `${"a😀é€".repeat(LARGE_STRING_CHARS / 2)}!`;
    const server = http.createServer(
      writeLargeStringsAsBuffers((_request, response) => {
        response.setHeader("content-length", Buffer.byteLength(body));
        response.end(body);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(body)));
      expect(await answer.text()).toBe(body);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

import type http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "../logger";
import { JSON_CONTENT_TYPE, refusalBody } from "./browser-safety/refusal";

/**
 * What node's HTTP parser cannot read as a request (a target it refuses, a header that is no header,
 * headers over its limit) is answered like every other refusal — a typed JSON error, no stack —
 * instead of node's bare "400 Bad Request", and the connection closes: nothing after it can be read.
 */
export function answerClientErrors(server: http.Server, logger: Logger): void {
  server.on("clientError", (error: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Duplex) => {
    // A response already under way (a keep-alive connection's next request failed mid-answer), or a peer gone: nothing to answer.
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === "ECONNRESET" || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const { status, code, message } = refusalOf(error.code);
    logger.info({ transport: "http", code, parser: error.code }, "request refused");
    const body = refusalBody(code, message);
    socket.end(`HTTP/1.1 ${status} ${status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request"}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}

function refusalOf(parserCode: string | undefined): { status: number; code: string; message: string } {
  switch (parserCode) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: "HEADERS_TOO_LARGE", message: "the request's headers are larger than the server reads (16 KiB)" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: "REQUEST_TIMEOUT", message: "the request did not arrive in time" };
    case "HPE_INVALID_URL":
      return { status: 400, code: "INVALID_REQUEST_TARGET", message: "the request target is neither a path nor an http(s) URL" };
    default:
      return { status: 400, code: "MALFORMED_REQUEST", message: `the request is not HTTP/1.1 the server can read${parserCode ? ` (${parserCode})` : ""}` };
  }
}

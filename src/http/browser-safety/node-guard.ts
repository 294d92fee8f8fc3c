import http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "../../logger";
import { type HostPolicy, hostAllowed, originAllowed } from "./addresses";
import { malformedRequest, type SocketRefusal } from "../request-target";
import { JSON_CONTENT_TYPE, quotedHeader, refusalBody } from "./refusal";

export interface SocketPolicy extends HostPolicy {
  corsOrigins: readonly string[];
}

/**
 * The checks made where requests arrive on a socket (node's `request` and `upgrade` events), before
 * Yoga or graphql-ws see them: first that the request is well-formed (its Host and target: 400,
 * ../request-target.ts), then the Host check. In-process calls (`yoga.fetch`, as the tests make)
 * carry no Host of a network request and are not checked. Upgrades (graphql-ws) also check Origin
 * here: browsers send it on every WebSocket handshake, and nothing else guards a socket.
 */
export function refusalFor(request: http.IncomingMessage, policy: SocketPolicy, upgrade: boolean): SocketRefusal | undefined {
  const malformed = malformedRequest(request);
  if (malformed) return malformed;
  const host = request.headers.host;
  if (!hostAllowed(host, policy)) {
    return { status: 403, code: "HOST_NOT_ALLOWED", message: `Host '${quotedHeader(host ?? "")}' is not this server's: add it to ALLOWED_HOSTS to serve it` };
  }
  const origin = request.headers.origin;
  if (upgrade && !originAllowed(origin, host, policy.corsOrigins)) {
    return { status: 403, code: "ORIGIN_NOT_ALLOWED", message: `WebSocket connections from origin '${quotedHeader(origin ?? "")}' are refused: only this server's own origin and CORS_ORIGINS may connect` };
  }
  return undefined;
}

/** Wraps the HTTP handler: malformed requests get 400 (INVALID_HOST, INVALID_REQUEST_TARGET), requests for a Host that is not ours 403 HOST_NOT_ALLOWED. */
export function guardRequests(handler: http.RequestListener, policy: SocketPolicy, logger: Logger): http.RequestListener {
  return (request, response) => {
    const refusal = refusalFor(request, policy, false);
    if (!refusal) return handler(request, response);
    logger.info({ transport: "http", code: refusal.code }, "request refused");
    const body = refusalBody(refusal.code, refusal.message);
    // A malformed request may have more to it that cannot be read as a request: the connection closes after the answer.
    response.writeHead(refusal.status, { "content-type": JSON_CONTENT_TYPE, "content-length": Buffer.byteLength(body), ...(refusal.status === 400 ? { connection: "close" } : {}) });
    response.end(body);
  };
}

/** Answers a refused upgrade with a plain HTTP 400, 403 or 404 and closes the socket. */
export function refuseUpgrade(socket: Duplex, refusal: SocketRefusal): void {
  const body = refusalBody(refusal.code, refusal.message);
  socket.end(
    `HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status]}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

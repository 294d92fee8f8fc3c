import type http from "node:http";
import net from "node:net";
import { quotedHeader } from "./browser-safety/refusal";

/** A request refused before anything reads it, and the HTTP status it answers. */
export interface SocketRefusal {
  status: 400 | 403 | 404;
  code: "INVALID_HOST" | "INVALID_REQUEST_TARGET" | "HOST_NOT_ALLOWED" | "ORIGIN_NOT_ALLOWED" | "NOT_FOUND";
  message: string;
}

// RFC 3986 §3.2.2 reg-name: unreserved, sub-delims and percent-encoded octets.
const REG_NAME = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+$/;
const PORT = /^[0-9]{0,5}$/;
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

/**
 * What a request arriving on a socket must be before anything reads it (docs: README "Errors"; RFC
 * 9112 §3.2): at most one Host, a host[:port] (a name, an IPv4 address or a bracketed IPv6 one, a
 * port up to 65535); a target that is a path (origin-form) or an absolute http(s) URL — whose
 * authority then stands for the Host (RFC 9112 §3.2.2), the target becoming its path — and whose
 * percent-encoding decodes (every `%` followed by two hex digits, the bytes UTF-8). Anything else is
 * answered 400 here, before authentication, Yoga or a route sees it. An absolute-form request is
 * rewritten in place (request.url, the Host header), so what follows sees an ordinary request.
 */
export function malformedRequest(request: http.IncomingMessage): SocketRefusal | undefined {
  const hosts = request.rawHeaders.filter((_, i) => i % 2 === 0 && request.rawHeaders[i].toLowerCase() === "host").length;
  if (hosts > 1) return invalidHost(`${hosts} Host headers: a request names one host`);
  if (hosts === 0 && request.httpVersion !== "1.0" && !ABSOLUTE_FORM.test(request.url ?? "")) return invalidHost("no Host header: an HTTP/1.1 request names its host");
  const target = request.url ?? "";
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute) {
    const [, scheme, authority, rest] = absolute;
    if (!/^https?$/i.test(scheme)) return invalidTarget(`'${quotedHeader(target)}' is not an http or https URL`);
    if (authority.includes("@")) return invalidTarget(`the URL of the target carries credentials: send them in the Authorization header`);
    if (!isHostAndPort(authority)) return invalidHost(`the target's host '${quotedHeader(authority)}' is not a host name or address with an optional port (0 to 65535)`);
    request.url = rest === "" ? "/" : rest.startsWith("/") ? rest : `/${rest}`;
    request.headers.host = authority;
  } else {
    const host = request.headers.host;
    if (host !== undefined && host !== "" && !isHostAndPort(host)) return invalidHost(`Host '${quotedHeader(host)}' is not a host name or address with an optional port (0 to 65535)`);
    if (!target.startsWith("/")) return invalidTarget(`the request target '${quotedHeader(target)}' is neither a path nor an http(s) URL`);
  }
  try {
    decodeURIComponent(request.url!);
  } catch {
    return invalidTarget(`the request target '${quotedHeader(request.url!)}' is not well-formed percent-encoding: each '%' must be followed by two hex digits, and the bytes must be UTF-8`);
  }
  return undefined;
}

/** host[:port]: a name (RFC 3986 reg-name), an IPv4 address, or an IPv6 address in brackets; a port of at most 65535. */
export function isHostAndPort(value: string): boolean {
  let host: string;
  let port: string | undefined;
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    if (end === -1 || !net.isIPv6(value.slice(1, end))) return false;
    const rest = value.slice(end + 1);
    if (rest !== "" && !rest.startsWith(":")) return false;
    host = value.slice(0, end + 1);
    port = rest === "" ? undefined : rest.slice(1);
  } else {
    const colon = value.indexOf(":");
    host = colon === -1 ? value : value.slice(0, colon);
    port = colon === -1 ? undefined : value.slice(colon + 1);
    if (!REG_NAME.test(host)) return false;
  }
  if (port !== undefined && (!PORT.test(port) || Number(port) > 65_535)) return false;
  // What the URL parser behind Yoga's request accepts (it refuses some names the grammar allows, e.g. a bad IPv4 form).
  try {
    new URL(`http://${value}/`);
    return true;
  } catch {
    return false;
  }
}

/** Decodes one path segment, or undefined when its percent-encoding is malformed. */
export function decodedPathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const invalidHost = (message: string): SocketRefusal => ({ status: 400, code: "INVALID_HOST", message });
const invalidTarget = (message: string): SocketRefusal => ({ status: 400, code: "INVALID_REQUEST_TARGET", message });

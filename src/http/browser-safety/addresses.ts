import net from "node:net";

/** Whether a HOST value (an address or "localhost") is a loopback address: the only bind where open mode is allowed. */
export function isLoopbackAddress(host: string): boolean {
  const address = host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (address === "localhost") return true;
  if (net.isIPv4(address)) return address.startsWith("127.");
  if (net.isIPv6(address)) return address === "::1" || address === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(address);
  return false;
}

/** The host name of a Host header ("example.org:4000" → "example.org", "[::1]:4000" → "::1"), lower-case. */
export function hostnameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(1, value.indexOf("]") === -1 ? undefined : value.indexOf("]"));
  const colon = value.lastIndexOf(":");
  return colon === -1 ? value : value.slice(0, colon);
}

export interface HostPolicy {
  /** Bound to a loopback address. */
  loopback: boolean;
  /** ALLOWED_HOSTS: host names (lower-case) accepted besides the defaults. */
  allowedHosts: readonly string[];
}

/**
 * DNS rebinding defence: a page on attacker.example whose name is made to resolve to 127.0.0.1
 * reaches a loopback server with `Host: attacker.example`. Bound to loopback, the Host must be a
 * loopback address or "localhost", or listed in ALLOWED_HOSTS. Bound elsewhere, names must be listed
 * once ALLOWED_HOSTS is set (IP literals always pass: a rebinding needs a name); with no list,
 * any Host passes (tokens are required there anyway).
 */
export function hostAllowed(hostHeader: string | undefined, policy: HostPolicy): boolean {
  // HTTP/1.0 clients may omit Host; browsers never do.
  if (hostHeader === undefined || hostHeader === "") return true;
  const hostname = hostnameOf(hostHeader);
  if (policy.allowedHosts.includes(hostname)) return true;
  if (policy.loopback) return isLoopbackAddress(hostname);
  if (hostname === "localhost" || net.isIP(hostname) !== 0) return true;
  return policy.allowedHosts.length === 0;
}

/**
 * Cross-site request defence for every request (HTTP, SSE, WebSocket upgrades): a request carrying
 * an Origin must come from the page's own origin (the one the Host names) or from an origin listed
 * in CORS_ORIGINS. Requests without Origin (curl, servers, graphql-ws clients in Node) pass.
 */
export function originAllowed(origin: string | null | undefined, hostHeader: string | undefined, corsOrigins: readonly string[]): boolean {
  if (origin === null || origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file:) and anything else that is no origin
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  if (corsOrigins.includes(parsed.origin)) return true;
  if (!hostHeader) return false;
  try {
    return new URL(`${parsed.protocol}//${hostHeader}`).host === parsed.host;
  } catch {
    return false;
  }
}

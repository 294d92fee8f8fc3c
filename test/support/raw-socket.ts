import net from "node:net";

/** An HTTP answer read off a raw socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: any;
}

/**
 * Writes `text` as it is on a new connection to 127.0.0.1:port (what fetch would never send: a
 * malformed Host, an absolute-form target, a bad escape) and reads the answer until the server
 * closes the connection (send `Connection: close`) or `timeoutMs` passes. Chunked bodies are joined.
 */
export function rawRequest(port: number, text: string | Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      // A reset after the answer was written still leaves the answer to read.
      if (chunks.length > 0) resolve(parseAnswer(Buffer.concat(chunks).toString("utf8")));
      else reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (chunks.length === 0) reject(new Error("the connection closed without an answer"));
      else resolve(parseAnswer(Buffer.concat(chunks).toString("utf8")));
    });
  });
}

export function parseAnswer(raw: string): RawAnswer {
  const end = raw.indexOf("\r\n\r\n");
  const head = end === -1 ? raw : raw.slice(0, end);
  let body = end === -1 ? "" : raw.slice(end + 4);
  const [statusLine, ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (headers["transfer-encoding"] === "chunked") body = unchunked(body);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body, json };
}

function unchunked(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const line = rest.indexOf("\r\n");
    if (line === -1) return out;
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

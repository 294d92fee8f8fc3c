import type { CORSOptions } from "graphql-yoga";
import { CSRF_HEADERS } from "./csrf";

/**
 * Yoga's `cors` option. Off unless CORS_ORIGINS lists origins (Yoga's default reflects any Origin
 * with credentials allowed). Listed origins get CORS headers naming exactly them, without
 * credentials: provgraph authenticates with bearer tokens, never cookies.
 */
export function corsOptions(corsOrigins: readonly string[]): false | ((request: Request) => CORSOptions | false) {
  if (corsOrigins.length === 0) return false;
  return (request) => {
    const origin = request.headers.get("origin");
    let normalized: string | undefined;
    try {
      normalized = origin ? new URL(origin).origin : undefined;
    } catch {
      normalized = undefined;
    }
    if (!normalized || !corsOrigins.includes(normalized)) return false;
    return {
      origin: [origin!],
      credentials: false,
      methods: ["GET", "POST"],
      allowedHeaders: ["content-type", "accept", ...CSRF_HEADERS],
      maxAge: 600,
    };
  };
}

import type { Plugin } from "graphql-yoga";
import type { Logger } from "../../logger";
import { originAllowed } from "./addresses";
import { JSON_CONTENT_TYPE, quotedHeader, refusalBody } from "./refusal";

/**
 * Refuses HTTP requests (SSE included) whose Origin is neither this server's nor listed in
 * CORS_ORIGINS: 403 ORIGIN_NOT_ALLOWED, before anything is parsed or run. A cross-site page can
 * therefore neither read an answer nor cause a write, whatever the content type. CORS preflights
 * are Yoga's (answered before this runs, with CORS headers only for listed origins).
 */
export function useOriginCheck(corsOrigins: readonly string[], logger: Logger): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      const origin = request.headers.get("origin");
      if (originAllowed(origin, url.host, corsOrigins)) return;
      logger.info({ transport: "http", code: "ORIGIN_NOT_ALLOWED", path: url.pathname }, "request refused");
      endResponse(
        new fetchAPI.Response(refusalBody("ORIGIN_NOT_ALLOWED", `requests from origin '${quotedHeader(origin ?? "")}' are refused: only this server's own origin and CORS_ORIGINS may call it`), {
          status: 403,
          headers: { "content-type": JSON_CONTENT_TYPE },
        }),
      );
    },
  };
}

import type { Plugin } from "graphql-yoga";
import { type AuthServices, authorizeHttpRequest } from "../auth";
import type { MetricsMode } from "../config";
import type { ProvgraphMetrics } from "./provgraph-metrics";

/**
 * GET /metrics in Prometheus text format. Installed only when METRICS is `token` (a token with the
 * `metrics` or `admin` scope, as Prometheus sends it: `authorization: credentials` in its scrape
 * config) or `public`; off by default, where /metrics is not served at all.
 */
export function useMetricsRoute(metrics: ProvgraphMetrics, mode: Exclude<MetricsMode, "off">, auth: AuthServices): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== "/metrics") return;
      if (request.method !== "GET" && request.method !== "HEAD") {
        endResponse(new fetchAPI.Response(JSON.stringify({ error: { code: "METHOD_NOT_ALLOWED", message: "GET /metrics" } }), { status: 405, headers: { allow: "GET, HEAD", "content-type": "application/json" } }));
        return;
      }
      if (mode === "token") {
        const authorization = await authorizeHttpRequest(auth, request, "metrics");
        if (!authorization.ok) {
          endResponse(authorization.response);
          return;
        }
      }
      const { body, contentType } = await metrics.text();
      endResponse(new fetchAPI.Response(request.method === "HEAD" ? null : body, { status: 200, headers: { "content-type": contentType, "cache-control": "no-store" } }));
    },
  };
}

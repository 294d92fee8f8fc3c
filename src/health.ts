import type { Plugin } from "graphql-yoga";
import type { Database } from "./db/client";
import { maskSecrets } from "./secret-masking";

/**
 * GET /healthz: the process is alive. GET /readyz: the database answers a query.
 * As a Yoga plugin so in-process tests (yoga.fetch) see the same routes as HTTP clients.
 */
export function useHealthChecks(database: Database): Plugin {
  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname === "/healthz") {
        endResponse(fetchAPI.Response.json({ status: "ok" }));
      } else if (url.pathname === "/readyz") {
        try {
          await database.prisma.$queryRawUnsafe("SELECT 1");
          endResponse(fetchAPI.Response.json({ status: "ready", database: database.provider }));
        } catch (error) {
          endResponse(fetchAPI.Response.json({ status: "unavailable", reason: maskSecrets((error as Error).message) }, { status: 503 }));
        }
      }
    },
  };
}

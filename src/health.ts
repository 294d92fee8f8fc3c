import type { Plugin } from "graphql-yoga";
import type { Database } from "./db/client";
import type { AdmissionStats } from "./http/admission";
import type { EventLoopDelay } from "./http/event-loop-watch";
import { DATABASE_RETRY_AFTER_SECONDS } from "./services/errors";
import type { FeedSharingStatus } from "./services/feeds";

/** How long /readyz waits for the database's answer before it says unavailable (a hung connection must not hang the probe). */
export const READINESS_TIMEOUT_MS = 2_000;

/**
 * GET /healthz: the process is alive (answered without touching the database or any queue).
 * GET /readyz: the database answers a query (and how much heavy work runs and waits: admission
 * control; the event loop's delays over the last second). Its 503 body is plain: no driver text, no host or port.
 * Redis unreachable is no reason to take the instance out of service (it reads the feed log itself): still 200,
 * with status "degraded" and the feeds' polling mode in the body (docs/operating/outages.md).
 * As a Yoga plugin so in-process tests (yoga.fetch) see the same routes as HTTP clients.
 */
export function useHealthChecks(database: Database, options: { onUnavailable?: (error: unknown) => void; heavyWork?: () => AdmissionStats; feeds?: () => FeedSharingStatus; eventLoop?: () => EventLoopDelay | undefined } = {}): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== "/healthz" && url.pathname !== "/readyz") return;
      if (request.method !== "GET" && request.method !== "HEAD") {
        endResponse(fetchAPI.Response.json({ error: { code: "METHOD_NOT_ALLOWED", message: `${url.pathname} accepts GET only` } }, { status: 405, headers: { allow: "GET, HEAD" } }));
        return;
      }
      if (url.pathname === "/healthz") {
        endResponse(fetchAPI.Response.json({ status: "ok" }));
      } else if (url.pathname === "/readyz") {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            // The writer and the read connection(s): a replica down, or a read pool that cannot connect, is not ready either.
            Promise.all([...new Set([database.prisma, database.reader])].map((client) => client.$queryRawUnsafe("SELECT 1"))),
            new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS))),
          ]);
          const feeds = options.feeds?.();
          const eventLoop = options.eventLoop?.();
          endResponse(
            fetchAPI.Response.json({
              status: feeds?.mode === "polling" ? "degraded" : "ready",
              database: database.provider,
              ...(options.heavyWork ? { heavyWork: options.heavyWork() } : {}),
              ...(feeds ? { feeds: feedsBody(feeds) } : {}),
              ...(eventLoop ? { eventLoop } : {}),
            }),
          );
        } catch (error) {
          options.onUnavailable?.(error);
          endResponse(
            fetchAPI.Response.json(
              { status: "unavailable", code: "DATABASE_UNAVAILABLE", reason: "the database cannot be reached", retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
              { status: 503, headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) } },
            ),
          );
        } finally {
          clearTimeout(timer);
        }
      }
    },
  };
}

function feedsBody(feeds: FeedSharingStatus) {
  if (feeds.mode === "push") return { via: feeds.via, mode: "push" };
  return { via: feeds.via, mode: "polling", since: feeds.since?.toISOString(), reason: `${feeds.via} cannot be reached: this instance reads the feed log itself` };
}

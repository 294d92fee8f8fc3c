import { DomainError } from "../../services/errors";
import type { AdmissionLimits } from "./heavy-work-queue";

/** Seconds a refused client is asked to wait (Retry-After): a heavy turn is usually over by then. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 2;

/**
 * The server has as much heavy work running and waiting as it takes (HEAVY_CONCURRENCY,
 * HEAVY_QUEUE_DEPTH), or this request waited its longest (HEAVY_QUEUE_WAIT_MS): retryable, HTTP 503
 * with Retry-After. Nothing of the request ran.
 */
export class OverloadedError extends DomainError {
  readonly code = "OVERLOADED";
  readonly http = { status: 503, headers: { "Retry-After": String(OVERLOADED_RETRY_AFTER_SECONDS) } };
  constructor(reason: "QUEUE_FULL" | "WAITED_TOO_LONG", limits: AdmissionLimits) {
    super(
      reason === "QUEUE_FULL"
        ? `the server is busy: ${limits.concurrency} heavy requests are running and ${limits.queueDepth} waiting; retry in ${OVERLOADED_RETRY_AFTER_SECONDS} s`
        : `the server is busy: this request waited ${limits.maxWaitMs} ms for a turn; retry in ${OVERLOADED_RETRY_AFTER_SECONDS} s`,
      { reason, retryable: true, retryAfterSeconds: OVERLOADED_RETRY_AFTER_SECONDS },
    );
  }
}

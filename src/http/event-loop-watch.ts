import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Logger } from "../logger";

/** A window whose longest event-loop delay passes this is logged (docs: "Limits and budgets"). */
export const EVENT_LOOP_WARN_MS = 100;
const WINDOW_MS = 1_000;

export interface EventLoopDelay {
  /** Over the last full window (one second): the 99th percentile and the longest delay, ms. */
  p99Ms: number;
  maxMs: number;
  /** The longest delay since start, ms. */
  maxSinceStartMs: number;
}

/**
 * Watches how long the event loop keeps callbacks waiting (perf_hooks.monitorEventLoopDelay): no
 * request may hold it, so a second in which some callback waited more than EVENT_LOOP_WARN_MS is
 * logged ("event loop delayed", with the figures), and /readyz shows the last second's figures. A
 * delay is the loop being held by this process's own work — or the process not being given a core
 * at all on a starved machine: the log line says which by the process's CPU time in that second.
 */
export function watchEventLoop(logger: Logger): { delay(): EventLoopDelay; stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let last = { p99Ms: 0, maxMs: 0 };
  let maxSinceStartMs = 0;
  let cpu = process.cpuUsage();
  let wall = performance.now();
  const timer = setInterval(() => {
    const maxMs = round(histogram.max / 1e6);
    last = { p99Ms: round(histogram.percentile(99) / 1e6), maxMs };
    maxSinceStartMs = Math.max(maxSinceStartMs, maxMs);
    histogram.reset();
    const used = process.cpuUsage(cpu);
    const now = performance.now();
    if (maxMs > EVENT_LOOP_WARN_MS) {
      // CPU time of every thread of the process (the heavy-read threads too) over the window's wall time.
      logger.warn({ eventLoop: { ...last, windowMs: Math.round(now - wall), processCpuMs: Math.round((used.user + used.system) / 1000) } }, "event loop delayed");
    }
    cpu = process.cpuUsage();
    wall = now;
  }, WINDOW_MS);
  timer.unref();
  return {
    delay: () => ({ ...last, maxSinceStartMs }),
    stop: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

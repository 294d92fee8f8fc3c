// A preload that logs every event-loop gap over GAP_MS (default 60) on stderr, for finding the task that
// held the loop: `GAP_MS=40 node -r ./scripts/event-loop-gaps.cjs --cpu-prof dist/src/main.js`, then look at
// the CPU profile's samples between a gap's two instants (both in seconds of the monotonic clock, as the
// profile's timestamps, µs / 1e6). The main thread only: the heavy-read threads may take their time.
"use strict";
(() => {
  if (!require("node:worker_threads").isMainThread) return;
  const gapMs = Number(process.env.GAP_MS || 60);
  const seconds = (ns) => (Number(ns / 1000n) / 1e6).toFixed(3);
  let last = process.hrtime.bigint();
  setInterval(() => {
    const now = process.hrtime.bigint();
    const ms = Number(now - last) / 1e6;
    if (ms > gapMs) process.stderr.write(`event loop gap ${ms.toFixed(0)} ms from ${seconds(last)} to ${seconds(now)}\n`);
    last = now;
  }, 5).unref();
})();

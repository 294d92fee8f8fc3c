import { Worker } from "node:worker_threads";

/** One probe: what was running (the label set when it was sent), how long its answer took, its status (0: no answer). */
export interface Probe {
  label: string;
  ms: number;
  status: number;
}

export interface Prober {
  /** Labels the probes sent from now on, and the one in flight if it had none (what is running on the server meanwhile); null = idle, not counted. */
  label(label: string | null): void;
  /** Stops probing and resolves with every labelled probe. */
  stop(): Promise<Probe[]>;
}

/**
 * Probes a URL (e.g. /healthz) one request after another, `intervalMs` apart, from a worker thread
 * of its own: the test's own event loop (building bodies, reading big answers) never delays a
 * probe or its timing. A probe that gets no answer within `timeoutMs` counts as that long.
 */
export function startProber(url: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Prober {
  const worker = new Worker(PROBER, { eval: true, workerData: { url, intervalMs: options.intervalMs ?? 10, timeoutMs: options.timeoutMs ?? 30_000 } });
  const done = new Promise<Probe[]>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    label: (label) => worker.postMessage({ label }),
    stop: async () => {
      worker.postMessage({ stop: true });
      const probes = await done;
      await worker.terminate();
      return probes;
    },
  };
}

const PROBER = `
const http = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const probes = [];
let label = null;
let stopping = false;
// The probe in flight: one sent before a label was set but answered after counts for that label
// (a server that froze just after the probe was sent would otherwise hide the freeze).
let inFlight = null;
parentPort.on("message", (message) => {
  if (message.stop) stopping = true;
  else {
    label = message.label;
    if (inFlight && inFlight.label === null && label !== null) inFlight.label = label;
  }
});
const once = () =>
  new Promise((resolve) => {
    const probe = (inFlight = { label });
    const started = performance.now();
    let settled = false;
    const finish = (status) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      inFlight = null;
      if (probe.label !== null) probes.push({ label: probe.label, ms: performance.now() - started, status });
      resolve();
    };
    const request = http.get(workerData.url, { agent }, (response) => {
      response.resume();
      response.on("end", () => finish(response.statusCode));
    });
    request.on("error", () => finish(0));
    const timer = setTimeout(() => {
      request.destroy();
      finish(0);
    }, workerData.timeoutMs);
  });
(async () => {
  while (!stopping) {
    await once();
    await new Promise((resolve) => setTimeout(resolve, workerData.intervalMs));
  }
  agent.destroy();
  parentPort.postMessage(probes);
})();
`;

/** The q-quantile (0..1) of some durations, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

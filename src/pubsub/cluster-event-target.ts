import cluster from "node:cluster";

/** The IPC message a worker's feed notice travels in, through the primary to every worker (itself included). */
const NOTICE = "provgraph:feed-notice";

interface NoticeMessage {
  [NOTICE]: { type: string; detail: unknown };
}

const isNotice = (message: unknown): message is NoticeMessage => typeof message === "object" && message !== null && NOTICE in message;

/**
 * Feed notices between the workers of one server (WORKERS=N, src/workers.ts) when there is no Redis:
 * a worker's notice goes to the primary over the cluster's IPC channel and comes back to every
 * worker, its sender included — as a notice published to Redis comes back to its publisher — so
 * each worker's feeds hear every commit, whichever worker made it. An EventTarget as Yoga's pub/sub takes one.
 */
export function clusterEventTarget() {
  const local = new EventTarget();
  process.on("message", (message: unknown) => {
    if (isNotice(message)) local.dispatchEvent(new CustomEvent(message[NOTICE].type, { detail: message[NOTICE].detail }));
  });
  return {
    addEventListener: local.addEventListener.bind(local),
    removeEventListener: local.removeEventListener.bind(local),
    dispatchEvent(event: Event): boolean {
      process.send?.({ [NOTICE]: { type: event.type, detail: (event as CustomEvent).detail } } satisfies NoticeMessage);
      return true;
    },
  };
}

/** In the primary: every notice a worker sends goes to every worker. */
export function relayClusterNotices(): void {
  cluster.on("message", (_from, message: unknown) => {
    if (!isNotice(message)) return;
    for (const worker of Object.values(cluster.workers ?? {})) if (worker?.isConnected()) worker.send(message);
  });
}

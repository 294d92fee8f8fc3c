import { RequestAbortedError } from "../../services/errors";
import { OverloadedError } from "./overloaded-error";

export interface AdmissionLimits {
  /** Heavy requests run at once (HEAVY_CONCURRENCY). */
  concurrency: number;
  /** Heavy requests waiting for a turn at most (HEAVY_QUEUE_DEPTH); one more is refused with OVERLOADED. */
  queueDepth: number;
  /** How long one may wait for its turn (HEAVY_QUEUE_WAIT_MS); then it is refused with OVERLOADED. */
  maxWaitMs: number;
}

export interface AdmissionStats {
  running: number;
  queued: number;
  /** Since start: heavy requests admitted, refused (queue full or waited too long), and left while waiting (their client went away). */
  admitted: number;
  refused: number;
  abandoned: number;
}

interface Waiter {
  admit(): void;
  timer: NodeJS.Timeout;
  /** Stops listening to the request's signal. */
  forget(): void;
}

/**
 * Admission control for heavy work (issue 13, point 4): at most `concurrency` heavy requests run,
 * at most `queueDepth` wait, first come first served; beyond, a request is refused at once rather
 * than queued without bound (what let 200 concurrent closures hold /healthz for 12 s and the heap
 * near 1 GB). A counting semaphore with a bounded FIFO: small enough to own. A request whose client
 * goes away while it waits leaves the queue (its turn goes to the next), rather than running for
 * no one.
 */
export class HeavyWorkQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private admitted = 0;
  private refused = 0;
  private abandoned = 0;

  constructor(readonly limits: AdmissionLimits) {}

  /**
   * Resolves with the release of a turn (call it once, when the work is done); rejects with
   * OverloadedError, or RequestAbortedError once `signal` (the request's) aborts while it waits.
   */
  enter(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new RequestAbortedError());
    if (this.running < this.limits.concurrency && this.waiting.length === 0) return Promise.resolve(this.take());
    if (this.waiting.length >= this.limits.queueDepth) {
      this.refused += 1;
      return Promise.reject(new OverloadedError("QUEUE_FULL", this.limits));
    }
    return new Promise((resolve, reject) => {
      const leave = (error: Error) => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        waiter.forget();
        reject(error);
      };
      const onAbort = () => {
        clearTimeout(waiter.timer);
        this.abandoned += 1;
        leave(new RequestAbortedError());
      };
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer);
          waiter.forget();
          resolve(this.take());
        },
        timer: setTimeout(() => {
          this.refused += 1;
          leave(new OverloadedError("WAITED_TOO_LONG", this.limits));
        }, this.limits.maxWaitMs),
        forget: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Runs `work` in a turn of its own (none once `signal` aborts while it waits). */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.enter(signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  stats(): AdmissionStats {
    return { running: this.running, queued: this.waiting.length, admitted: this.admitted, refused: this.refused, abandoned: this.abandoned };
  }

  private take(): () => void {
    this.running += 1;
    this.admitted += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.waiting.shift()?.admit();
    };
  }
}

import fs from "node:fs";
import path from "node:path";
import { Piscina } from "piscina";
import type { ReadDatabase } from "../../db/client";
import { RequestAbortedError } from "../errors";
import { type AnswerPieces, joinedAnswer } from "./answer-pieces";
import { QueryTimeoutError, type ReportedError, revive } from "./errors";
import type { HeavyReadThreadData } from "./heavy-read-thread";
import { HEAVY_READS, type HeavyReadArgs, type HeavyReadName, type HeavyReadResult } from "./registered-reads";
import { type HeavyReadOutcome, type HeavyReadRuntime, type HeavyReadTask, report, runJob, WARM_UP } from "./run-job";

export interface HeavyReadsOptions {
  /** DATABASE_URL and DATABASE_READ_URL: each thread opens its own read connection(s) on them. */
  databaseUrl: string;
  readUrl: string | null;
  /** HEAVY_READ_THREADS: threads at most; 0 runs heavy reads on the event loop (tests, debugging). */
  threads: number;
  /** QUERY_BUDGET_MS: how long a request's heavy reads may take, together. */
  budgetMs: number;
  /** RESULT_MAX_NODES: the most nodes one answer may carry back. */
  maxResultNodes: number;
  /** An idle thread ends after this long (its connection with it); the next heavy read starts one again. */
  idleTimeoutMs?: number;
  /** How long a thread past its deadline gets to stop by itself before it is terminated (default 100 ms). */
  terminateGraceMs?: number;
}

/**
 * One request's time budget: its heavy reads share one deadline, budgetMs after the first of them
 * starts (waiting for a thread to start is not counted: see HeavyReads.warm). `signal`: the
 * request's, aborted when its client goes away; its heavy reads then stop (HeavyReads.run).
 */
export class RequestBudget {
  private deadlineAt: number | undefined;
  constructor(
    readonly budgetMs: number,
    readonly signal?: AbortSignal,
  ) {}

  deadline(): number {
    return (this.deadlineAt ??= Date.now() + this.budgetMs);
  }
}

export interface HeavyReadStats {
  threads: number;
  running: number;
  queued: number;
  /** Since start: heavy reads completed (answered or refused), ended by their time budget, and stopped because their client went away. */
  completed: number;
  timedOut: number;
  abandoned: number;
}

/** How long a thread past its deadline gets to stop by itself (QUERY_TIMEOUT from its own check) before it is terminated. */
const TERMINATE_GRACE_MS = 100;
const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;
/**
 * Heavy-read threads run at a lower CPU priority (Linux nice +5; elsewhere a no-op): on a small
 * machine the event loop, which answers every other client, gets the cores first.
 */
const THREAD_NICE_INCREMENT = 5;

/**
 * Heavy reads (graph views, evidence packages and their verification, PROV-JSON, closures) run off
 * the event loop, in a pool of worker threads (piscina) each with a read connection of its own
 * (docs: "Limits and budgets"). `run` answers the job's plain result, or throws its typed error;
 * past the request's time budget the job ends — dropped from the queue, or its thread terminated
 * (its connection closed; the pool starts another) — and `run` throws QUERY_TIMEOUT. A read whose
 * request's client went away stops too: one still waiting for a thread does not run, one running
 * stops at its next check of the clock (run-job.ts); `run` throws REQUEST_ABORTED.
 */
export class HeavyReads {
  private readonly pool: Piscina | undefined;
  private warming: Promise<void> | undefined;
  private closed = false;
  private running = 0;
  private completed = 0;
  private timedOut = 0;
  private abandoned = 0;

  constructor(
    readonly options: HeavyReadsOptions,
    /** The app's own database: in-process runs read it, and every thread's statements are counted on it. */
    private readonly local: ReadDatabase & { countStatements(count: number): void },
  ) {
    if (options.threads > 0) {
      const { file, fromSources } = threadModule();
      const threadData: HeavyReadThreadData = { databaseUrl: options.databaseUrl, readUrl: options.readUrl, maxResultNodes: options.maxResultNodes, statementTimeoutMs: options.budgetMs };
      this.pool = new Piscina({
        filename: file,
        minThreads: 0,
        maxThreads: options.threads,
        idleTimeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
        concurrentTasksPerWorker: 1,
        niceIncrement: THREAD_NICE_INCREMENT,
        workerData: threadData,
        // From the sources the thread registers its own TypeScript loader; the parent's (tsx's --import) is not passed on.
        ...(fromSources ? { execArgv: [] } : {}),
      });
    }
  }

  /** Runs a heavy read by name within the request's budget (default: a budget of its own, QUERY_BUDGET_MS). */
  async run<N extends HeavyReadName>(name: N, args: HeavyReadArgs<N>, budget: RequestBudget = new RequestBudget(this.options.budgetMs)): Promise<HeavyReadResult<N>> {
    // Its client already gone: not even queued.
    if (budget.signal?.aborted) {
      this.abandoned += 1;
      throw new RequestAbortedError();
    }
    this.running += 1;
    let outcome: HeavyReadOutcome;
    const gone = goneFlag(budget.signal);
    try {
      if (this.pool) await this.warm();
      const task: HeavyReadTask = { name, args, deadline: budget.deadline(), budgetMs: budget.budgetMs, ...(gone ? { gone: gone.flag } : {}) };
      outcome = this.pool ? await this.inThread(task) : await runJob(HEAVY_READS, this.inProcess(), task);
    } finally {
      gone?.release();
      this.running -= 1;
      this.completed += 1;
    }
    this.local.countStatements(outcome.statements);
    if (outcome.ok) return (outcome.pieces ? await joinedAnswer(outcome.value as AnswerPieces) : outcome.value) as HeavyReadResult<N>;
    const error = this.pool ? revive(outcome.error as ReportedError) : outcome.error;
    const code = (error as { code?: unknown }).code;
    if (code === "QUERY_TIMEOUT") this.timedOut += 1;
    if (code === "REQUEST_ABORTED") this.abandoned += 1;
    throw error;
  }

  /**
   * Starts every thread and opens its connection, once (again after a thread was terminated): a
   * thread takes a second or more to load, which no request's time budget should pay. The server
   * calls it at start; the first heavy read waits for it otherwise.
   */
  warm(): Promise<void> {
    if (!this.pool) return Promise.resolve();
    const pool = this.pool;
    return (this.warming ??= Promise.all(Array.from({ length: this.options.threads }, () => pool.run(WARM_UP)))
      .then(() => undefined)
      .catch((error: unknown) => {
        this.warming = undefined;
        // Stopped while starting (the server shut down): nothing went wrong.
        if (!this.closed) throw error;
      }));
  }

  stats(): HeavyReadStats {
    return { threads: this.pool?.threads.length ?? 0, running: this.running, queued: this.pool?.queueSize ?? 0, completed: this.completed, timedOut: this.timedOut, abandoned: this.abandoned };
  }

  /** Ends every thread (running reads fail) and closes their connections. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.destroy();
  }

  private async inThread(task: HeavyReadTask): Promise<HeavyReadOutcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(0, task.deadline - Date.now()) + (this.options.terminateGraceMs ?? TERMINATE_GRACE_MS));
    try {
      return (await this.pool!.run(task, { signal: controller.signal })) as HeavyReadOutcome;
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      // A running task's thread was terminated: the next heavy read waits for its replacement to start, not its budget.
      this.warming = undefined;
      return { ok: false, error: report(new QueryTimeoutError(task.budgetMs)), statements: 0 };
    } finally {
      clearTimeout(timer);
    }
  }

  private runtime: HeavyReadRuntime | undefined;
  private inProcess(): HeavyReadRuntime {
    return (this.runtime ??= { database: this.local, readers: new Map(), maxResultNodes: this.options.maxResultNodes });
  }
}

/**
 * A flag the read's thread can see (a SharedArrayBuffer crosses to a thread shared, not copied), set
 * when the request's client goes away: a task still queued ends as soon as a thread takes it, a
 * running one at its next check (run-job.ts). Terminating the thread instead would cost the next
 * read a thread's start.
 */
function goneFlag(signal: AbortSignal | undefined): { flag: Int32Array; release(): void } | undefined {
  if (!signal) return undefined;
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const onAbort = () => Atomics.store(flag, 0, 1);
  signal.addEventListener("abort", onAbort, { once: true });
  return { flag, release: () => signal.removeEventListener("abort", onAbort) };
}

/**
 * The module a thread runs: the compiled heavy-read-thread.js beside this file in the built server;
 * from the sources (jest, tsx), a small CommonJS file that registers tsx in the thread first. A
 * build that left it out fails at start, not at the first heavy read.
 */
function threadModule(): { file: string; fromSources: boolean } {
  const fromSources = __filename.endsWith(".ts");
  const file = path.join(__dirname, fromSources ? "heavy-read-thread-from-sources.cjs" : "heavy-read-thread.js");
  if (!fs.existsSync(file)) throw new Error(`the heavy-read thread module ${file} is missing`);
  return { file, fromSources };
}

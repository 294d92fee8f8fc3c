import { ProvenanceError } from "../../../plugins/errors";
import type { ReadDatabase } from "../../db/client";
import { whileStoppable } from "../../db/statement-stop";
import { databaseOutageOf, RequestAbortedError } from "../errors";
import { QueryTimeoutError, type ReportedError } from "./errors";
import type { HeavyReadContext, HeavyReadJobs } from "./heavy-read-job";

/** One heavy read to run: which, with what, and until when. */
export interface HeavyReadTask {
  name: string;
  args: unknown;
  /** Epoch milliseconds. */
  deadline: number;
  budgetMs: number;
  /** Set to 1 by the pool when the request's client went away (heavy-reads.ts goneFlag): the read stops at its next check. */
  gone?: Int32Array;
}

/** The task a thread is started with: it opens its database and answers null. */
export const WARM_UP: HeavyReadTask = { name: "", args: null, deadline: Number.POSITIVE_INFINITY, budgetMs: 0 };

/**
 * How a heavy read ended, and the statements it ran (added to the app's statement count). From a
 * thread, an answer with long lists comes in pieces (`pieces`: its value is AnswerPieces).
 */
export type HeavyReadOutcome = { ok: true; value: unknown; statements: number; pieces?: true } | { ok: false; error: unknown; statements: number };

/** What a thread keeps across tasks: its database and the rooms' readers over it. */
export interface HeavyReadRuntime {
  database: ReadDatabase;
  readers: Map<unknown, unknown>;
  maxResultNodes: number;
  /**
   * A thread's, running one task at a time: a long SQLite statement of the task checks its budget and
   * its client as it runs (statement-stop.ts). Not on the event loop, where tasks interleave.
   */
  stoppableStatements?: boolean;
}

/** Runs a task's job over the runtime's database; never throws (the outcome says how it went). */
export async function runJob(jobs: HeavyReadJobs, runtime: HeavyReadRuntime, task: HeavyReadTask): Promise<HeavyReadOutcome> {
  const { database, readers } = runtime;
  const before = database.statementCount();
  const statements = () => database.statementCount() - before;
  const job = jobs[task.name];
  if (!job) return { ok: false, error: new Error(`no heavy read is registered as '${task.name}'`), statements: 0 };
  const ctx: HeavyReadContext = {
    database,
    reader: database.reader,
    use: <T>(make: (db: ReadDatabase) => T): T => {
      if (!readers.has(make)) readers.set(make, make(database));
      return readers.get(make) as T;
    },
    deadline: task.deadline,
    checkDeadline: () => {
      if (task.gone && Atomics.load(task.gone, 0) === 1) throw new RequestAbortedError();
      if (Date.now() >= task.deadline) throw new QueryTimeoutError(task.budgetMs);
    },
    maxResultNodes: runtime.maxResultNodes,
  };
  try {
    ctx.checkDeadline();
    const value = runtime.stoppableStatements ? await whileStoppable(ctx.checkDeadline, () => job(task.args, ctx)) : await job(task.args, ctx);
    // An answer ready only after the deadline is not answered: the budget bounds what the client waits for, not just where the work looks at the clock.
    ctx.checkDeadline();
    return { ok: true, value, statements: statements() };
  } catch (error) {
    // PostgreSQL ends a statement that outlives the budget (statement_timeout): the budget ran out.
    if (cancelledByStatementTimeout(error)) return { ok: false, error: new QueryTimeoutError(task.budgetMs), statements: statements() };
    return { ok: false, error: databaseOutageOf(error) ?? error, statements: statements() };
  }
}

/** Whether an error, or one it was caused by, is PostgreSQL's query_canceled (57014) from statement_timeout. */
function cancelledByStatementTimeout(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at !== null && typeof at === "object" && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    const { code, originalCode, message } = at as { code?: unknown; originalCode?: unknown; message?: unknown };
    if (code === "57014" || originalCode === "57014") return true;
    if (typeof message === "string" && message.includes("canceling statement due to statement timeout")) return true;
  }
  return false;
}

/** An error as it crosses a thread boundary (structured clone keeps neither classes nor codes). */
export function report(error: unknown): ReportedError {
  if (error instanceof ProvenanceError) {
    const { code, message, details } = error;
    const http = (error as { http?: { status: number; headers: Record<string, string> } }).http;
    return { kind: "domain", code, message, details: { ...details }, ...(http ? { http } : {}) };
  }
  const fault = error instanceof Error ? error : new Error(String(error));
  return { kind: "fault", name: fault.name, message: fault.message, stack: fault.stack };
}

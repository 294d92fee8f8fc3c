import { workerData } from "node:worker_threads";
import { move, transferableSymbol, valueSymbol } from "piscina";
import { openReadDatabase } from "../../db/client";
import { answerPieces } from "./answer-pieces";
import { HEAVY_READS } from "./registered-reads";
import { type HeavyReadOutcome, type HeavyReadRuntime, type HeavyReadTask, report, runJob, WARM_UP } from "./run-job";

/** What the pool hands each thread when it starts it. */
export interface HeavyReadThreadData {
  databaseUrl: string;
  readUrl: string | null;
  maxResultNodes: number;
  /** PostgreSQL: statements running longer are cancelled by the server (the request budget). */
  statementTimeoutMs: number;
}

const data = workerData as HeavyReadThreadData;
let runtime: HeavyReadRuntime | undefined;

/**
 * A heavy-read thread's task handler (piscina calls it, one task at a time): opens the thread's
 * read-only database on first use and keeps it; errors come back as reports (a class and its code
 * do not survive the thread boundary).
 */
export default async function runHeavyRead(task: HeavyReadTask): Promise<HeavyReadOutcome | ReturnType<typeof move>> {
  runtime ??= {
    database: openReadDatabase(data.databaseUrl, { readUrl: data.readUrl, statementTimeoutMs: data.statementTimeoutMs }),
    readers: new Map(),
    maxResultNodes: data.maxResultNodes,
    stoppableStatements: true,
  };
  if (task.name === WARM_UP.name) {
    await runtime.database.reader.$connect();
    return { ok: true, value: null, statements: 0 };
  }
  const outcome = await runJob(HEAVY_READS, runtime, task);
  if (!outcome.ok) return { ...outcome, error: report(outcome.error) };
  const pieces = answerPieces(outcome.value);
  if (!pieces) return outcome;
  // An answer with long lists goes in pieces (answer-pieces.ts), their bytes moved, not copied (piscina's transfer list).
  const moved: HeavyReadOutcome = { ...outcome, value: pieces, pieces: true };
  return move({ [transferableSymbol]: pieces.buffers, [valueSymbol]: moved });
}

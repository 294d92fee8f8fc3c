import type { Db } from "../db/client";
import { canonicalJson } from "../services/canonical-json";
import { type Invariant, type Violation, ViolationSample } from "../services/integrity";
import type { RunFacts } from "./event-facts";
import { foldRun, type RunFold } from "./run-fold";
import { appendTo } from "../services/grouping";

/** Runs read per page (their events, executions and OpenLineage state: three statements a page). */
const RUNS_PER_PAGE = 500;

type ExecutionRow = Awaited<ReturnType<Db["execution"]["findMany"]>>[number];
type RunRow = Awaited<ReturnType<Db["openLineageRun"]["findMany"]>>[number];

const time = (value: Date | null) => (value === null ? null : value.toISOString());

/** Where the stored state of a run differs from the fold of its stored events: [column, stored, folded]. */
function differences(fold: RunFold, execution: ExecutionRow, run: RunRow): [string, unknown, unknown][] {
  const pairs: [string, unknown, unknown][] = [
    ["status", execution.status, fold.status],
    ["startedAt", time(execution.startedAt), time(fold.startedAt)],
    ["endedAt", time(execution.endedAt), time(fold.endedAt)],
    ["params", execution.params, Object.keys(fold.params).length > 0 ? canonicalJson(fold.params) : null],
    ["agent", execution.agent, fold.agent],
    ["parentRunId", execution.parentRunId, fold.parent?.runId ?? null],
    ["pinCodeVersion", execution.pinCodeVersion, fold.codeVersion],
    ["pinImageDigest", execution.pinImageDigest, fold.imageDigest],
    ["events", run.events, fold.events],
    ["firstEventTime", time(run.firstEventTime), time(fold.firstEventTime)],
    ["lastEventTime", time(run.lastEventTime), time(fold.lastEventTime)],
    ["job", `${run.jobNamespace}/${run.jobName}`, `${fold.job.namespace}/${fold.job.name}`],
    ["failureMessage", run.failureMessage, fold.failure?.message ?? null],
  ];
  return pairs.filter(([, stored, folded]) => stored !== folded);
}

/** The violations of these runs (their OpenLineage rows given), reading their executions and events. */
async function examine(db: Db, runs: readonly RunRow[]): Promise<Violation[]> {
  const runIds = runs.map((r) => r.runId);
  // bounded: a page of RUNS_PER_PAGE runs (or the suspects among them).
  const [executions, events] = await Promise.all([
    db.execution.findMany({ where: { runId: { in: runIds } } }),
    db.openLineageEvent.findMany({ where: { runId: { in: runIds }, kind: "RUN" }, select: { runId: true, eventKey: true, facts: true } }),
  ]);
  const executionOf = new Map(executions.map((x) => [x.runId, x]));
  const eventsOf = new Map<string, { eventKey: string; facts: RunFacts }[]>();
  for (const e of events) appendTo(eventsOf, e.runId!, { eventKey: e.eventKey, facts: JSON.parse(e.facts) as RunFacts });
  const found: Violation[] = [];
  for (const run of runs) {
    const execution = executionOf.get(run.runId);
    const stored = eventsOf.get(run.runId) ?? [];
    if (!execution) {
      found.push({ subject: run.runId, detail: "has OpenLineage state but no execution" });
      continue;
    }
    if (stored.length === 0) {
      if (run.events !== 0 || execution.status !== "STARTED") found.push({ subject: run.runId, detail: `no stored events, yet ${run.events} counted and status ${execution.status} (a parent-only stub is 0 and STARTED)` });
      continue;
    }
    for (const [column, was, folded] of differences(foldRun(stored), execution, run)) {
      found.push({ subject: run.runId, detail: `${column} is ${JSON.stringify(was)}, the fold of its ${stored.length} stored events gives ${JSON.stringify(folded)}` });
    }
  }
  return found;
}

/**
 * An OpenLineage run's state is a pure function of its stored events (src/openlineage/run-fold.ts):
 * the execution's derived columns and the OpenLineageRun row equal foldRun of the events as stored.
 * A run named only as a parent (no events of its own) is a stub: 0 events, still STARTED.
 * A run is read in three statements, so one ingested meanwhile can look inconsistent: a run found
 * wrong is read again, and only what is still wrong then is reported.
 */
export const openLineageRunState: Invariant = {
  name: "openlineage-run-state",
  description: "Every OpenLineage run's state (execution status, times, params, pins, parent; event counts, failure) equals the fold of its stored events.",
  async check(db: Db, { sample }) {
    const found = new ViolationSample(sample);
    let checked = 0;
    let after = "";
    for (;;) {
      const runs = await db.openLineageRun.findMany({ where: { runId: { gt: after } }, orderBy: { runId: "asc" }, take: RUNS_PER_PAGE });
      if (runs.length === 0) break;
      checked += runs.length;
      const suspects = [...new Set((await examine(db, runs)).map((v) => v.subject))];
      // bounded: suspects are runs of this page.
      if (suspects.length > 0) for (const violation of await examine(db, await db.openLineageRun.findMany({ where: { runId: { in: suspects } } }))) found.add(violation);
      after = runs[runs.length - 1].runId;
      if (runs.length < RUNS_PER_PAGE) break;
    }
    return found.result(checked);
  },
};

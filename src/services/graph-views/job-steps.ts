import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { InvalidArgumentError, NotFoundError } from "../errors";
import type { OperationId } from "../ids";
import type { OperationKind } from "../records";

/** An OpenLineage job, by namespace and name. */
export interface JobName {
  namespace: string;
  name: string;
}

/** The job's latest runs drawn when a graph is asked for one job (`runs`), and at most. */
export const DEFAULT_JOB_RUNS = 1;
export const MAX_JOB_RUNS = 100;

/** A job drawn as a pipeline: its steps (jobs), and the runs drawn at each. */
export interface JobSteps {
  /** Ascending step numbers, 1…k. */
  steps: { step: number; job: JobName; operation: { id: OperationId; name: string; version: string; kind: OperationKind } }[];
  /** runId → its step. */
  stepOf: Map<string, number>;
}

/**
 * An OpenLineage job as a pipeline (docs: "Lineage and graphs"). OpenLineage has no steps table: a
 * job's structure is in the parent facets of its runs. The steps of a job are its child jobs — the
 * jobs whose runs name one of the job's runs as their parent (an Airflow DAG's tasks, a Spark
 * application's jobs) — numbered 1, 2, … in the order they first started among the runs drawn; a
 * job whose runs have no children is a pipeline of one step, itself. The runs drawn are the job's
 * latest `runs` runs (by start, else by when they were recorded) and their children.
 * NOT_FOUND (field `job`) when the job has no runs.
 */
export async function jobSteps(db: Db, job: JobName, runs: number): Promise<JobSteps> {
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_JOB_RUNS) throw new InvalidArgumentError("runs", `must be from 1 to ${MAX_JOB_RUNS}, got ${runs}`);
  const own = await db.openLineageRun.findMany({ where: { jobNamespace: job.namespace, jobName: job.name }, select: { runId: true, firstEventTime: true } });
  if (own.length === 0) throw new NotFoundError("job", `${job.namespace}/${job.name}`, "job");
  const executions = await inChunks(own.map((r) => r.runId), (chunk) => db.execution.findMany({ where: { runId: { in: chunk } }, select: { runId: true, startedAt: true, recordedAt: true, operation: true } }));
  const startOf = (e: { startedAt: Date | null; recordedAt: Date }) => (e.startedAt ?? e.recordedAt).getTime();
  const latest = [...executions].sort((a, b) => startOf(b) - startOf(a) || (a.runId < b.runId ? 1 : -1)).slice(0, runs);
  const children = await db.execution.findMany({
    // bounded: at most MAX_JOB_RUNS latest runs (checked above)
    where: { parentRunId: { in: latest.map((e) => e.runId) } },
    select: { runId: true, startedAt: true, recordedAt: true, operation: true },
  });
  const drawn = children.length > 0 ? children : latest;
  const jobs = await inChunks(drawn.map((e) => e.runId), (chunk) => db.openLineageRun.findMany({ where: { runId: { in: chunk } }, select: { runId: true, jobNamespace: true, jobName: true } }));
  const jobOf = new Map(jobs.map((r) => [r.runId, { namespace: r.jobNamespace, name: r.jobName }]));
  // A step per job, in the order the jobs first started; a run of a job OpenLineage did not name is a step of its own.
  const firstStart = new Map<string, { start: number; job: JobName; operation: (typeof drawn)[number]["operation"] }>();
  for (const e of drawn) {
    const jobName = jobOf.get(e.runId) ?? { namespace: "", name: e.operation.name };
    const key = `${jobName.namespace}\u0000${jobName.name}`;
    const known = firstStart.get(key);
    if (!known || startOf(e) < known.start) firstStart.set(key, { start: startOf(e), job: jobName, operation: e.operation });
  }
  const ordered = [...firstStart.entries()].sort(([ka, a], [kb, b]) => a.start - b.start || (ka < kb ? -1 : ka > kb ? 1 : 0));
  const stepOfJob = new Map(ordered.map(([key], i) => [key, i + 1]));
  const stepOf = new Map<string, number>();
  for (const e of drawn) {
    const jobName = jobOf.get(e.runId) ?? { namespace: "", name: e.operation.name };
    stepOf.set(e.runId, stepOfJob.get(`${jobName.namespace}\u0000${jobName.name}`)!);
  }
  return {
    steps: ordered.map(([, value], i) => ({
      step: i + 1,
      job: value.job,
      operation: { id: value.operation.id as OperationId, name: value.operation.name, version: value.operation.version, kind: value.operation.kind as OperationKind },
    })),
    stepOf,
  };
}

import { inChunks } from "../db/chunked-lists";
import type { Db } from "../db/client";
import type { Prisma } from "../generated/sqlite/client";
import type { RunId } from "../services/ids";
import type { KeysetPage } from "../services/pagination";
import type { DatasetName } from "./event-facts";
import type { EventWarning } from "./schema-validator";

/** A stored OpenLineage event: the event exactly as it was sent, and when provgraph received it. */
export interface StoredEventRecord {
  id: number;
  eventKey: string;
  kind: "RUN" | "JOB" | "DATASET";
  eventType: string | null;
  eventTime: Date;
  runId: RunId | null;
  job: DatasetName | null;
  dataset: DatasetName | null;
  producer: string;
  event: unknown;
  /** What the event holds that the schema's letter refuses and provgraph accepted. */
  warnings: EventWarning[];
  receivedAt: Date;
}

/** The OpenLineage side of a run: its job, how many events it reported and when, and its failure. */
export interface OpenLineageRunRecord {
  runId: RunId;
  job: DatasetName;
  events: number;
  firstEventTime: Date | null;
  lastEventTime: Date | null;
  failure: { message: string; programmingLanguage: string | null; stackTrace: string | null } | null;
}

export type StoredEventSelector = { runId: RunId } | { job: DatasetName } | { dataset: DatasetName };

/** Reads the stored events and the OpenLineage state of runs, a batch of ids per statement. */
export class OpenLineageReader {
  constructor(private readonly db: Db) {}

  /** Stored events of a run, a job or a dataset, in the order they were stored (keyset on the row id). */
  async events(selector: StoredEventSelector, page: KeysetPage<number>): Promise<StoredEventRecord[]> {
    const where: Prisma.OpenLineageEventWhereInput =
      "runId" in selector
        ? { runId: selector.runId }
        : "job" in selector
          ? { jobNamespace: selector.job.namespace, jobName: selector.job.name }
          : { datasetNamespace: selector.dataset.namespace, datasetName: selector.dataset.name };
    const range: Prisma.IntFilter = {};
    if (page.after !== undefined) range.gt = page.after;
    if (page.before !== undefined) range.lt = page.before;
    if (page.after !== undefined || page.before !== undefined) where.id = range;
    const rows = await this.db.openLineageEvent.findMany({ where, orderBy: { id: page.inverted ? "desc" : "asc" }, take: page.limit });
    return rows.map((row) => ({
      id: row.id,
      eventKey: row.eventKey,
      kind: row.kind as StoredEventRecord["kind"],
      eventType: row.eventType,
      eventTime: row.eventTime,
      runId: row.runId as RunId | null,
      job: row.jobNamespace !== null && row.jobName !== null ? { namespace: row.jobNamespace, name: row.jobName } : null,
      dataset: row.datasetNamespace !== null && row.datasetName !== null ? { namespace: row.datasetNamespace, name: row.datasetName } : null,
      producer: row.producer,
      event: JSON.parse(row.body),
      warnings: row.warnings === null ? [] : (JSON.parse(row.warnings) as EventWarning[]),
      receivedAt: row.receivedAt,
    }));
  }

  async runs(runIds: readonly RunId[]): Promise<(OpenLineageRunRecord | null)[]> {
    const rows = await inChunks(new Set(runIds as readonly string[]), (chunk) => this.db.openLineageRun.findMany({ where: { runId: { in: chunk } } }));
    const byId = new Map(
      rows.map((row) => [
        row.runId,
        {
          runId: row.runId as RunId,
          job: { namespace: row.jobNamespace, name: row.jobName },
          events: row.events,
          firstEventTime: row.firstEventTime,
          lastEventTime: row.lastEventTime,
          failure: row.failureMessage === null ? null : { message: row.failureMessage, programmingLanguage: row.failureLanguage, stackTrace: row.failureStackTrace },
        },
      ]),
    );
    return runIds.map((runId) => byId.get(runId) ?? null);
  }
}

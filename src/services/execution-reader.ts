import { inChunks } from "../db/chunked-lists";
import type { Db } from "../db/client";
import type { Execution, Prisma } from "../generated/sqlite/client";
import type { ArtifactId, RunId, SpecId } from "./ids";
import type { KeysetPage } from "./pagination";
import { type ExecutionLinkRecord, type ExecutionRecord, type ExecutionStatus, type LinkDirection, toExecutionRecord } from "./records";
import { groupInOrder } from "./batching";
import { InvalidCursorError } from "./errors";
import { jobOperationVersion } from "./job-names";
import { type RowsById, storedBoolean, storedTime } from "../db/rows-by-id";

export interface ExecutionFilter {
  /** Operation name (any version). */
  operation?: string | null;
  /** An OpenLineage job's or an operation's name: the same as `operation` (both given: both must hold). */
  job?: string | null;
  /** The OpenLineage namespace of the run's job. */
  namespace?: string | null;
  status?: ExecutionStatus | null;
  specId?: SpecId | null;
  pipeline?: string | null;
  recordedAfter?: Date | null;
  recordedBefore?: Date | null;
  startedAfter?: Date | null;
  startedBefore?: Date | null;
}

/** How executions are listed, newest first: by when provgraph recorded them, or by when they started (not started last). */
export type ExecutionOrder = "RECORDED_AT" | "STARTED_AT";

/**
 * A place in a listing: an execution, and for STARTED_AT its start as the listing saw it (an
 * OpenLineage run's start may be reported later; the place stays where the page left it).
 */
export interface ExecutionPosition {
  runId: RunId;
  startedAt?: Date | null;
}

/** An execution row's columns (every column of the Execution table but its relations). */
const EXECUTION_COLUMNS = [
  "runId",
  "specId",
  "operationId",
  "status",
  "params",
  "agent",
  "startedAt",
  "endedAt",
  "recordedAt",
  "pinInputVersions",
  "pinCodeVersion",
  "pinImageDigest",
  "pinDeterministic",
  "businessDate",
  "pipeline",
  "step",
  "parentRunId",
] as const satisfies readonly (keyof Execution)[];

/** The conditions of a listing's filter (ANDed). */
function filterConditions(filter: ExecutionFilter): Prisma.ExecutionWhereInput[] {
  const where: Prisma.ExecutionWhereInput[] = [];
  const names = [filter.operation, filter.job].filter((name): name is string => name != null);
  for (const name of names) where.push({ operation: { name } });
  if (filter.namespace != null) where.push({ operation: { version: jobOperationVersion(filter.namespace) } });
  if (filter.status) where.push({ status: filter.status });
  if (filter.specId) where.push({ specId: filter.specId });
  if (filter.pipeline != null) where.push({ pipeline: filter.pipeline });
  if (filter.recordedAfter) where.push({ recordedAt: { gte: filter.recordedAfter } });
  if (filter.recordedBefore) where.push({ recordedAt: { lt: filter.recordedBefore } });
  if (filter.startedAfter) where.push({ startedAt: { gte: filter.startedAfter } });
  if (filter.startedBefore) where.push({ startedAt: { lt: filter.startedBefore } });
  return where;
}

/** Reads executions and their artifact links, a batch of ids per statement. */
export class ExecutionReader {
  constructor(
    private readonly db: Db,
    private readonly rows: RowsById,
  ) {}

  /** The executions of a loader's batch: one statement past Prisma (src/db/rows-by-id.ts). */
  async byRunIds(runIds: readonly RunId[]): Promise<(ExecutionRecord | null)[]> {
    const found = await this.rows.read("Execution", "runId", EXECUTION_COLUMNS, runIds);
    const byId = new Map<string, ExecutionRecord>();
    for (const [runId, row] of found) {
      const execution = {
        ...(row as unknown as Execution),
        startedAt: storedTime(row.startedAt),
        endedAt: storedTime(row.endedAt),
        recordedAt: storedTime(row.recordedAt)!,
        pinDeterministic: storedBoolean(row.pinDeterministic),
        step: row.step === null ? null : Number(row.step),
      };
      byId.set(runId, toExecutionRecord(execution));
    }
    return runIds.map((runId) => byId.get(runId) ?? null);
  }

  /**
   * Newest first (docs: "Listings"): by recordedAt, ties by runId (RECORDED_AT), or by startedAt, not
   * started last (STARTED_AT); keyset-paginated. A RECORDED_AT position is a runId, as cursors always
   * were (they keep their meaning: after that execution); one naming no stored execution is
   * InvalidCursorError.
   */
  async list(filter: ExecutionFilter, page: KeysetPage<ExecutionPosition>, order: ExecutionOrder = "RECORDED_AT"): Promise<ExecutionRecord[]> {
    const where = filterConditions(filter);
    // Newest first: "after" a position means older.
    if (page.after) where.push(await this.beyond(page.after, order, "older"));
    if (page.before) where.push(await this.beyond(page.before, order, "newer"));
    const direction = page.inverted ? "asc" : "desc";
    const rows = await this.db.execution.findMany({
      // bounded: one condition per filter field and cursor
      where: { AND: where },
      orderBy:
        order === "RECORDED_AT"
          ? [{ recordedAt: direction }, { runId: direction }]
          : [{ startedAt: { sort: direction, nulls: page.inverted ? "first" : "last" } }, { runId: direction }],
      take: page.limit,
    });
    return rows.map(toExecutionRecord);
  }

  /** How many executions `list` lists with this filter, counted up to `cap` (stopping at the (cap + 1)th); null above. */
  async count(filter: ExecutionFilter, cap: number): Promise<number | null> {
    // bounded: one condition per filter field
    const count = await this.db.execution.count({ where: { AND: filterConditions(filter) }, take: cap + 1 });
    return count > cap ? null : count;
  }

  /** The executions listed after (older) or before (newer) a position. */
  private async beyond(position: ExecutionPosition, order: ExecutionOrder, side: "older" | "newer"): Promise<Prisma.ExecutionWhereInput> {
    const runIdSide = side === "older" ? { lt: position.runId } : { gt: position.runId };
    if (order === "RECORDED_AT") {
      const stored = await this.db.execution.findUnique({ where: { runId: position.runId }, select: { recordedAt: true } });
      if (!stored) throw new InvalidCursorError(side === "older" ? "after" : "before", position.runId);
      const at = stored.recordedAt;
      return { OR: [{ recordedAt: side === "older" ? { lt: at } : { gt: at } }, { recordedAt: at, runId: runIdSide }] };
    }
    const at = position.startedAt ?? null;
    // Not started sorts after every start (older, in a newest-first listing).
    if (at === null) return side === "older" ? { startedAt: null, runId: runIdSide } : { OR: [{ startedAt: { not: null } }, { startedAt: null, runId: runIdSide }] };
    return side === "older"
      ? { OR: [{ startedAt: { lt: at } }, { startedAt: at, runId: runIdSide }, { startedAt: null }] }
      : { OR: [{ startedAt: { gt: at } }, { startedAt: at, runId: runIdSide }] };
  }

  /** Every attempt of one request (same specId), oldest first: the cache lookup. */
  async bySpec(specId: SpecId): Promise<ExecutionRecord[]> {
    const rows = await this.db.execution.findMany({ where: { specId }, orderBy: { runId: "asc" } });
    return rows.map(toExecutionRecord);
  }

  /** For each run, the artifacts it consumed (or produced), by role and position. */
  async links(runIds: readonly RunId[], direction: LinkDirection): Promise<ExecutionLinkRecord[][]> {
    const rows = await inChunks(new Set(runIds), (chunk) =>
      this.db.executionArtifact.findMany({
        where: { runId: { in: chunk }, direction },
        orderBy: [{ role: "asc" }, { position: "asc" }],
      }),
    );
    const links = rows.map((row) => ({
      runId: row.runId as RunId,
      artifactId: row.artifactId as ArtifactId,
      role: row.role,
      position: row.position,
    }));
    return groupInOrder(runIds, links, (link) => link.runId);
  }
}

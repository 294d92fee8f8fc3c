import type { Db } from "../db/client";
import type { Prisma } from "../generated/sqlite/client";
import type { ArtifactId, RunId, SpecId } from "./ids";
import type { KeysetPage } from "./pagination";
import { type ExecutionLinkRecord, type ExecutionRecord, type ExecutionStatus, type LinkDirection, toExecutionRecord } from "./records";
import { groupInOrder } from "./batching";

export interface ExecutionFilter {
  /** Operation name (any version). */
  operation?: string | null;
  status?: ExecutionStatus | null;
  specId?: SpecId | null;
  pipeline?: string | null;
}

/** Reads executions and their artifact links, a batch of ids per statement. */
export class ExecutionReader {
  constructor(private readonly db: Db) {}

  async byRunIds(runIds: readonly RunId[]): Promise<(ExecutionRecord | null)[]> {
    const rows = await this.db.execution.findMany({ where: { runId: { in: [...new Set(runIds)] } } });
    const byId = new Map(rows.map((row) => [row.runId, toExecutionRecord(row)]));
    return runIds.map((runId) => byId.get(runId) ?? null);
  }

  /** Newest first (runIds are time-ordered UUIDv7), keyset-paginated on runId. */
  async list(filter: ExecutionFilter, page: KeysetPage<RunId>): Promise<ExecutionRecord[]> {
    const where: Prisma.ExecutionWhereInput = {};
    if (filter.operation) where.operation = { name: filter.operation };
    if (filter.status) where.status = filter.status;
    if (filter.specId) where.specId = filter.specId;
    if (filter.pipeline) where.pipeline = filter.pipeline;
    // Newest first: "after" a cursor means older (smaller) runIds.
    const runIdRange: Prisma.StringFilter = {};
    if (page.after) runIdRange.lt = page.after;
    if (page.before) runIdRange.gt = page.before;
    if (page.after || page.before) where.runId = runIdRange;
    const rows = await this.db.execution.findMany({
      where,
      orderBy: { runId: page.inverted ? "asc" : "desc" },
      take: page.limit,
    });
    return rows.map(toExecutionRecord);
  }

  /** Every attempt of one request (same specId), oldest first: the cache lookup. */
  async bySpec(specId: SpecId): Promise<ExecutionRecord[]> {
    const rows = await this.db.execution.findMany({ where: { specId }, orderBy: { runId: "asc" } });
    return rows.map(toExecutionRecord);
  }

  /** For each run, the artifacts it consumed (or produced), by role and position. */
  async links(runIds: readonly RunId[], direction: LinkDirection): Promise<ExecutionLinkRecord[][]> {
    const rows = await this.db.executionArtifact.findMany({
      where: { runId: { in: [...new Set(runIds)] }, direction },
      orderBy: [{ role: "asc" }, { position: "asc" }],
    });
    const links = rows.map((row) => ({
      runId: row.runId as RunId,
      artifactId: row.artifactId as ArtifactId,
      role: row.role,
      position: row.position,
    }));
    return groupInOrder(runIds, links, (link) => link.runId);
  }
}

import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { groupInOrder } from "../batching";
import type { OperationId, RunId } from "../ids";
import { type ExecutionRecord, toExecutionRecord } from "../records";
import { definitionOf } from "./composite-registry";
import type { CompositeDefinition, IntermediatesMode } from "./definition";

/** What one recorded composite run was: which composite, under which flags, in which mode. */
export interface CompositeRunRecord {
  runId: RunId;
  compositeId: OperationId;
  flags: Record<string, boolean>;
  intermediates: IntermediatesMode;
}

/** The step of a composite run a child execution ran as. */
export interface CompositeStepRunRecord {
  runId: RunId;
  compositeRunId: RunId;
  step: string;
  position: number;
}

/** Reads composites and their runs, a batch of ids per statement (for the GraphQL loaders). */
export class CompositeReader {
  constructor(private readonly db: Db) {}

  async definitionsByIds(ids: readonly OperationId[]): Promise<(CompositeDefinition | null)[]> {
    const rows = await inChunks(new Set(ids), (chunk) => this.db.compositeDefinition.findMany({ where: { operationId: { in: chunk } } }));
    const byId = new Map(rows.map((row) => [row.operationId, definitionOf(row)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  async runsByIds(runIds: readonly RunId[]): Promise<(CompositeRunRecord | null)[]> {
    const rows = await inChunks(new Set(runIds), (chunk) => this.db.compositeRun.findMany({ where: { runId: { in: chunk } } }));
    const byId = new Map(
      rows.map((row) => [
        row.runId,
        { runId: row.runId as RunId, compositeId: row.compositeId as OperationId, flags: JSON.parse(row.flags) as Record<string, boolean>, intermediates: row.intermediates as IntermediatesMode },
      ]),
    );
    return runIds.map((runId) => byId.get(runId) ?? null);
  }

  async stepRunsByIds(runIds: readonly RunId[]): Promise<(CompositeStepRunRecord | null)[]> {
    const rows = await inChunks(new Set(runIds), (chunk) => this.db.compositeStepRun.findMany({ where: { runId: { in: chunk } } }));
    const byId = new Map(rows.map((row) => [row.runId, { runId: row.runId as RunId, compositeRunId: row.compositeRunId as RunId, step: row.step, position: row.position }]));
    return runIds.map((runId) => byId.get(runId) ?? null);
  }

  /** The executions that ran inside each run (parentRunId), oldest first: a composite's steps in the order they ran. */
  async childrenOf(runIds: readonly RunId[]): Promise<ExecutionRecord[][]> {
    const rows = await inChunks(new Set(runIds), (chunk) => this.db.execution.findMany({ where: { parentRunId: { in: chunk } }, orderBy: { runId: "asc" } }));
    return groupInOrder(runIds, rows.map(toExecutionRecord), (e) => e.parentRunId!);
  }
}

import type { ProvgraphPlugin } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { InvalidArgumentError, NotFoundError } from "../errors";
import { newRunId, type RunId } from "../ids";
import type { CommitPath } from "./commit-path";
import type { OperationRegistry } from "./operation-registry";
import { prepareExecution } from "./prepared-execution";
import { type RecordedExecution, recordedExecutionOf } from "./recorded-execution";
import { checkRequestShape, type RecordExecutionRequest } from "./request-shape";
import { specIdOf } from "./spec-id";
import { stageExecution } from "./stage";

export type { RecordExecutionRequest } from "./request-shape";
export type { RecordedExecution } from "./recorded-execution";

export interface RecordOptions {
  /**
   * Runs last inside the recording's unit, so what it writes commits or rolls back with the
   * execution: the audit entry of a recording made with a token (src/auth), at no extra commit.
   */
  beforeCommit?: (tx: DbTx, runId: RunId) => Promise<void>;
}

/**
 * The recording pipeline (DESIGN "Recording pipeline"): capture → build → enrich → validate →
 * propagate → stage, as one unit on the commit path. Any failure throws a typed error and the
 * unit's transaction rolls back: a rejected execution writes nothing.
 */
export class ExecutionRecorder {
  constructor(
    private readonly commits: CommitPath,
    private readonly operations: OperationRegistry,
    private readonly plugins: readonly ProvgraphPlugin[],
  ) {}

  async record(reported: RecordExecutionRequest, options: RecordOptions = {}): Promise<RecordedExecution> {
    const request = checkRequestShape(reported);
    const operation = await this.operations.find(request.operation, request.operationVersion);
    if (!operation) throw new NotFoundError("operation", `${request.operation}@${request.operationVersion}`, "operation");
    if (operation.kind === "COMPOSITE") throw new InvalidArgumentError("operation", `${operation.name}@${operation.version} is a composite: record its runs with recordCompositeExecution`);
    const ids = { runId: newRunId(), specId: specIdOf(operation, request), recordedAt: new Date() };
    return this.commits.run(async (tx, scope) => {
      const prepared = await prepareExecution(tx, this.plugins, operation, request, ids);
      const recorded = recordedExecutionOf(prepared, await stageExecution(tx, prepared));
      if (options.beforeCommit) await options.beforeCommit(tx, ids.runId);
      scope.emit({ type: "EXECUTION_RECORDED", execution: recorded.execution, edges: recorded.edges });
      return recorded;
    });
  }
}

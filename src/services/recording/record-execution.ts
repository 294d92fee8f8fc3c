import type { LineageMapping, ProvgraphPlugin, ProvenanceEdgeDraft } from "../../../plugins/types";
import type { Db, DbTx } from "../../db/client";
import { NotFoundError } from "../errors";
import { type ArtifactId, newRunId, type RunId } from "../ids";
import type { ArtifactRecord, ExecutionLinkRecord, ExecutionRecord } from "../records";
import { buildDraft } from "./build-draft";
import { buildEdges } from "./build-edges";
import type { OperationRegistry } from "./operation-registry";
import { recordPipelineStep } from "./pipeline-steps";
import { prismaReadPort } from "./prisma-read-port";
import { checkRequestShape, type RecordExecutionRequest } from "./request-shape";
import { specIdOf } from "./spec-id";
import { stage } from "./stage";

export type { RecordExecutionRequest } from "./request-shape";

export interface RecordedExecution {
  execution: ExecutionRecord;
  edges: ProvenanceEdgeDraft[];
  /** What the execution used and produced, as the read side would return them. */
  links: { consumed: ExecutionLinkRecord[]; produced: ExecutionLinkRecord[] };
  /** The stored input artifacts, and the artifacts this recording created (not outputs whose content was already stored). */
  artifacts: ArtifactRecord[];
}

export interface RecordOptions {
  /**
   * Runs last inside the recording's transaction, so what it writes commits or rolls back with the
   * execution: the audit entry of a recording made with a token (src/auth), at no extra commit.
   */
  beforeCommit?: (tx: DbTx, runId: RunId) => Promise<void>;
}

/** Big executions may take a while inside their transaction; waiting for the write lock is bounded. */
const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 120_000 };

/**
 * The recording pipeline (DESIGN "Recording pipeline"): capture → build → enrich → validate →
 * propagate → stage + commit, in one database transaction. Any failure throws a typed error and
 * the transaction rolls back: a rejected execution writes nothing.
 */
export class ExecutionRecorder {
  constructor(
    private readonly db: Db,
    private readonly operations: OperationRegistry,
    private readonly plugins: readonly ProvgraphPlugin[],
  ) {}

  async record(reported: RecordExecutionRequest, options: RecordOptions = {}): Promise<RecordedExecution> {
    const request = checkRequestShape(reported);
    const operation = await this.operations.find(request.operation, request.operationVersion);
    if (!operation) throw new NotFoundError("operation", `${request.operation}@${request.operationVersion}`, "operation");
    const runId = newRunId();
    const specId = specIdOf(operation, request);
    const recordedAt = new Date();
    const { draft, edges, created, inputs } = await this.db.$transaction(async (tx) => {
      const { draft, inputs } = await buildDraft(tx, operation, request, runId, specId);
      const port = prismaReadPort(tx);
      const mappings: LineageMapping[] = [];
      const mapped = new Set<string>();
      for (const plugin of this.plugins) {
        if (plugin.stage !== "capture") continue;
        for (const mapping of await plugin.capture(draft, { alreadyMapped: mapped, port })) {
          mappings.push(mapping);
          if (mapping.kind !== "CONFIG_REFERENCE") mapped.add(mapping.output);
        }
      }
      const built = await buildEdges(draft, mappings, port);
      for (const plugin of this.plugins) if (plugin.stage === "validate") await plugin.validate(draft, { mappings, edges: built, port });
      for (const plugin of this.plugins) if (plugin.stage === "propagate") await plugin.propagate(draft, { edges: built, port });
      // The step is checked (and recorded) before staging: once rows are staged nothing expected can
      // fail, so readers sharing SQLite's one connection never see rows that are then rolled back.
      if (draft.pipeline !== null && draft.step !== null) await recordPipelineStep(tx, draft, operation, recordedAt);
      const created = await stage(tx, draft, operation, request, built, recordedAt);
      if (options.beforeCommit) await options.beforeCommit(tx, runId);
      return { draft, edges: built, created: new Set(created), inputs };
    }, TRANSACTION_OPTIONS);
    const link = (a: { id: string; role: string; index: number }): ExecutionLinkRecord => ({ runId, artifactId: a.id as ArtifactId, role: a.role, position: a.index });
    const byRoleAndPosition = (a: ExecutionLinkRecord, b: ExecutionLinkRecord) => (a.role < b.role ? -1 : a.role > b.role ? 1 : a.position - b.position);
    return {
      links: { consumed: [...draft.inputs, ...draft.configInputs].map(link).sort(byRoleAndPosition), produced: draft.outputs.map(link).sort(byRoleAndPosition) },
      artifacts: [
        ...inputs,
        ...draft.outputs
          .filter((o) => created.has(o.id))
          .map((o) => ({ id: o.id as ArtifactId, artifactType: o.artifactType!, contentHash: o.contentHash, originalName: o.originalName, metadata: o.metadata, dataset: null, createdAt: recordedAt })),
      ],
      execution: {
        runId,
        specId,
        operationId: operation.id,
        status: request.status ?? "COMPLETED",
        params: request.params ?? null,
        agent: request.agent ?? null,
        startedAt: request.startedAt ?? null,
        endedAt: request.endedAt ?? null,
        recordedAt,
        pins: {
          inputVersions: request.pins?.inputVersions ?? null,
          codeVersion: request.pins?.codeVersion ?? null,
          imageDigest: request.pins?.imageDigest ?? null,
          deterministic: request.pins?.deterministic ?? null,
        },
        pipeline: request.pipeline ?? null,
        step: request.step ?? null,
        parentRunId: (request.parentRunId ?? null) as RunId | null,
      },
      edges,
    };
  }
}

import type { DraftExecution, ProvgraphPlugin, ProvenanceEdgeDraft } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import type { RunId, SpecId } from "../ids";
import type { ArtifactRecord, OperationRecord } from "../records";
import { buildDraft } from "./build-draft";
import { inferAndValidateLineage } from "./lineage-pipeline";
import { prismaReadPort } from "./prisma-read-port";
import type { RecordExecutionRequest } from "./request-shape";

/** One execution that passed the lineage pipeline: everything staging needs, nothing written yet. */
export interface PreparedExecution {
  operation: OperationRecord;
  /** The request after checkRequestShape (canonical content hashes). */
  request: RecordExecutionRequest;
  draft: DraftExecution;
  /** The stored artifacts it used (inputs and config references). */
  inputs: ArtifactRecord[];
  edges: ProvenanceEdgeDraft[];
  recordedAt: Date;
}

/** Reads what the request names (inside `tx`), builds the draft and runs the plugins over it. */
export async function prepareExecution(
  tx: DbTx,
  plugins: readonly ProvgraphPlugin[],
  operation: OperationRecord,
  request: RecordExecutionRequest,
  ids: { runId: RunId; specId: SpecId; recordedAt: Date },
): Promise<PreparedExecution> {
  const { draft, inputs } = await buildDraft(tx, operation, request, ids.runId, ids.specId);
  const { edges } = await inferAndValidateLineage(plugins, draft, prismaReadPort(tx));
  return { operation, request, draft, inputs, edges, recordedAt: ids.recordedAt };
}

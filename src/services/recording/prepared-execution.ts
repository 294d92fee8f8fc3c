import { ProvenanceError } from "../../../plugins/errors";
import type { DraftExecution, ProvgraphPlugin, ProvenanceEdgeDraft } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import type { RunId, SpecId } from "../ids";
import type { ArtifactRecord, OperationRecord } from "../records";
import { buildDraft, loadDraftContext } from "./build-draft";
import { inferAndValidateLineage } from "./lineage-pipeline";
import type { PendingRecords } from "./pending-records";
import { prismaReadPort } from "./prisma-read-port";
import type { RecordExecutionRequest } from "./request-shape";
import { turnSlicer } from "./yield";

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

/**
 * What staging and the answer need of a prepared execution: the draft without its plugin-facing parts.
 * A composite's own execution is one (its edges are composed from its steps, not captured by plugins).
 */
export type StageableExecution = Omit<PreparedExecution, "draft"> & {
  draft: Pick<DraftExecution, "runId" | "specId" | "params" | "inputs" | "configInputs" | "outputs" | "pipeline" | "step" | "parentRunId" | "pairing">;
};

export interface PrepareItem {
  operation: OperationRecord;
  request: RecordExecutionRequest;
  ids: { runId: RunId; specId: SpecId; recordedAt: Date };
}

/**
 * Reads what the request names (inside `tx`), builds the draft and runs the plugins over it.
 * `pending`: what the unit prepared before this execution and has not staged yet (a composite's
 * earlier steps, a batch's earlier events), read as if stored.
 */
export async function prepareExecution(
  tx: DbTx,
  plugins: readonly ProvgraphPlugin[],
  operation: OperationRecord,
  request: RecordExecutionRequest,
  ids: { runId: RunId; specId: SpecId; recordedAt: Date },
  pending?: PendingRecords,
): Promise<PreparedExecution> {
  const [prepared] = await prepareExecutions(tx, plugins, [{ operation, request, ids }], pending);
  if (prepared instanceof ProvenanceError) throw prepared;
  return prepared;
}

/**
 * prepareExecution for many requests at once: what they name is read in one statement per kind for
 * all of them (artifacts, parent executions), then each draft runs the plugins on its own. A request
 * the pipeline refuses answers its typed error in its place; the others are unaffected. Nothing is
 * written.
 */
export async function prepareExecutions(tx: DbTx, plugins: readonly ProvgraphPlugin[], items: readonly PrepareItem[], pending?: PendingRecords): Promise<(PreparedExecution | ProvenanceError)[]> {
  const context = await loadDraftContext(tx, items.map((item) => item.request), pending);
  const port = prismaReadPort(tx, pending);
  const results: (PreparedExecution | ProvenanceError)[] = [];
  // Many drafts (a batch of events, recordExecutions) are built and checked a slice at a time between other requests' turns.
  const slice = turnSlicer();
  for (const { operation, request, ids } of items) {
    await slice();
    try {
      const { draft, inputs } = await buildDraft(context, operation, request, ids.runId, ids.specId, port);
      const { edges } = await inferAndValidateLineage(plugins, draft, port);
      results.push({ operation, request, draft, inputs, edges, recordedAt: ids.recordedAt });
    } catch (error) {
      if (!(error instanceof ProvenanceError)) throw error;
      results.push(error);
    }
  }
  return results;
}

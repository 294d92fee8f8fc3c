import type { ProvenanceEdgeDraft } from "../../../plugins/types";
import type { ArtifactId, RunId, SpecId } from "../ids";
import type { ArtifactRecord, ExecutionLinkRecord, ExecutionRecord, ExecutionStatus } from "../records";
import type { StageableExecution } from "./prepared-execution";

/** A committed execution as the read side would return it, answered from what was recorded (no read-back). */
export interface RecordedExecution {
  execution: ExecutionRecord;
  edges: ProvenanceEdgeDraft[];
  /** What the execution used and produced, as the read side would return them. */
  links: { consumed: ExecutionLinkRecord[]; produced: ExecutionLinkRecord[] };
  /** The stored input artifacts, and the artifacts this recording created (not outputs whose content was already stored). */
  artifacts: ArtifactRecord[];
  /** Inputs a groupBy operation paired with nothing (see InputPairing), by role and position. */
  unpaired: ExecutionLinkRecord[];
}

const byRoleAndPosition = (a: ExecutionLinkRecord, b: ExecutionLinkRecord) => (a.role < b.role ? -1 : a.role > b.role ? 1 : a.position - b.position);

/** Links as the read side orders them, by role then position (sorted only when they are not already: they usually are). */
function inRoleOrder(links: ExecutionLinkRecord[]): ExecutionLinkRecord[] {
  for (let i = 1; i < links.length; i++) if (byRoleAndPosition(links[i - 1], links[i]) > 0) return links.sort(byRoleAndPosition);
  return links;
}

/** The inputs a groupBy operation paired with nothing, as the answer lists them. */
export function unpairedOf({ draft }: StageableExecution): ExecutionLinkRecord[] {
  const runId = draft.runId as RunId;
  return inRoleOrder((draft.pairing?.unpaired ?? []).map((a) => ({ runId, artifactId: a.id as ArtifactId, role: a.role, position: a.index })));
}

/** `created`: the ids of the artifacts staging inserted (outputs whose content was new). */
export function recordedExecutionOf(prepared: StageableExecution, created: readonly string[]): RecordedExecution {
  const { draft, request, operation, recordedAt } = prepared;
  const runId = draft.runId as RunId;
  const createdIds = new Set(created);
  const link = (a: { id: string; role: string; index: number }): ExecutionLinkRecord => ({ runId, artifactId: a.id as ArtifactId, role: a.role, position: a.index });
  return {
    unpaired: unpairedOf(prepared),
    links: { consumed: inRoleOrder([...draft.inputs, ...draft.configInputs].map(link)), produced: inRoleOrder(draft.outputs.map(link)) },
    artifacts: [
      ...prepared.inputs,
      ...draft.outputs
        .filter((o) => createdIds.has(o.id))
        .map((o) => ({ id: o.id as ArtifactId, artifactType: o.artifactType!, contentHash: o.contentHash, originalName: o.originalName, metadata: o.metadata, dataset: o.dataset ?? null, createdAt: recordedAt })),
    ],
    execution: {
      runId,
      specId: draft.specId as SpecId,
      operationId: operation.id,
      status: (request.status ?? "COMPLETED") as ExecutionStatus,
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
    edges: prepared.edges,
  };
}

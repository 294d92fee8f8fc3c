import { inChunks, RECORDING_READ_CHUNK } from "../../db/chunked-lists";
import type { DraftExecution } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { StepConflictError } from "../errors";
import type { OperationRecord } from "../records";
import { insertRows } from "./bulk-insert";
import { noteUnitWrites } from "./unit-writes";
import { appendTo } from "../grouping";
import { mapInTurns } from "./yield";

// Seed "Visualization": the macro graph comes from the steps table alone. Record the step (its
// operation and roles) once, and which earlier step's output role fed each of its input roles.
export async function recordPipelineStep(tx: DbTx, draft: Pick<DraftExecution, "pipeline" | "step" | "inputs">, operation: OperationRecord, at: Date): Promise<void> {
  const pipeline = draft.pipeline!;
  const step = draft.step!;
  await claimPipelineStep(tx, pipeline, step, operation, at);
  if (draft.inputs.length === 0) return;
  // A join's 20,000 inputs: RECORDING_READ_CHUNK ids per statement, each statement and its rows a short task
  // (statements take turns with other requests: src/db/statement-turns.ts), the grouping in turns too.
  const producers = await inChunks(
    new Set(draft.inputs.map((i) => i.id)),
    (chunk) =>
      tx.executionArtifact.findMany({
        where: { artifactId: { in: chunk }, direction: "PRODUCED", execution: { pipeline, step: { lt: step } } },
        select: { artifactId: true, role: true, execution: { select: { step: true } } },
      }),
    RECORDING_READ_CHUNK,
  );
  const producersOf = new Map<string, (typeof producers)[number][]>();
  await mapInTurns(producers, (producer) => appendTo(producersOf, producer.artifactId, producer));
  const flows = new Map<string, unknown[]>();
  await mapInTurns(draft.inputs, (input) => {
    for (const producer of producersOf.get(input.id) ?? []) {
      // pipeline and step are this recording's own: the rest of the row tells flows apart.
      flows.set(`${input.role}\u0000${producer.execution.step}\u0000${producer.role}`, [pipeline, step, input.role, producer.execution.step!, producer.role]);
    }
  });
  await insertRows(tx, "PipelineFlow", ["pipeline", "step", "inputRole", "sourceStep", "sourceRole"], [...flows.values()], { ignoreConflicts: true });
}

/**
 * The step belongs to the operation whose row the database's key (pipeline, step) accepted first:
 * the INSERT arbitrates, never a read before it. A concurrent recording of another operation that
 * claimed the step since our read makes our INSERT wait for its commit and insert nothing; the read
 * after it (a statement of its own, so it sees that commit under READ COMMITTED) names the winner.
 */
async function claimPipelineStep(tx: DbTx, pipeline: string, step: number, operation: OperationRecord, at: Date): Promise<void> {
  let holder = await stepHolder(tx, pipeline, step);
  if (!holder) {
    const roles = (list: OperationRecord["inputs"]) => JSON.stringify(list.map((r) => ({ role: r.role, artifactType: r.artifactType })));
    const claimed = await insertRows(tx, "PipelineStep", ["pipeline", "step", "operationId", "inputRoles", "outputRoles", "createdAt"], [[pipeline, step, operation.id, roles(operation.inputs), roles(operation.outputs), at]], {
      ignoreConflicts: true,
      returning: "operationId",
    });
    if (claimed.length === 1) {
      // A new step: the pipeline is found by search from its first one (the index keeps one entry per pipeline).
      noteUnitWrites(tx, { searchable: [{ kind: "PIPELINE", name: pipeline }] });
      return;
    }
    holder = await stepHolder(tx, pipeline, step);
    if (!holder) throw new Error(`pipeline step ${pipeline}#${step} was neither inserted nor found`);
  }
  if (holder.operationId !== operation.id) {
    throw new StepConflictError(pipeline, step, `${holder.operation.name}@${holder.operation.version}`, `${operation.name}@${operation.version}`);
  }
}

function stepHolder(tx: DbTx, pipeline: string, step: number) {
  return tx.pipelineStep.findUnique({ where: { pipeline_step: { pipeline, step } }, select: { operationId: true, operation: { select: { name: true, version: true } } } });
}

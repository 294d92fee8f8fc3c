import type { Db } from "../../../src/db/client";
import type { Acknowledged } from "./load-clients";

const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Every acknowledged mutation is in the store as it was answered: its executions, their output links
 * and exactly as many edges as the answer counted; an OpenLineage run with at least the events stored
 * that were answered STORED, and the status the last of them answered. Returns one line per loss.
 */
export async function missingAcknowledged(db: Db, acknowledged: readonly Acknowledged[]): Promise<string[]> {
  const missing: string[] = [];
  const runIds = acknowledged.flatMap((a) => (a.kind === "composite" ? a.runIds : [a.runId]));
  const executions = new Map<string, string>();
  const edges = new Map<string, number>();
  const produced = new Set<string>();
  const events = new Map<string, number>();
  for (const part of chunks(runIds)) {
    for (const x of await db.execution.findMany({ where: { runId: { in: part } }, select: { runId: true, status: true } })) executions.set(x.runId, x.status);
    for (const e of await db.provenanceEdge.groupBy({ by: ["runId"], where: { runId: { in: part } }, _count: { _all: true } })) edges.set(e.runId, e._count._all);
    for (const l of await db.executionArtifact.findMany({ where: { runId: { in: part }, direction: "PRODUCED" }, select: { runId: true, artifactId: true } })) produced.add(`${l.runId} ${l.artifactId}`);
    for (const e of await db.openLineageEvent.groupBy({ by: ["runId"], where: { runId: { in: part } }, _count: { _all: true } })) events.set(e.runId!, e._count._all);
  }
  for (const ack of acknowledged) {
    if (ack.kind === "openlineage") {
      if (!executions.has(ack.runId)) missing.push(`${ack.runId}: acknowledged OpenLineage run has no execution`);
      else if (executions.get(ack.runId) !== ack.status) missing.push(`${ack.runId}: status ${executions.get(ack.runId)}, acknowledged ${ack.status}`);
      if ((events.get(ack.runId) ?? 0) < ack.events) missing.push(`${ack.runId}: ${events.get(ack.runId) ?? 0} events stored, ${ack.events} acknowledged`);
      continue;
    }
    const runs = ack.kind === "composite" ? ack.runIds : [ack.runId];
    const absent = runs.filter((runId) => !executions.has(runId));
    if (absent.length > 0) {
      missing.push(`${runs[0]}: acknowledged ${ack.kind} lost execution(s) ${absent.join(", ")}`);
      continue;
    }
    const stored = runs.reduce((n, runId) => n + (edges.get(runId) ?? 0), 0);
    if (stored !== ack.edgeCount) missing.push(`${runs[0]}: ${stored} edges stored, ${ack.edgeCount} acknowledged`);
    for (const id of ack.outputIds) if (!produced.has(`${runs[0]} ${id}`)) missing.push(`${runs[0]}: output ${id} not linked`);
  }
  return missing;
}

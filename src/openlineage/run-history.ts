import { inChunks } from "../db/chunked-lists";
import type { Db } from "../db/client";
import type { RunHistory, RunStateAsOf } from "../services/compliance";
import type { RunFacts } from "./event-facts";
import { inputVersionsOf } from "./record-events";
import { foldRun } from "./run-fold";

/**
 * How OpenLineage runs stood as of an instant (docs: "Evidence packages", as-of semantics): a run's
 * execution is the fold of its events, so as of an instant it is the fold of the events received by
 * then, with the inputs it had resolved by then — exactly what its execution row held at that
 * instant. Only runs that received an event after `asOf` are refolded (two statements, three when
 * any did); the others are as stored.
 */
export const openLineageRunHistory: RunHistory = {
  async statesAsOf(db: Db, runIds: readonly string[], asOf: Date): Promise<Map<string, RunStateAsOf>> {
    const states = new Map<string, RunStateAsOf>();
    if (runIds.length === 0) return states;
    const later = await inChunks(runIds, (chunk) => db.openLineageEvent.findMany({ where: { runId: { in: chunk }, receivedAt: { gt: asOf } }, select: { runId: true }, distinct: ["runId"] }));
    const changed = later.map((e) => e.runId!);
    if (changed.length === 0) return states;
    const [events, uses] = await Promise.all([
      inChunks(changed, (chunk) => db.openLineageEvent.findMany({ where: { runId: { in: chunk }, kind: "RUN", receivedAt: { lte: asOf } }, select: { runId: true, eventKey: true, facts: true } })),
      inChunks(changed, (chunk) => db.datasetVersionUse.findMany({ where: { runId: { in: chunk }, createdAt: { lte: asOf } }, select: { runId: true, artifactId: true, resolvedBy: true } })),
    ]);
    const artifacts = uses.length === 0 ? [] : await inChunks(new Set(uses.map((u) => u.artifactId)), (chunk) => db.artifact.findMany({ where: { id: { in: chunk } }, select: { id: true, datasetNamespace: true, datasetName: true, datasetVersion: true } }));
    const datasetOf = new Map(artifacts.map((a) => [a.id, { namespace: a.datasetNamespace!, name: a.datasetName!, version: a.datasetVersion }]));
    for (const runId of changed) {
      const stored = events.filter((e) => e.runId === runId).map((e) => ({ eventKey: e.eventKey, facts: JSON.parse(e.facts) as RunFacts }));
      // Nothing of it was recorded by then: nothing of it is in a closure as of then either.
      if (stored.length === 0) continue;
      const fold = foldRun(stored);
      const used = uses.filter((u) => u.runId === runId && datasetOf.has(u.artifactId)).map((u) => ({ artifactId: u.artifactId, resolvedBy: u.resolvedBy, dataset: datasetOf.get(u.artifactId)! }));
      states.set(runId, {
        status: fold.status,
        params: Object.keys(fold.params).length > 0 ? fold.params : null,
        pins: { inputVersions: inputVersionsOf(used), codeVersion: fold.codeVersion, imageDigest: fold.imageDigest, deterministic: fold.deterministic },
      });
    }
    return states;
  },
};

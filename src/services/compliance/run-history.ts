import type { Db } from "../../db/client";

/** A run as it was recorded by an instant: what an evidence package as of that instant shows of it. */
export interface RunStateAsOf {
  status: string;
  params: unknown;
  pins: { inputVersions: unknown; codeVersion: string | null; imageDigest: string | null; deterministic: boolean | null };
}

/**
 * How runs whose record changes after it is first written stood as of an instant (docs: "Evidence
 * packages", as-of semantics). An execution's derived columns hold its state now; a room that
 * appends to runs (OpenLineage: a run's later events fold into its execution) registers one of these
 * with the evidence reader, and answers, for the runs it knows that changed after `asOf`, their
 * state from what was recorded by then. Runs it leaves out are read as stored.
 */
export interface RunHistory {
  statesAsOf(db: Db, runIds: readonly string[], asOf: Date): Promise<Map<string, RunStateAsOf>>;
}

import type { RunId } from "../services/ids";
import type { ExecutionStatus } from "../services/records";
import { type DatasetMention, type DatasetName, datasetKey, type RunFacts } from "./event-facts";

/** One stored event of a run, as the fold reads it. */
export interface StoredRunFacts {
  eventKey: string;
  facts: RunFacts;
}

/**
 * An output of the run: its dataset and the `version` facet's value (null when the event gave none:
 * the version is then the producing run's id), and the datasets its column lineage names (null when
 * no event gave it column lineage).
 */
export interface FoldedOutput extends DatasetMention {
  columnSources: DatasetName[] | null;
}

/**
 * The state of an OpenLineage run: a pure function of the set of its stored events, so every order
 * of arrival gives the same state, and recomputing it from the stored events always reproduces what
 * the execution row holds (its derived columns are this fold, never an overwrite of a report).
 *  - status: the terminal event (COMPLETE / FAIL / ABORT) with the latest eventTime decides it
 *    (at one instant, FAIL before ABORT before COMPLETE); without one, RUNNING if a RUNNING event
 *    came, else STARTED (START, OTHER and no lifecycle event at all);
 *  - startedAt: the earliest START's eventTime; endedAt: the deciding terminal event's eventTime;
 *  - failure: the errorMessage facet of the latest event carrying one, when the run FAILED or ABORTED;
 *  - params, code version, image digest, determinism, privacy cost, agent, parent: each from the
 *    latest event (by eventTime) reporting it, params merged facet by facet;
 *  - inputs and outputs: every dataset (version) any event reported, in order of eventTime;
 *    an output's column sources: the union of the datasets its column lineage names in any event.
 * Events at the same eventTime are taken in eventKey order.
 */
export interface RunFold {
  job: DatasetName;
  status: ExecutionStatus;
  startedAt: Date | null;
  endedAt: Date | null;
  failure: RunFacts["error"];
  params: Record<string, unknown>;
  codeVersion: string | null;
  imageDigest: string | null;
  deterministic: boolean | null;
  /** The privacy cost the run declared (the latest event declaring one): it is a release. */
  privacyCost: RunFacts["privacyCost"] | null;
  /** The purposes the run's events declared (provgraph_purpose), distinct, in the order of its events: one, or none; more is a change the recording refuses. */
  purposes: string[];
  agent: string | null;
  parent: { runId: RunId; job: DatasetName } | null;
  inputs: DatasetMention[];
  outputs: FoldedOutput[];
  events: number;
  firstEventTime: Date | null;
  lastEventTime: Date | null;
}

const TERMINAL: Record<string, { status: ExecutionStatus; rank: number }> = {
  FAIL: { status: "FAILED", rank: 3 },
  ABORT: { status: "ABORTED", rank: 2 },
  COMPLETE: { status: "COMPLETED", rank: 1 },
};

export function foldRun(stored: readonly StoredRunFacts[]): RunFold {
  if (stored.length === 0) throw new Error("foldRun: a run has at least one event");
  const events = [...stored].sort((a, b) => (a.facts.eventTime < b.facts.eventTime ? -1 : a.facts.eventTime > b.facts.eventTime ? 1 : a.eventKey < b.eventKey ? -1 : a.eventKey > b.eventKey ? 1 : 0));
  let terminal: RunFacts | null = null;
  let running = false;
  let startedAt: string | null = null;
  let failure: RunFacts["error"] = null;
  const params: Record<string, unknown> = {};
  let codeVersion: string | null = null;
  let imageDigest: string | null = null;
  let deterministic: boolean | null = null;
  let privacyCost: RunFold["privacyCost"] = null;
  const purposes: string[] = [];
  let agent: string | null = null;
  let parent: RunFold["parent"] = null;
  const inputs = new Map<string, DatasetMention>();
  const outputs = new Map<string, FoldedOutput>();
  for (const { facts } of events) {
    const rank = TERMINAL[facts.eventType]?.rank;
    if (rank !== undefined && (terminal === null || facts.eventTime > terminal.eventTime || (facts.eventTime === terminal.eventTime && rank > TERMINAL[terminal.eventType].rank))) {
      terminal = facts;
    }
    if (facts.eventType === "RUNNING") running = true;
    if (facts.eventType === "START" && (startedAt === null || facts.eventTime < startedAt)) startedAt = facts.eventTime;
    if (facts.error) failure = facts.error;
    Object.assign(params, facts.params);
    codeVersion = facts.codeVersion ?? codeVersion;
    imageDigest = facts.imageDigest ?? imageDigest;
    deterministic = facts.deterministic ?? deterministic;
    privacyCost = facts.privacyCost ?? privacyCost;
    if (facts.purpose && !purposes.includes(facts.purpose)) purposes.push(facts.purpose);
    agent = facts.agent ?? agent;
    parent = facts.parent ?? parent;
    for (const input of facts.inputs) if (!inputs.has(datasetKey(input))) inputs.set(datasetKey(input), { namespace: input.namespace, name: input.name, version: input.version });
    for (const output of facts.outputs) {
      const key = datasetKey(output);
      const known = outputs.get(key) ?? { namespace: output.namespace, name: output.name, version: output.version, columnSources: null };
      if (output.columnSources) {
        const sources = new Map((known.columnSources ?? []).map((s) => [datasetKey({ ...s, version: null }), s]));
        for (const s of output.columnSources) sources.set(datasetKey({ ...s, version: null }), s);
        known.columnSources = [...sources.values()];
      }
      outputs.set(key, known);
    }
  }
  const status: ExecutionStatus = terminal ? TERMINAL[terminal.eventType].status : running ? "RUNNING" : "STARTED";
  const last = events[events.length - 1].facts;
  return {
    job: last.job,
    status,
    startedAt: startedAt === null ? null : new Date(startedAt),
    endedAt: terminal ? new Date(terminal.eventTime) : null,
    failure: status === "FAILED" || status === "ABORTED" ? failure : null,
    params,
    codeVersion,
    imageDigest,
    deterministic,
    privacyCost,
    purposes,
    agent,
    parent,
    inputs: [...inputs.values()],
    outputs: [...outputs.values()],
    events: events.length,
    firstEventTime: new Date(events[0].facts.eventTime),
    lastEventTime: new Date(last.eventTime),
  };
}

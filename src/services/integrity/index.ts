// The integrity room's one door: the invariants every committed store holds, and the checker that
// reports their violations (the admin query integrityReport, the crash suite). Other rooms add
// their own invariants through Invariant (sqlInvariant when SQL can state it).
import { edgeEndpoints } from "./edge-endpoints";
import { edgeTypes } from "./edge-types";
import { executionRows } from "./execution-rows";
import { feedSequence } from "./feed-sequence";
import { groupIds } from "./group-ids";
import type { Invariant } from "./invariant";
import { outputSources } from "./output-sources";
import { pipelineSteps } from "./pipeline-steps";

export { DEFAULT_VIOLATION_SAMPLE, IntegrityChecker, type IntegrityReport, type InvariantReport, MAX_VIOLATION_SAMPLE } from "./integrity-checker";
export { type Invariant, type InvariantResult, type Violation, ViolationSample } from "./invariant";
export { sqlInvariant, text } from "./sql-invariant";

/** The core's invariants, in the order a report lists them. */
export const CORE_INVARIANTS: readonly Invariant[] = [executionRows, edgeEndpoints, outputSources, edgeTypes, groupIds, pipelineSteps, feedSequence];

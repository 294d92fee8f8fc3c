import type { PolicySubject } from "../services/compliance";

/**
 * The policy subjects guarded fields name (`redactBy`, src/auth/pothos/redaction-plugin.ts): whose
 * policy tags decide whether a viewer sees a value. What each covers is the policy tag reader's
 * (src/services/compliance/policy-tag-reader.ts); which subject guards which field, docs/ "Policy tags".
 */

/** A column's details (description, sample values, facets). */
export const columnSubject = (c: { artifactId: string; field: string }): PolicySubject => ({ kind: "COLUMN", artifactId: c.artifactId, field: c.field });

/** An artifact's metadata: the tags it holds as a whole. */
export const artifactSubject = (a: { id: string }): PolicySubject => ({ kind: "ARTIFACT", artifactId: a.id });

/** What a run reported about itself (params, failure): every tag held anywhere on the artifacts it used or produced. */
export const runSubject = (r: { runId: string }): PolicySubject => ({ kind: "RUN", runId: r.runId });

/**
 * A column edge's description (the transformation, often the expression itself): the tags of the
 * column it reads and of the column it writes (for a dataset-wide edge, of the version it shapes).
 */
export const columnEdgeSubject = (e: { sourceId: string; sourceField: string; targetId: string; targetField: string | null }): PolicySubject => ({
  kind: "ANY",
  of: [{ kind: "COLUMN", artifactId: e.sourceId, field: e.sourceField }, e.targetField === null ? { kind: "ARTIFACT", artifactId: e.targetId } : { kind: "COLUMN", artifactId: e.targetId, field: e.targetField }],
});

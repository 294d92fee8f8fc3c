/**
 * An OpenLineage job is an operation named after the job and versioned `openlineage:<namespace>`
 * (src/openlineage/job-operation.ts registers it on first sight): (name, version) names one job.
 */
const JOB_VERSION_PREFIX = "openlineage:";

export const jobOperationVersion = (namespace: string) => `${JOB_VERSION_PREFIX}${namespace}`;

/** The job's namespace when an operation version is an OpenLineage job's, else null. */
export function openLineageJobNamespace(operationVersion: string): string | null {
  return operationVersion.startsWith(JOB_VERSION_PREFIX) ? operationVersion.slice(JOB_VERSION_PREFIX.length) : null;
}

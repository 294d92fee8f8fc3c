import type { ExecutionDetailsFragment } from "../api/generated";
import { hrefOf, navigate } from "../routes/router";
import { JsonBlock } from "./JsonBlock";
import { PinsTable } from "./PinsTable";
import { StatusBadge } from "./StatusBadge";

const time = (iso?: string | null) => (iso ? new Date(iso).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z") : "—");

/** A run: operation or job, status, times, parameters, its four replay pins, its pipeline. */
export function ExecutionSummary({ execution }: { execution: ExecutionDetailsFragment }) {
  const job = execution.openLineage ? `${execution.openLineage.job.namespace}/${execution.openLineage.job.name}` : `${execution.operation.name} ${execution.operation.version}`;
  return (
    <div className="execution">
      <dl className="facts">
        <dt>Run</dt>
        <dd>
          <code className="wrap">{execution.runId}</code>
        </dd>
        <dt>{execution.openLineage ? "Job" : "Operation"}</dt>
        <dd>{job}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={execution.status} />
          {execution.failure && <div className="failure">{execution.failure.message}</div>}
        </dd>
        <dt>Started</dt>
        <dd>{time(execution.startedAt)}</dd>
        <dt>Ended</dt>
        <dd>{time(execution.endedAt)}</dd>
        <dt>Recorded</dt>
        <dd>{time(execution.recordedAt)}</dd>
        {execution.agent && (
          <>
            <dt>Agent</dt>
            <dd>{execution.agent}</dd>
          </>
        )}
        {execution.pipeline && (
          <>
            <dt>Pipeline</dt>
            <dd>
              <a
                href={hrefOf("/pipeline", { name: execution.pipeline, step: execution.step ?? undefined, view: "micro" })}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(hrefOf("/pipeline", { name: execution.pipeline, step: execution.step ?? undefined, view: "micro" }));
                }}
              >
                {execution.pipeline}
              </a>
              {execution.step != null && ` · step ${execution.step}`}
            </dd>
          </>
        )}
      </dl>
      <h3 className="sub-heading">Replay pins</h3>
      <PinsTable pins={execution.pins} />
      <h3 className="sub-heading">Parameters</h3>
      <JsonBlock value={execution.params} />
    </div>
  );
}

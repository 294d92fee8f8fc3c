import { request, RunDetailsDocument } from "../api/client";
import { useQuery } from "../state/use-query";
import { ErrorNotice } from "./ErrorNotice";
import { ExecutionSummary } from "./ExecutionSummary";
import { Loading } from "./Loading";

export function RunDetails({ runId }: { runId: string }) {
  const result = useQuery(runId, (signal) => request(RunDetailsDocument, { runId }, signal));
  if (result.error) return <ErrorNotice error={result.error} onRetry={result.reload} compact />;
  if (!result.data) return <Loading what="the run" />;
  const run = result.data.execution;
  return (
    <>
      <ExecutionSummary execution={run} />
      <h3 className="sub-heading">Used</h3>
      <ul className="links">{run.inputs.map((l) => <li key={l.role + l.artifact.id}>{l.artifact.originalName} <span className="muted">as {l.role}</span></li>)}</ul>
      <h3 className="sub-heading">Generated</h3>
      <ul className="links">{run.outputs.map((l) => <li key={l.role + l.artifact.id}>{l.artifact.originalName} <span className="muted">as {l.role}</span></li>)}</ul>
    </>
  );
}

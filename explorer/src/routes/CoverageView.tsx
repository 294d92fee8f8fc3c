import { CoverageDocument, request } from "../api/client";
import { Empty } from "../components/Empty";
import { ErrorNotice } from "../components/ErrorNotice";
import { Loading } from "../components/Loading";
import { useQuery } from "../state/use-query";
import { hrefOf, navigate, useLocation } from "./router";
import { useDocumentTitle } from "../state/document-title";

/** `/coverage?ns=…`: how much of a namespace's output columns resolve to their sources, and which do not. */
export function CoverageView() {
  const { params } = useLocation();
  const namespace = params.get("ns") ?? "";
  const result = useQuery(namespace || undefined, (signal) => request(CoverageDocument, { namespace, first: 500 }, signal));
  useDocumentTitle(namespace ? `Coverage of ${namespace}` : undefined);
  if (!namespace) return <Empty heading title="No namespace chosen" />;
  if (!result.data)
    return (
      <div className="coverage">
        <h1>Lineage coverage of {namespace}</h1>
        {result.error ? <ErrorNotice error={result.error} onRetry={result.reload} /> : <Loading what={`coverage of ${namespace}`} />}
      </div>
    );
  const c = result.data.lineageCoverage;
  const share = c.share == null ? null : Math.round(c.share * 1000) / 10;
  return (
    <div className="coverage" data-testid="coverage">
      <h1>Lineage coverage of {c.namespace}</h1>
      <div className={`verdict ${c.fitForImpactAnalysis ? "provable" : "unprovable"}`}>
        <div className="verdict-title">{share == null ? "No output columns" : `${share}% of output columns resolve`}</div>
        <div className="meter" aria-hidden="true">
          <div style={{ width: `${share ?? 0}%` }} />
        </div>
        <div className="muted">
          {c.resolvedColumns} of {c.outputColumns} columns · threshold {Math.round(c.threshold * 100)}% · {c.fitForImpactAnalysis ? "fit for impact analysis" : "not fit for impact analysis"}
          {c.truncated && " · the walk was cut at its budget"}
        </div>
      </div>
      <h2>Unresolved columns ({c.unresolvedCount})</h2>
      {c.unresolved.length === 0 ? (
        <p className="muted">Every output column resolves.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Dataset</th>
              <th>Column</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {c.unresolved.map((u) => (
              <tr key={u.artifact.id + u.field}>
                <td>
                  <a
                    href={hrefOf("/graph", { root: u.artifact.id, cols: true })}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(hrefOf("/graph", { root: u.artifact.id, cols: true, sel: `col:${u.artifact.id}:${encodeURIComponent(u.field)}` }));
                    }}
                  >
                    {u.artifact.dataset ? `${u.artifact.dataset.namespace}/${u.artifact.dataset.name}` : u.artifact.originalName}
                  </a>
                </td>
                <td>
                  <code>{u.field}</code>
                </td>
                <td>{u.reason.toLowerCase().replace(/_/g, " ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

import { ArtifactDetailsDocument, request } from "../api/client";
import { hrefOf, navigate, updateParams } from "../routes/router";
import { useQuery } from "../state/use-query";
import { DatasetVersions } from "./DatasetVersions";
import { ErrorNotice } from "./ErrorNotice";
import { EvidenceVerdict } from "./EvidenceVerdict";
import { ExecutionSummary } from "./ExecutionSummary";
import { JsonBlock } from "./JsonBlock";
import { Loading } from "./Loading";
import { TagList } from "./TagList";

/** An artifact or dataset version (or one of its columns, with `field`): identity, tags, producer, versions, columns. */
export function ArtifactDetails({ artifactId, field, asOf }: { artifactId: string; field?: string; asOf?: string }) {
  const result = useQuery(artifactId, (signal) => request(ArtifactDetailsDocument, { id: artifactId }, signal));
  if (result.error) return <ErrorNotice error={result.error} onRetry={result.reload} compact />;
  if (!result.data) return <Loading what="details" />;
  const artifact = result.data.artifact;
  const column = field ? artifact.columns.find((c) => c.field === field) : undefined;
  const producer = artifact.producedBy.at(-1);
  return (
    <>
      {column && (
        <section>
          <h3>Column {column.field}</h3>
          <dl className="facts">
            <dt>Type</dt>
            <dd>{column.type ?? "—"}</dd>
            <dt>Description</dt>
            <dd>{column.redacted.includes("description") ? <JsonBlock value={null} redacted /> : column.description ?? <span className="muted">none</span>}</dd>
            <dt>Samples</dt>
            <dd>{column.redacted.includes("sampleValues") ? <JsonBlock value={null} redacted /> : <JsonBlock value={column.sampleValues} />}</dd>
            <dt>Tags</dt>
            <dd>
              <TagList tags={column.policyTags} />
            </dd>
          </dl>
          <p className="muted">Its upstream and downstream columns are lit in the graph.</p>
        </section>
      )}
      <section>
        {column && <h3>Of {artifact.originalName}</h3>}
        <dl className="facts">
          <dt>Name</dt>
          <dd>{artifact.originalName}</dd>
          <dt>Id</dt>
          <dd>
            <code className="wrap">{artifact.id}</code>
          </dd>
          <dt>Type</dt>
          <dd>{artifact.artifactType}</dd>
          <dt>Content hash</dt>
          <dd>
            <code className="wrap">{artifact.contentHash}</code>
          </dd>
          <dt>Recorded</dt>
          <dd>{new Date(artifact.createdAt).toISOString().slice(0, 19).replace("T", " ")}Z</dd>
          {artifact.dataset && (
            <>
              <dt>Dataset</dt>
              <dd>
                {artifact.dataset.namespace}/{artifact.dataset.name}{" "}
                <a
                  href={hrefOf("/coverage", { ns: artifact.dataset.namespace })}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(hrefOf("/coverage", { ns: artifact.dataset!.namespace }));
                  }}
                >
                  namespace coverage
                </a>
              </dd>
            </>
          )}
          <dt>Policy tags</dt>
          <dd>
            <TagList tags={artifact.policyTags} />
          </dd>
        </dl>
        <h3 className="sub-heading">Metadata</h3>
        <JsonBlock value={artifact.metadata} redacted={artifact.redacted.includes("metadata")} />
        <h3 className="sub-heading">Evidence</h3>
        <EvidenceVerdict artifactId={artifact.id} field={field} asOf={asOf} />
      </section>
      {artifact.dataset && artifact.dataset.versions.length > 0 && (
        <section>
          <h3>Versions</h3>
          <DatasetVersions currentId={artifact.id} versions={artifact.dataset.versions} />
        </section>
      )}
      {artifact.columns.length > 0 && !column && (
        <section>
          <h3>Columns ({artifact.columns.length})</h3>
          <ul className="column-list">
            {artifact.columns.map((c) => (
              <li key={c.field}>
                <button className="link-button" onClick={() => updateParams({ cols: true, sel: `col:${artifact.id}:${encodeURIComponent(c.field)}` })}>
                  {c.field}
                </button>{" "}
                <span className="muted">{c.type}</span> {c.policyTags.map((t) => <span key={t.tag} className={`tag${t.inherited ? " inherited" : ""}`}>{t.tag}</span>)}
                {c.redacted.length > 0 && <span className="redacted-mark">redacted</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {producer && (
        <section>
          <h3>Produced by</h3>
          <ExecutionSummary execution={producer} />
        </section>
      )}
    </>
  );
}

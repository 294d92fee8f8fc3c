import { hrefOf, navigate } from "../routes/router";

/** A dataset's versions, newest first, with previous/next to step through them (each opens as the root). */
export function DatasetVersions({ currentId, versions }: { currentId: string; versions: readonly { id: string; createdAt: string; dataset?: { version?: string | null } | null }[] }) {
  const at = versions.findIndex((v) => v.id === currentId);
  const open = (id: string) => navigate(hrefOf("/graph", { root: id }));
  return (
    <div className="versions">
      <div className="versions-nav">
        <button className="button small" disabled={at < 0 || at >= versions.length - 1} onClick={() => open(versions[at + 1].id)} aria-label="Older version">
          ◀ older
        </button>
        <span>
          version {versions.length - at} of {versions.length}
        </span>
        <button className="button small" disabled={at <= 0} onClick={() => open(versions[at - 1].id)} aria-label="Newer version">
          newer ▶
        </button>
      </div>
      <ol className="versions-list">
        {versions.map((v) => (
          <li key={v.id} className={v.id === currentId ? "current" : ""}>
            <button className="link-button" onClick={() => open(v.id)}>
              {v.dataset?.version ?? v.id.slice(0, 16)}
            </button>
            <span className="muted"> {new Date(v.createdAt).toISOString().slice(0, 19).replace("T", " ")}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

import { useState } from "react";
import { hrefOf, navigate, useLocation } from "../routes/router";
import { useLiveFeed } from "../state/live-feed";
import { StatusBadge } from "./StatusBadge";

/** The width below which styles.css lays the page out for a phone. */
const narrowScreen = () => typeof window.matchMedia === "function" && window.matchMedia("(max-width: 720px)").matches;

/** Runs recorded since the page opened, newest first; each opens its neighbourhood. */
export function FeedPanel() {
  const { events, status, error } = useLiveFeed();
  const { route } = useLocation();
  // Open on the home page; folded to a rail (with a count of new runs) beside a graph, which needs the room,
  // and on a phone-sized screen, where it would cover the page (styles.css opens it over the page there).
  const [chosen, setOpen] = useState<boolean>();
  const open = chosen ?? (route === "/" && !narrowScreen());
  return (
    <aside className={`feed${open ? "" : " closed"}`} aria-label="Live runs">
      <button className="feed-toggle" onClick={() => setOpen(!open)} aria-expanded={open} title={open ? "Hide the live feed" : "Show the live feed"}>
        <span className={`live-dot ${status}`} aria-hidden="true" /> {open ? "Live runs" : <span className="sr-only">Live runs</span>} {events.length > 0 && <span className="count">{events.length}</span>}
      </button>
      {open && (
        <div className="feed-body">
          {status === "error" && (
            <div className="notice error compact" role="alert">
              Live feed: <code>{error?.code}</code> {error?.message}
            </div>
          )}
          {events.length === 0 ? (
            <div className="muted feed-empty">{status === "live" ? "Runs recorded while this page is open appear here." : "Connecting…"}</div>
          ) : (
            <ol className="feed-list">
              {events.map((event) => {
                const run = event.execution;
                const job = run.openLineage ? `${run.openLineage.job.namespace}/${run.openLineage.job.name}` : run.operation.name;
                return (
                  <li key={event.sequence} className="feed-item">
                    <a
                      href={hrefOf("/graph", { root: run.runId })}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate(hrefOf("/graph", { root: run.runId }));
                      }}
                    >
                      {job}
                    </a>
                    <StatusBadge status={run.status} />
                    <div className="feed-meta">
                      {new Date(event.committedAt).toLocaleTimeString()} · {run.outputs.length} output{run.outputs.length === 1 ? "" : "s"}
                      {run.pipeline ? ` · ${run.pipeline}` : ""}
                    </div>
                  </li>
                );
              })}
            </ol>
          )}
        </div>
      )}
    </aside>
  );
}

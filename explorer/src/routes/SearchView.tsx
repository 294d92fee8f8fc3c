import { SearchDocument, request } from "../api/client";
import { Empty } from "../components/Empty";
import { ErrorNotice } from "../components/ErrorNotice";
import { Highlighted } from "../components/Highlighted";
import { Loading } from "../components/Loading";
import { useQuery } from "../state/use-query";
import { groupHits, hrefOfHit, KIND_LABELS } from "./open-hit";
import { navigate, useLocation } from "./router";
import { useDocumentTitle } from "../state/document-title";

type Kind = "ARTIFACT" | "DATASET" | "COLUMN" | "JOB" | "PIPELINE" | "RUN" | "POLICY_TAG";

/** Full results of a search, grouped by kind (`/search?q=…&kinds=…`). */
export function SearchView() {
  const { params } = useLocation();
  const q = params.get("q") ?? "";
  const kinds = params.get("kinds")?.split(",").filter(Boolean) as Kind[] | undefined;
  const result = useQuery(q ? `${q}|${kinds ?? ""}` : undefined, (signal) => request(SearchDocument, { query: q, kinds, first: 100 }, signal));
  useDocumentTitle(q ? `Search “${q}”` : "Search");
  if (!q) return <Empty title="Search for something">Type in the box above.</Empty>;
  if (result.error) return <ErrorNotice error={result.error} onRetry={result.reload} />;
  if (!result.data) return <Loading what={`results for “${q}”`} />;
  const hits = result.data.search.edges.map((e) => e.node);
  if (!hits.length) return <Empty title={`Nothing matches “${q}”`}>Search matches names, namespaces, columns, run ids and tags.</Empty>;
  return (
    <div className="search-page">
      <h2>
        Results for “{q}” <span className="muted">({result.data.search.totalCount ?? hits.length})</span>
      </h2>
      {groupHits(hits).map((group) => (
        <section key={group.kind} className="result-group">
          <h3>{KIND_LABELS[group.kind]}</h3>
          <ul>
            {group.hits.map((hit) => (
              <li key={hit.kind + hit.id}>
                <a
                  href={hrefOfHit(hit)}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(hrefOfHit(hit));
                  }}
                >
                  <Highlighted text={hit.label} ranges={hit.highlights} />
                </a>
                {hit.detail && <span className="muted"> · {hit.detail}</span>}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

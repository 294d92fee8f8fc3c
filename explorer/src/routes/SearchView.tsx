import { useState } from "react";
import { ApiError, asApiError, type HitFieldsFragment, SearchDocument, request } from "../api/client";
import { Empty } from "../components/Empty";
import { ErrorNotice } from "../components/ErrorNotice";
import { Highlighted } from "../components/Highlighted";
import { Loading } from "../components/Loading";
import { useQuery } from "../state/use-query";
import { groupHits, hrefOfHit, KIND_LABELS, KIND_ORDER } from "./open-hit";
import { hrefOf, navigate, useLocation } from "./router";
import { useDocumentTitle } from "../state/document-title";

type Kind = HitFieldsFragment["kind"];

/** Hits a page of results asks for; "Show more" asks for the next as many. */
const PAGE = 100;

/** Pages loaded after the first, for one search (its key), and the request for the next one. */
interface More {
  key: string;
  hits: HitFieldsFragment[];
  pageInfo?: { endCursor: string | null; hasNextPage: boolean };
  loading: boolean;
  error?: ApiError;
}

/** Full results of a search, grouped by kind, narrowed to one kind and paged with "Show more" (`/search?q=…&kinds=…`). */
export function SearchView() {
  const { params } = useLocation();
  const q = params.get("q") ?? "";
  const kinds = params.get("kinds")?.split(",").filter(Boolean) as Kind[] | undefined;
  const key = q ? `${q}|${kinds ?? ""}` : undefined;
  const result = useQuery(key, (signal) => request(SearchDocument, { query: q, kinds, first: PAGE }, signal));
  const [more, setMore] = useState<More>();
  useDocumentTitle(q ? `Search “${q}”` : "Search");
  if (!q) return <Empty heading title="Search for something">Type in the box above.</Empty>;
  if (!result.data)
    return (
      <div className="search-page">
        <h1>Results for “{q}”</h1>
        {result.error ? <ErrorNotice error={result.error} onRetry={result.reload} /> : <Loading what={`results for “${q}”`} />}
      </div>
    );
  const first = result.data.search;
  const extra = more?.key === key ? more : undefined;
  const hits = [...first.edges.map((e) => e.node), ...(extra?.hits ?? [])];
  const pageInfo = extra?.pageInfo ?? first.pageInfo;
  const loadingMore = !!extra?.loading;
  const showMore = async () => {
    const shown = { key: key!, hits: extra?.hits ?? [], pageInfo: extra?.pageInfo };
    setMore({ ...shown, loading: true });
    try {
      const page = (await request(SearchDocument, { query: q, kinds, first: PAGE, after: pageInfo.endCursor })).search;
      setMore({ key: key!, hits: [...shown.hits, ...page.edges.map((e) => e.node)], pageInfo: page.pageInfo, loading: false });
    } catch (error) {
      setMore({ ...shown, loading: false, error: asApiError(error) });
    }
  };
  const only = kinds?.length === 1 ? kinds[0] : undefined;
  return (
    <div className="search-page">
      <h1>
        Results for “{q}” <span className="muted">({first.totalCount ?? hits.length})</span>
      </h1>
      <nav className="kind-filter" aria-label="Narrow to one kind">
        {[undefined, ...KIND_ORDER].map((kind) => (
          <a
            key={kind ?? "all"}
            className={kind === only || (!kind && !kinds?.length) ? "on" : undefined}
            aria-current={kind === only || (!kind && !kinds?.length) ? "page" : undefined}
            href={hrefOf("/search", { q, kinds: kind })}
            onClick={(e) => {
              e.preventDefault();
              navigate(hrefOf("/search", { q, kinds: kind }));
            }}
          >
            {kind ? KIND_LABELS[kind] : "All kinds"}
          </a>
        ))}
      </nav>
      {!hits.length && <Empty title={`Nothing matches “${q}”${only ? ` among ${KIND_LABELS[only].toLowerCase()}` : ""}`}>Search matches names, namespaces, columns, run ids and tags.</Empty>}
      {groupHits(hits).map((group) => (
        <section key={group.kind} className="result-group">
          <h2>{KIND_LABELS[group.kind]}</h2>
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
      {extra?.error && <ErrorNotice error={extra.error} onRetry={showMore} />}
      {pageInfo.hasNextPage && (
        <div className="search-more">
          <span className="muted">
            Showing {hits.length}
            {first.totalCount != null ? ` of ${first.totalCount}` : ""}
          </span>{" "}
          <button className="button" data-testid="search-more" disabled={loadingMore} onClick={showMore}>
            {loadingMore ? "Loading…" : `Show ${PAGE} more`}
          </button>
        </div>
      )}
    </div>
  );
}

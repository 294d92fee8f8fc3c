import { useEffect, useId, useRef, useState } from "react";
import { ApiError, AutocompleteDocument, asApiError, type HitFieldsFragment, request } from "../api/client";
import { groupHits, hrefOfHit, KIND_LABELS } from "../routes/open-hit";
import { hrefOf, navigate } from "../routes/router";
import { Highlighted } from "./Highlighted";

/**
 * The search box: autocomplete as you type (every kind the search covers, grouped by kind), arrows to move,
 * Enter to open the chosen hit (or the full results when none is chosen), Escape to close.
 */
export function SearchBox() {
  const [text, setText] = useState("");
  const [hits, setHits] = useState<HitFieldsFragment[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [error, setError] = useState<ApiError>();
  const [loading, setLoading] = useState(false);
  const listId = useId();
  const abort = useRef<AbortController>(undefined);

  useEffect(() => {
    const prefix = text.trim();
    abort.current?.abort();
    if (!prefix) {
      setHits([]);
      setError(undefined);
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    const timer = setTimeout(() => {
      setLoading(true);
      request(AutocompleteDocument, { prefix, first: 12 }, controller.signal)
        .then((data) => {
          setHits(data.autocomplete);
          setError(undefined);
          setActive(-1);
        })
        .catch((e) => {
          if ((e as Error).name !== "AbortError") setError(asApiError(e));
        })
        .finally(() => !controller.signal.aborted && setLoading(false));
    }, 120);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [text]);

  // Hits in the order they are drawn (grouped), so the arrows move through them top to bottom.
  const ordered = groupHits(hits).flatMap((g) => g.hits);

  const choose = (hit?: HitFieldsFragment) => {
    setOpen(false);
    if (hit) navigate(hrefOfHit(hit));
    else if (text.trim()) navigate(hrefOf("/search", { q: text.trim() }));
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setOpen(true);
      setActive((i) => Math.min(ordered.length - 1, i + 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive((i) => Math.max(-1, i - 1));
    } else if (event.key === "Enter") {
      event.preventDefault();
      choose(ordered[active]);
    } else if (event.key === "Escape") {
      setOpen(false);
      (event.target as HTMLInputElement).blur();
    }
  };

  const showList = open && text.trim().length > 0;
  return (
    <div className="search" role="search">
      <input
        id="search-input"
        className="search-input"
        type="search"
        placeholder="Search artifacts, datasets, columns, runs, jobs, pipelines, tags…  ( / )"
        autoComplete="off"
        spellCheck={false}
        role="combobox"
        aria-expanded={showList}
        aria-controls={listId}
        aria-activedescendant={active >= 0 ? `${listId}-${active}` : undefined}
        aria-label="Search provenance"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
      />
      {showList && (
        <div className="search-popup" id={listId} role="listbox" aria-label="Suggestions">
          {error ? (
            <div className="search-message error">
              {error.code}: {error.message}
              {error.hint && <div className="hint">{error.hint}</div>}
            </div>
          ) : ordered.length === 0 ? (
            <div className="search-message">{loading ? "Searching…" : `Nothing matches “${text.trim()}”.`}</div>
          ) : (
            groupHits(hits).map((group) => (
              <div key={group.kind} className="search-group" role="group" aria-label={KIND_LABELS[group.kind]}>
                <div className="search-group-title">{KIND_LABELS[group.kind]}</div>
                {group.hits.map((hit) => {
                  const index = ordered.indexOf(hit);
                  return (
                    <div
                      key={hit.kind + hit.id}
                      id={`${listId}-${index}`}
                      role="option"
                      aria-selected={index === active}
                      className={`search-hit${index === active ? " active" : ""}`}
                      data-kind={hit.kind}
                      onMouseDown={(e) => e.preventDefault()}
                      onMouseEnter={() => setActive(index)}
                      onClick={() => choose(hit)}
                    >
                      <span className={`kind-dot kind-${hit.kind.toLowerCase()}`} aria-hidden="true" />
                      <span className="search-hit-label">
                        <Highlighted text={hit.label} ranges={hit.highlights} fit />
                      </span>
                      {hit.detail && <span className="search-hit-detail">{hit.detail}</span>}
                    </div>
                  );
                })}
              </div>
            ))
          )}
          <div className="search-footer">
            <kbd>↑</kbd>
            <kbd>↓</kbd> to move · <kbd>Enter</kbd> to open · <kbd>Esc</kbd> to close
          </div>
        </div>
      )}
    </div>
  );
}
